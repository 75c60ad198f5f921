/**
 * The game page: launch (SPEC.md "Launch URL"), the session and its profile, the casino balance,
 * the lobby, the embedded currency switch (CONTRACT.md §14) and the screens of a launch that
 * cannot start. Games render inside <GameHost>, remounted for each session and game.
 * Issue 12: the shield (seeds, verifier, my bets), live stats, settings (sound, hotkeys), and
 * autobet's stop before a currency switch. Top-bar widgets sit in `gp-topbar-end`; a new one
 * (e.g. a free-bets counter) is one more component there, fed from `env.round` like the stats.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { ApiError, type Json } from '../lib/api';
import { toDecimalText, type Minor } from '../lib/money';
import { clampStake } from '../lib/stake';
import { t } from '../i18n';
import { Balance } from '../components/Balance';
import { DemoHeader } from '../components/DemoHeader';
import { FreeBets } from '../components/FreeBets';
import { Promotions } from '../components/Promotions';
import { ErrorScreen, type ScreenKind } from '../components/ErrorScreen';
import { GameSwitcher } from '../components/GameSwitcher';
import { ShieldButton, ShieldPanel, type ShieldTab } from '../components/Shield';
import { SettingsPanel } from '../components/SettingsPanel';
import { StatsPanel } from '../components/StatsPanel';
import { ChartIcon, GearIcon } from '../components/icons';
import { playTone } from '../lib/sound';
import { loadPreferences, savePreferences, DEFAULT_PREFERENCES, type Preferences } from './preferences';
import { addRound, EMPTY_STATS, type Stats } from './stats';
import { useHotkeys } from './hotkeys';
import { GameHost } from '../games/GameHost';
import { isEmbedded, MSG, originAllowed, postReady, postToCasino, readSwitchMessage, reportHeight, type EmbedPolicy, type SwitchRequest } from './embed';
import { LeftScreen, RealityCheck, SessionSummary } from '../components/SessionSummary';
import { GameEnvContext, moneyOf, type GameEnv } from './env';
import { balanceVisible, isGameType, isProduction, parseLaunch, type GameType, type Launch } from './launch';
import { openSession, type Opened } from './session';
import type { RoundWire } from './contract';
import { NO_RULES, readRound, type RoundAnswer } from './types';

interface Ready extends Opened {
  game: GameType;
}

type State = { phase: 'loading' } | { phase: 'error'; kind: ScreenKind; retry: boolean; casinoMessage?: string | undefined } | ({ phase: 'ready' } & Ready);

/** The screen of a launch that could not open its session (with the casino's own words, when it sent some). */
function screenOf(err: unknown): { kind: ScreenKind; retry: boolean; casinoMessage?: string | undefined } {
  const casinoMessage = err instanceof ApiError ? err.casinoMessage : undefined;
  return casinoMessage ? { ...launchScreenOf(err), retry: false, casinoMessage } : launchScreenOf(err);
}

function launchScreenOf(err: unknown): { kind: ScreenKind; retry: boolean } {
  const code = err instanceof ApiError ? err.code : 'UNKNOWN';
  switch (code) {
    case 'UNKNOWN_OPERATOR':
      return { kind: 'unknownOperator', retry: false };
    case 'INVALID_SESSION':
      return { kind: 'invalidSession', retry: false };
    case 'GAME_DISABLED':
      return { kind: 'gameDisabled', retry: false };
    case 'CURRENCY_MISMATCH':
    case 'UNSUPPORTED_CURRENCY':
      return { kind: 'currencyRefused', retry: false };
    case 'CASINO_TIMEOUT':
    case 'CASINO_HTTP_ERROR':
    case 'CASINO_HTTP_RETRYABLE':
    case 'CASINO_NETWORK_ERROR':
      return { kind: 'casinoDown', retry: true };
    default:
      return { kind: 'generic', retry: true };
  }
}

/** The code a switch answers: CONTRACT.md §2 codes only. */
function switchCode(err: unknown): string {
  if (!(err instanceof ApiError)) return 'INTERNAL_ERROR';
  if (err.code === 'UNKNOWN_OPERATOR') return 'INVALID_SESSION';
  if (err.code === 'NETWORK') return 'NOT_READY';
  return err.code;
}

const SETTLE_WAIT_MS = 5_000;
/** Pacing (issue 27): the page waits this much longer than minRoundIntervalMs, for the network's jitter. */
const PACE_MARGIN_MS = 100;

/** The first stake: 100 × minBet (1.00 for a 0.01 minimum) when the limits and the balance allow it, else minBet. */
function defaultStake({ config, balance }: Opened): Minor {
  const wanted = clampStake(config.minBet * 100n, config);
  return wanted <= balance ? wanted : config.minBet;
}
const SWITCH_DEADLINE_MS = 10_000;

export function App({ launch = parseLaunch(window.location.search) }: { launch?: Launch }) {
  const [state, setState] = useState<State>({ phase: 'loading' });
  const [stake, setStake] = useState<Minor | null>(null);
  const [balance, setBalance] = useState<Minor | null>(null);
  /** bumped when a free Mines round opened (components/FreeBets.tsx): the game remounts and shows it */
  const [freeRounds, setFreeRounds] = useState(0);
  const [switching, setSwitching] = useState(false);
  const [shieldOpen, setShieldOpen] = useState(false);
  const [shieldTab, setShieldTab] = useState<ShieldTab>('seeds');
  const [pendingClientSeed, setPendingClientSeed] = useState<string | null>(null);
  const [popover, setPopover] = useState<'stats' | 'settings' | null>(null);
  const [stats, setStats] = useState<Stats>(EMPTY_STATS);
  const [prefs, setPrefs] = useState<Preferences>(DEFAULT_PREFERENCES);
  const [autobetNote, setAutobetNote] = useState<string | null>(null);
  const autobetStops = useRef(new Set<(reason: 'switch' | 'realityCheck') => void>());
  /* responsible gaming (issue 27): net position, time played, the reality check, pacing */
  const [net, setNet] = useState<bigint>(0n);
  const netRef = useRef(0n);
  const [startedAt, setStartedAt] = useState(() => Date.now());
  const [clock, setClock] = useState(() => Date.now());
  const realityFrom = useRef(Date.now());
  const [reality, setReality] = useState<{ elapsedMs: number; net: bigint } | null>(null);
  const [left, setLeft] = useState(false);
  const lastStartAt = useRef(0);
  /** A round start was sent and not answered yet: its answer moves `lastStartAt` (paceWait). */
  const startUnanswered = useRef(false);
  const autobetActive = useRef(false);
  const pendingSeedRef = useRef<string | null>(null);
  pendingSeedRef.current = pendingClientSeed;
  const prefsRef = useRef(prefs);
  prefsRef.current = prefs;
  const [fairness, setFairness] = useState<{ serverSeedHash: string; clientSeed: string; nonce: number; lastRoundId: string | null } | null>(null);
  const production = useMemo(isProduction, []);

  const current = useRef<Ready | null>(null);
  const inFlight = useRef(0);
  const idleWaiters = useRef<(() => void)[]>([]);
  const pendingBalance = useRef<{ sessionId: string; balance: Minor } | null>(null);
  const rootRef = useRef<HTMLDivElement>(null);

  const firstGame = (opened: Opened, wanted: GameType): GameType => {
    if (opened.session.gameType) return opened.session.gameType;
    return opened.config.enabledGames.includes(wanted) ? wanted : (opened.config.enabledGames[0] ?? wanted);
  };

  const enter = useCallback((opened: Opened, wanted: GameType) => {
    const ready: Ready = { ...opened, game: firstGame(opened, wanted) };
    current.current = ready;
    pendingBalance.current = null;
    setBalance(opened.balance);
    setStake(defaultStake(opened));
    setFairness({ ...opened.session.fairness, lastRoundId: null });
    setStats(EMPTY_STATS);
    netRef.current = 0n;
    setNet(0n);
    const began = Date.now();
    setStartedAt(began);
    setClock(began);
    realityFrom.current = began;
    setReality(null);
    setPrefs(loadPreferences(opened.session.operatorId, opened.session.playerRef));
    setState({ phase: 'ready', ...ready });
    return ready;
  }, []);

  /* ------------------------------------------------------------ launch */
  const start = useCallback(async () => {
    setState({ phase: 'loading' });
    if (!launch.operatorId || !launch.token) return setState({ phase: 'error', kind: 'missingParams', retry: false });
    const wanted = launch.game ?? 'dice';
    if (!isGameType(wanted)) return setState({ phase: 'error', kind: 'unknownGame', retry: false });
    try {
      const opened = await openSession({ operatorId: launch.operatorId, launchToken: launch.token, game: wanted, mode: launch.mode });
      enter(opened, wanted);
    } catch (err) {
      setState({ phase: 'error', ...screenOf(err) });
    }
  }, [launch, enter]);

  useEffect(() => {
    void start();
  }, [start]);

  /* ------------------------------------------------------------ requests that settle rounds */
  const track = useCallback(async <T,>(work: () => Promise<T>): Promise<T> => {
    inFlight.current += 1;
    try {
      return await work();
    } finally {
      inFlight.current -= 1;
      if (inFlight.current === 0) idleWaiters.current.splice(0).forEach((w) => w());
    }
  }, []);

  const whenIdle = (ms: number) =>
    new Promise<boolean>((resolve) => {
      if (inFlight.current === 0) return resolve(true);
      const timer = setTimeout(() => resolve(inFlight.current === 0), ms);
      idleWaiters.current.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });

  /* ------------------------------------------------------------ embedding */
  const policy = useCallback((): EmbedPolicy => ({ allowedOrigins: current.current?.config.allowedEmbedOrigins ?? [], production }), [production]);

  const summary = (r: Ready, b: Minor) => ({
    sessionId: r.session.sessionId,
    operatorId: r.session.operatorId,
    currency: r.session.currency,
    balance: Number(toDecimalText(b, r.config.decimals)),
    game: r.session.gameType,
  });

  const switchQueue = useRef<Promise<void>>(Promise.resolve());

  const runSwitch = useCallback(
    async (req: SwitchRequest, reply: (m: Json) => void) => {
      const began = Date.now();
      const fail = (code: string, message: string) => reply({ type: MSG.switchResult, requestId: req.requestId, ok: false, code, message });
      const from = current.current;
      if (!from) return fail('INVALID_SESSION', 'the game has no session yet');
      if (!isGameType(req.game)) return fail('VALIDATION_ERROR', 'game must be one of dice, limbo, plinko, keno, mines, blackjack');
      if (req.launchMode !== 'single' && req.launchMode !== 'lobby') return fail('VALIDATION_ERROR', 'launchMode must be single or lobby');
      setSwitching(true);
      setAutobetNote(null);
      // A running autobet is asked to stop; the bet it has in flight is waited for like any other.
      autobetStops.current.forEach((stop) => stop('switch'));
      try {
        // A round that is settling finishes first (up to 5 s); no new one starts meanwhile.
        if (!(await whenIdle(SETTLE_WAIT_MS))) return fail('ACTIVE_ROUND_EXISTS', 'a round is still settling; try again in a moment');
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), Math.max(500, SWITCH_DEADLINE_MS - (Date.now() - began) - 300));
        let opened: Opened;
        try {
          opened = await openSession({
            operatorId: req.operatorId,
            launchToken: req.launchToken,
            game: req.game,
            mode: req.launchMode,
            switchFromSessionId: from.session.sessionId,
            signal: controller.signal,
          });
        } finally {
          clearTimeout(timer);
        }
        const ready = enter(opened, req.game);
        reply({ type: MSG.switchResult, requestId: req.requestId, ok: true, session: summary(ready, opened.balance) });
        postReady(summary(ready, opened.balance), policy());
      } catch (err) {
        fail(switchCode(err), err instanceof Error ? err.message : 'the switch failed');
      } finally {
        setSwitching(false);
      }
    },
    [enter, policy],
  );

  const ready = state.phase === 'ready';
  useEffect(() => {
    if (!ready || !isEmbedded()) return;
    const onMessage = (event: MessageEvent) => {
      if (event.source !== window.parent) return;
      if (!originAllowed(event.origin, policy())) return; // ignored, no answer (CONTRACT.md §14)
      const read = readSwitchMessage(event.data);
      if (!read) return;
      const origin = event.origin;
      const reply = (m: Json) => window.parent.postMessage(m, origin);
      if ('invalid' in read) {
        if (read.requestId)
          reply({
            type: MSG.switchResult,
            requestId: read.requestId,
            ok: false,
            code: 'VALIDATION_ERROR',
            message: 'requestId, operatorId, launchToken and game are required strings',
          });
        return;
      }
      switchQueue.current = switchQueue.current.then(() => runSwitch(read.request, reply));
    };
    window.addEventListener('message', onMessage);
    const r = current.current;
    if (r) postReady(summary(r, r.balance), policy());
    return () => window.removeEventListener('message', onMessage);
    // once per page: the listener reads the current session through refs
  }, [ready, policy, runSwitch]);

  useEffect(() => {
    if (!launch.embed || launch.fill || !rootRef.current) return;
    return reportHeight(rootRef.current, policy);
  }, [launch.embed, launch.fill, policy, state.phase]);

  /* ------------------------------------------------------------ responsible gaming (issue 27) */
  const readyState = state.phase === 'ready' ? state : null;
  const rules = readyState?.session.rules ?? NO_RULES;
  const sessionKey = readyState?.session.sessionId ?? null;

  // The header's clock ticks once a second while it is shown.
  useEffect(() => {
    if (!sessionKey || !rules.showElapsedTime || left) return;
    const timer = setInterval(() => setClock(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [sessionKey, rules.showElapsedTime, left]);

  const realityPolicy = useCallback((): EmbedPolicy => ({ allowedOrigins: current.current?.config.allowedEmbedOrigins ?? [], production }), [production]);

  // The reality check: every realityCheckMinutes of play (counted again from each Continue).
  useEffect(() => {
    const minutes = rules.realityCheckMinutes;
    if (!sessionKey || !minutes || reality || left) return;
    const due = realityFrom.current + minutes * 60_000;
    const timer = setTimeout(
      () => {
        const r = current.current;
        if (!r) return;
        const at = Date.now();
        // Betting pauses: an autobet run stops after its bet in flight; the page is locked meanwhile.
        autobetStops.current.forEach((stop) => stop('realityCheck'));
        const shown = { elapsedMs: at - startedAt, net: netRef.current };
        setReality(shown);
        postToCasino(
          {
            type: MSG.realityCheck,
            sessionId: r.session.sessionId,
            elapsedMinutes: Math.floor(shown.elapsedMs / 60_000),
            netPosition: Number(toDecimalText(shown.net, r.config.decimals)),
            currency: r.session.currency,
          },
          realityPolicy(),
        );
      },
      Math.max(0, due - Date.now()),
    );
    return () => clearTimeout(timer);
  }, [sessionKey, rules.realityCheckMinutes, reality, left, startedAt, realityPolicy]);

  const continuePlaying = () => {
    realityFrom.current = Date.now();
    setReality(null);
  };
  const leaveGame = () => {
    const r = current.current;
    if (r) postToCasino({ type: MSG.exit, sessionId: r.session.sessionId, reason: 'reality_check' }, realityPolicy());
    setReality(null);
    setLeft(true);
  };

  /**
   * Milliseconds until a round may start under the pacing rule (0: now): the interval and a margin
   * after the last round start the page sent, counted from its answer once it came (the server
   * takes the start's time while it handles the request, which is before the answer arrives and
   * after it was sent: from the answer, a start that was slow to reach the server cannot make the
   * next one, quick to reach it, look too soon).
   */
  const paceWait = useCallback(() => {
    const interval = current.current?.session.rules.minRoundIntervalMs ?? 0;
    return interval === 0 ? 0 : Math.max(0, lastStartAt.current + interval + PACE_MARGIN_MS - Date.now());
  }, []);
  const paced = useCallback(() => paceWait() === 0, [paceWait]);

  /* ------------------------------------------------------------ what games get */
  const env: GameEnv | null = useMemo(() => {
    if (!readyState) return null;
    const { session, config, game } = readyState;
    const sessionId = session.sessionId;
    const apply = (b: Minor | null) => {
      if (b === null || current.current?.session.sessionId !== sessionId) return;
      pendingBalance.current = null;
      setBalance(b);
      // the net position shows with the balance, once the game has shown its result (never ahead of the animation)
      setNet(netRef.current);
    };
    return {
      session,
      config,
      game,
      stake,
      setStake,
      balance,
      locked: switching || reality !== null || left,
      track,
      round(j: Json): RoundAnswer {
        if (startUnanswered.current) {
          // the server recorded the round's start before it answered: pacing from the answer holds
          // whatever the network did to this request (a slow one would eat the margin otherwise)
          lastStartAt.current = Date.now();
          startUnanswered.current = false;
        }
        const r = readRound(j as RoundWire, config.decimals);
        if (current.current?.session.sessionId === sessionId) {
          if (r.balance !== null) pendingBalance.current = { sessionId, balance: r.balance };
          setFairness({ serverSeedHash: r.fairness.serverSeedHash, clientSeed: r.fairness.clientSeed, nonce: r.fairness.nonce + 1, lastRoundId: r.roundId });
          if (pendingSeedRef.current !== null && r.fairness.clientSeed === pendingSeedRef.current) setPendingClientSeed(null);
          if (r.roundStatus !== 'active') {
            setStats((s) => addRound(s, r.bet.totalStaked, r.bet.payout));
            netRef.current += r.bet.payout - r.bet.totalStaked;
            if (r.balance === null) setNet(netRef.current); // else with the balance (apply, flushPendingBalance)
            if (prefsRef.current.sound) playTone(r.bet.won ? 'win' : 'loss');
          }
        }
        return r;
      },
      seedField: () => {
        lastStartAt.current = Date.now();
        startUnanswered.current = true;
        return {
          ...(pendingSeedRef.current === null ? {} : { clientSeed: pendingSeedRef.current }),
          ...(autobetActive.current ? { autobet: true as const } : {}),
        };
      },
      rules: session.rules,
      pace: () => new Promise<void>((resolve) => setTimeout(resolve, paceWait())),
      autobet: {
        running(on: boolean) {
          autobetActive.current = on;
        },
        register(stop: (reason: 'switch' | 'realityCheck') => void) {
          autobetStops.current.add(stop);
          return () => void autobetStops.current.delete(stop);
        },
        stopped(reason: string) {
          if (reason === 'switch') setAutobetNote(reason);
        },
      },
      showBalance: apply,
      money: moneyOf(config),
    };
  }, [readyState, stake, balance, switching, reality, left, track, paceWait]);

  const flushPendingBalance = useCallback(() => {
    const p = pendingBalance.current;
    if (p && current.current?.session.sessionId === p.sessionId) setBalance(p.balance);
    pendingBalance.current = null;
    setNet(netRef.current);
  }, []);

  const selectGame = (game: GameType) => {
    if (!readyState || switching) return;
    const next = { ...readyState, game };
    current.current = next;
    setState(next);
  };

  const changePrefs = (p: Preferences) => {
    setPrefs(p);
    if (readyState) savePreferences(readyState.session.operatorId, readyState.session.playerRef, p);
  };
  useHotkeys(readyState !== null && prefs.hotkeys && !switching && reality === null && !left, rootRef, paced);

  /* ------------------------------------------------------------ render */
  const classes = ['gp-app', launch.embed ? 'is-embed' : 'is-standalone', launch.fill ? 'is-fill' : 'is-natural'].join(' ');
  let body: ReactNode;
  if (state.phase === 'loading') {
    body = (
      <div className="gp-loading" role="status">
        <span className="gp-spinner" aria-hidden="true" />
        {t('app.loading')}
      </div>
    );
  } else if (state.phase === 'error') {
    body = <ErrorScreen kind={state.kind} onRetry={state.retry ? () => void start() : undefined} casinoMessage={state.casinoMessage} />;
  } else if (left) {
    body = <LeftScreen />;
  } else if (env) {
    const showBalance = balanceVisible(launch, state.config.theme);
    body = (
      <GameEnvContext.Provider value={env}>
        <div className="gp-topbar">
          {state.session.launchMode === 'lobby' ? (
            <GameSwitcher games={state.config.enabledGames} current={state.game} onSelect={selectGame} disabled={switching} />
          ) : (
            <div className="gp-title">{t(`games.${state.game}`)}</div>
          )}
          <div className="gp-topbar-end">
            <SessionSummary net={net} elapsedMs={clock - startedAt} showNet={rules.showNetPosition} showElapsed={rules.showElapsedTime} money={env.money} />
            {showBalance && <Balance value={balance} currency={state.config.currency} decimals={state.config.decimals} compact={launch.embed} />}
            <button
              type="button"
              className={`gp-shield-btn gp-tool-btn${popover === 'stats' ? ' is-open' : ''}`}
              onClick={() => setPopover((p) => (p === 'stats' ? null : 'stats'))}
              aria-expanded={popover === 'stats'}
              aria-label={t('stats.open')}
              title={t('stats.open')}
              data-testid="stats-button"
            >
              <ChartIcon />
            </button>
            <button
              type="button"
              className={`gp-shield-btn gp-tool-btn${popover === 'settings' ? ' is-open' : ''}`}
              onClick={() => setPopover((p) => (p === 'settings' ? null : 'settings'))}
              aria-expanded={popover === 'settings'}
              aria-label={t('settings.open')}
              title={t('settings.open')}
              data-testid="settings-button"
            >
              <GearIcon />
            </button>
            <ShieldButton open={shieldOpen} onToggle={() => setShieldOpen((o) => !o)} />
          </div>
          {popover === 'stats' && <StatsPanel stats={stats} money={env.money} onReset={() => setStats(EMPTY_STATS)} onClose={() => setPopover(null)} />}
          {popover === 'settings' && <SettingsPanel prefs={prefs} onChange={changePrefs} onClose={() => setPopover(null)} />}
        </div>
        <FreeBets key={`free:${state.session.sessionId}:${state.game}`} onRoundOpened={() => setFreeRounds((n) => n + 1)} />
        <Promotions key={`promo:${state.session.sessionId}`} />
        {autobetNote && (
          <p className="gp-banner" role="status" data-testid="autobet-stopped" data-reason={autobetNote}>
            {t(`autobet.stopped.${autobetNote}`)}
            <button type="button" className="gp-link-btn" onClick={() => setAutobetNote(null)} aria-label={t('shield.close')}>
              ×
            </button>
          </p>
        )}
        <div className="gp-main">
          <GameHost key={`${state.session.sessionId}:${state.game}:${freeRounds}`} game={state.game} onUnmount={flushPendingBalance} />
          {shieldOpen && fairness && (
            <ShieldPanel
              fairness={fairness}
              sessionId={state.session.sessionId}
              pendingClientSeed={pendingClientSeed}
              setPendingClientSeed={setPendingClientSeed}
              onRotated={(next) => setFairness((f) => ({ ...next, lastRoundId: f?.lastRoundId ?? null }))}
              onClose={() => setShieldOpen(false)}
              tab={shieldTab}
              setTab={setShieldTab}
            />
          )}
        </div>
        {reality && <RealityCheck elapsedMs={reality.elapsedMs} net={reality.net} money={env.money} onContinue={continuePlaying} onLeave={leaveGame} />}
        {switching && (
          <div className="gp-overlay" role="status">
            <span className="gp-spinner" aria-hidden="true" />
            {t('app.switching')}
          </div>
        )}
      </GameEnvContext.Provider>
    );
  }

  return (
    <div className={classes} ref={rootRef} data-phase={state.phase}>
      {!launch.embed && <DemoHeader serverSeedHash={fairness?.serverSeedHash ?? null} />}
      {body}
    </div>
  );
}

/**
 * Autobet for dice, limbo, plinko and keno (issue 12): a number of bets (0: until stopped), stop
 * on profit and on loss, the stake on a win and on a loss (back to the base stake, or up by a
 * percentage), and a stop on any error, on a currency switch (the page asks autobet to stop and
 * switches once the bet in flight settled: App.tsx, the same tracking as manual bets) and, when
 * the operator's profile asks for it (`theme.autobetStopOnHidden`), when the page is hidden.
 * Each autobet is an ordinary bet with its own idempotency key (the game's own `placeBet`).
 * Amounts are BigInt minor units; the next stake stays on the step grid.
 */
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { useGameEnv } from '../app/env';
import type { RoundAnswer } from '../app/types';
import { t } from '../i18n';
import { fromInput } from '../lib/format';
import { parseMinor, type Minor } from '../lib/money';
import { clampStake, stakeProblem } from '../lib/stake';
import { reducedMotion, sleep } from './common';

export type StopReason = 'count' | 'profit' | 'loss' | 'error' | 'switch' | 'hidden' | 'user' | 'limits' | 'realityCheck';

interface Rule {
  mode: 'reset' | 'increase';
  pct: string;
}

/** The stake after a bet: the base stake, or the last one up by `pct` percent (2 decimals), floored to the step. */
export function nextStake(last: Minor, base: Minor, rule: Rule): Minor | null {
  if (rule.mode === 'reset') return base;
  const pct = parseMinor(fromInput(rule.pct || '0'), 2); // hundredths of a percent
  if (pct === null || pct < 0n) return null;
  return last + (last * pct) / 10_000n;
}

function RuleField({ label, rule, onChange, disabled, id }: { label: string; rule: Rule; onChange(r: Rule): void; disabled: boolean; id: string }) {
  return (
    <div className="gp-field">
      <span className="gp-label">{label}</span>
      <div className="gp-auto-rule">
        <div className="gp-segmented" role="radiogroup" aria-label={label}>
          {(['reset', 'increase'] as const).map((m) => (
            <button
              key={m}
              type="button"
              role="radio"
              aria-checked={rule.mode === m}
              className={rule.mode === m ? 'is-on' : ''}
              disabled={disabled}
              onClick={() => onChange({ ...rule, mode: m })}
              data-testid={`${id}-${m}`}
            >
              {t(`autobet.${m}`)}
            </button>
          ))}
        </div>
        <input
          className="gp-input gp-auto-pct"
          inputMode="decimal"
          value={rule.pct}
          disabled={disabled || rule.mode === 'reset'}
          aria-label={`${label}: ${t('autobet.increase')}`}
          onChange={(e) => onChange({ ...rule, pct: e.target.value })}
          data-testid={`${id}-pct`}
        />
      </div>
    </div>
  );
}

export interface Autobet {
  mode: 'manual' | 'auto';
  running: boolean;
  /** the Manual | Auto switch */
  tabs: ReactNode;
  /** the auto form and its start / stop button (shown in place of the bet button) */
  panel: ReactNode;
}

/**
 * `placeBet(amount)` places one bet and answers its round, or undefined when it failed (the game
 * shows the error). `canBet` is the game's own readiness (picks made, stake valid, not busy).
 */
export function useAutobet(placeBet: (amount: Minor) => Promise<RoundAnswer | undefined>, canBet: boolean): Autobet {
  const env = useGameEnv();
  const [mode, setMode] = useState<'manual' | 'auto'>('manual');
  // Responsible gaming (issue 27): `disabled` hides autobet; `limited` asks for 1..autobetMaxRounds bets and, when required, a loss limit.
  const rules = env.rules;
  const limited = rules.autobet === 'limited';
  const maxRounds = limited ? rules.autobetMaxRounds : null;
  const [count, setCount] = useState(() => String(maxRounds !== null ? Math.min(10, maxRounds) : 10));
  const [onWin, setOnWin] = useState<Rule>({ mode: 'reset', pct: '100' });
  const [onLoss, setOnLoss] = useState<Rule>({ mode: 'reset', pct: '100' });
  const [stopProfit, setStopProfit] = useState('');
  const [stopLoss, setStopLoss] = useState('');
  const [running, setRunning] = useState(false);
  const [progress, setProgress] = useState<{ n: number; profit: Minor }>({ n: 0, profit: 0n });
  const [stopped, setStopped] = useState<{ reason: StopReason; n: number } | null>(null);

  const stopRequest = useRef<StopReason | null>(null);
  const place = useRef(placeBet);
  place.current = placeBet;
  const mounted = useRef(true);
  useEffect(() => () => void (mounted.current = false), []);

  const requestStop = useCallback((reason: StopReason) => {
    if (stopRequest.current === null) stopRequest.current = reason;
  }, []);

  // A currency switch asks autobet to stop before it switches (App.tsx).
  useEffect(() => env.autobet.register((reason) => requestStop(reason)), [env.autobet, requestStop]);
  // A run's bets carry `autobet: true` (issue 27); a game replaced mid-run ends it.
  const autobetLink = useRef(env.autobet);
  autobetLink.current = env.autobet;
  useEffect(() => () => autobetLink.current.running(false), []);

  // The operator may ask that autobet stops when the page is hidden.
  const stopOnHidden = env.config.theme.autobetStopOnHidden === true;
  useEffect(() => {
    if (!running || !stopOnHidden) return;
    const onVisibility = () => document.visibilityState === 'hidden' && requestStop('hidden');
    document.addEventListener('visibilitychange', onVisibility);
    return () => document.removeEventListener('visibilitychange', onVisibility);
  }, [running, stopOnHidden, requestStop]);

  const { decimals } = env.config;
  const amountOf = (text: string): Minor | null => (text.trim() === '' ? null : parseMinor(fromInput(text), decimals));
  const countRaw = /^\d{1,6}$/.test(count.trim()) ? Number(count.trim()) : null;
  const countN = countRaw !== null && limited && (countRaw < 1 || (maxRounds !== null && countRaw > maxRounds)) ? null : countRaw;
  const lossRequiredHere = limited && rules.autobetRequiresLossLimit;
  const lossMissing = limited && rules.autobetRequiresLossLimit && stopLoss.trim() === '';
  const formValid =
    countN !== null &&
    !lossMissing &&
    (stopProfit.trim() === '' || (amountOf(stopProfit) ?? -1n) > 0n) &&
    (stopLoss.trim() === '' || (amountOf(stopLoss) ?? -1n) > 0n) &&
    nextStake(1n, 1n, onWin) !== null &&
    nextStake(1n, 1n, onLoss) !== null;

  const start = async () => {
    if (running || env.stake === null || countN === null) return;
    const base = env.stake;
    const profitTarget = amountOf(stopProfit);
    const lossLimit = amountOf(stopLoss);
    stopRequest.current = null;
    setStopped(null);
    setProgress({ n: 0, profit: 0n });
    setRunning(true);
    env.autobet.running(true);
    let n = 0;
    let profit = 0n;
    let stake = base;
    let reason: StopReason = 'count';
    // A currency switch can finish (and remount the game) while this loop sleeps: the page is
    // still told why the autobet stopped.
    const reportUnmounted = () => {
      if (stopRequest.current !== null) env.autobet.stopped(stopRequest.current);
    };
    for (;;) {
      if (stopRequest.current !== null) {
        reason = stopRequest.current;
        break;
      }
      if (countN > 0 && n >= countN) break;
      // The pacing rule (issue 27): wait out minRoundIntervalMs since the last round start.
      await env.pace();
      if (!mounted.current) return reportUnmounted();
      if (stopRequest.current !== null) {
        reason = stopRequest.current;
        break;
      }
      const r = await place.current(stake);
      if (!mounted.current) return reportUnmounted();
      if (!r) {
        reason = stopRequest.current === 'switch' ? 'switch' : 'error';
        break;
      }
      n += 1;
      profit += r.bet.payout - r.bet.totalStaked;
      setProgress({ n, profit });
      if (profitTarget !== null && profit >= profitTarget) {
        reason = 'profit';
        break;
      }
      if (lossLimit !== null && -profit >= lossLimit) {
        reason = 'loss';
        break;
      }
      const raw = nextStake(stake, base, r.bet.won ? onWin : onLoss);
      if (raw === null || (env.config.maxBet !== null && raw > env.config.maxBet)) {
        reason = 'limits';
        break;
      }
      stake = clampStake(raw, env.config);
      if (stakeProblem(stake, env.config) !== null) {
        reason = 'limits';
        break;
      }
      env.setStake(stake);
      await sleep(reducedMotion() ? 0 : 150);
      if (!mounted.current) return reportUnmounted();
    }
    setRunning(false);
    env.autobet.running(false);
    setStopped({ reason, n });
    env.autobet.stopped(reason);
  };

  const disabled = running || env.locked;
  const tabs =
    rules.autobet === 'disabled' ? null : (
      <div className="gp-segmented gp-mode-tabs" role="tablist" aria-label={t('autobet.mode')}>
        {(['manual', 'auto'] as const).map((m) => (
          <button
            key={m}
            type="button"
            role="tab"
            aria-selected={mode === m}
            className={mode === m ? 'is-on' : ''}
            disabled={running}
            onClick={() => setMode(m)}
            data-testid={`autobet-tab-${m}`}
          >
            {t(`autobet.${m}`)}
          </button>
        ))}
      </div>
    );

  const status = running
    ? countN
      ? t('autobet.runningOf', { n: progress.n + 1, total: countN })
      : t('autobet.running', { n: progress.n + 1 })
    : stopped
      ? stopped.reason === 'count'
        ? t('autobet.stopped.count', { count: stopped.n })
        : t(`autobet.stopped.${stopped.reason}`)
      : '';

  const panel = (
    <div className="gp-autobet" data-testid="autobet">
      <button
        type="button"
        className={`gp-bet-btn${running ? ' is-cashout' : ''}`}
        onClick={() => (running ? requestStop('user') : void start())}
        disabled={running ? false : !canBet || !formValid}
        data-testid={running ? 'autobet-stop' : 'autobet-start'}
      >
        {running ? t('autobet.stop') : t('autobet.start')}
        {!running && env.stake !== null && env.stake > 0n ? (
          <small className="gp-bet-amount" data-testid="autobet-start-amount">
            {env.money(env.stake)}
          </small>
        ) : null}
      </button>
      <label className="gp-field">
        <span className="gp-label">{t('autobet.count')}</span>
        <input
          className="gp-input"
          inputMode="numeric"
          value={count}
          disabled={disabled}
          onChange={(e) => setCount(e.target.value)}
          data-testid="autobet-count"
        />
        <span className="gp-hint" data-testid="autobet-count-help">
          {limited
            ? countRaw !== null && countN === null
              ? t('autobet.countRequired', { max: maxRounds ?? 999999 })
              : t('autobet.countLimited', { max: maxRounds ?? 999999 })
            : t('autobet.countHelp')}
        </span>
      </label>
      <RuleField label={t('autobet.onWin')} rule={onWin} onChange={setOnWin} disabled={disabled} id="autobet-win" />
      <RuleField label={t('autobet.onLoss')} rule={onLoss} onChange={setOnLoss} disabled={disabled} id="autobet-loss" />
      <div className="gp-btn-row">
        <label className="gp-field">
          <span className="gp-label">{t('autobet.stopProfit')}</span>
          <input
            className="gp-input"
            inputMode="decimal"
            placeholder={t('autobet.optional')}
            value={stopProfit}
            disabled={disabled}
            onChange={(e) => setStopProfit(e.target.value)}
            data-testid="autobet-stop-profit"
          />
        </label>
        <label className="gp-field">
          <span className="gp-label">{t('autobet.stopLoss')}</span>
          <input
            className="gp-input"
            inputMode="decimal"
            placeholder={lossRequiredHere ? '' : t('autobet.optional')}
            value={stopLoss}
            disabled={disabled}
            onChange={(e) => setStopLoss(e.target.value)}
            required={lossRequiredHere}
            aria-invalid={lossMissing || undefined}
            data-testid="autobet-stop-loss"
          />
        </label>
      </div>
      {lossMissing && (
        <p className="gp-hint gp-auto-required" data-testid="autobet-loss-required">
          {t('autobet.lossLimitRequired')}
        </p>
      )}
      <p
        className="gp-hint gp-auto-status"
        role="status"
        data-testid="autobet-status"
        data-state={running ? 'running' : stopped ? 'stopped' : 'idle'}
        data-reason={stopped?.reason ?? ''}
        data-bets={running ? progress.n : (stopped?.n ?? 0)}
      >
        {status}
        {(running || stopped) && ` · ${t('autobet.profitSoFar', { amount: env.money(progress.profit) })}`}
      </p>
    </div>
  );
  return { mode: rules.autobet === 'disabled' ? 'manual' : mode, running, tabs, panel };
}

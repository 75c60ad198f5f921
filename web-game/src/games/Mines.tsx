/**
 * Mines (SPEC.md endpoint rule 5, CONTRACT.md §10, §12): a 5×5 grid, 1..24 mines; Bet starts a round
 * (one debit), each tile is a reveal (no money moves), Cash out credits the payout; the current
 * and next multipliers; every mine shown at the end. An open round of the player is shown and
 * continued when the game opens.
 */
import { useEffect, useRef, useState } from 'react';
import { LosslessNumber } from 'lossless-json';
import { useGameEnv } from '../app/env';
import type { RoundAnswer } from '../app/types';
import { BetAmount } from '../components/BetAmount';
import { t } from '../i18n';
import { api, newKey } from '../lib/api';
import { multiplier2, payoutOf, toDecimalText } from '../lib/money';
import { BetButton, GameLayout, NoticeLine, reducedMotion, Select, sleep, useAction, useCanBet } from './common';
import { useAutobet } from './Autobet';
import type { Minor } from '../lib/money';

/** A uniformly random element (crypto, never Math.random): the random tile. */
function pickRandom(from: number[]): number | undefined {
  if (from.length === 0) return undefined;
  const r = new Uint32Array(1);
  crypto.getRandomValues(r);
  return from[r[0]! % from.length];
}

const TILES = Array.from({ length: 25 }, (_, i) => i);
const COUNTS = Array.from({ length: 24 }, (_, i) => i + 1);

/** Every safe tile revealed: 0.99 × C(25, m) (game-core minesMultiplier4); Mines pays such a win capped at maxPayout. */
function topMultiplier(mines: number): number {
  let c = 1n;
  for (let i = 1; i <= mines; i++) c = (c * BigInt(25 - mines + i)) / BigInt(i);
  const m4 = 9900n * c;
  return Number(`${m4 / 10_000n}.${String(m4 % 10_000n).padStart(4, '0')}`);
}

export function Mines() {
  const env = useGameEnv();
  const { busy, run, notice, setNotice, mounted } = useAction();
  const [mineCount, setMineCount] = useState(3);
  const [round, setRound] = useState<RoundAnswer | null>(null);
  const [pendingTile, setPendingTile] = useState<number | null>(null);
  const canStart = useCanBet(busy);
  const active = round?.roundStatus === 'active';
  const base = `/api/mines/rounds`;

  // An open round of the player (any session) is continued.
  useEffect(() => {
    void run(async () => {
      const j = await api.get(`${base}/active?sessionId=${encodeURIComponent(env.session.sessionId)}`);
      if (!mounted.current || !j.round) return;
      const r = env.round(j.round as Record<string, unknown>);
      setRound(r);
      setMineCount(Number(r.result.mineCount ?? 3));
      env.setStake(r.bet.amount);
      setNotice({ kind: 'info', text: t('mines.resumed') });
    });
    // once per session
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const finish = (r: RoundAnswer) => {
    setRound(r);
    env.showBalance(r.balance);
    if (r.roundStatus === 'busted') setNotice({ kind: 'loss', text: t('mines.busted') });
    else if (r.roundStatus !== 'active')
      setNotice({ kind: 'win', text: t('mines.cashedOut', { amount: env.money(r.bet.payout), multiplier: multiplier2(r.bet.multiplier) }) });
  };

  const start = () =>
    run(async () => {
      const j = await api.post(
        base,
        {
          sessionId: env.session.sessionId,
          amount: new LosslessNumber(toDecimalText(env.stake!, env.config.decimals)),
          idempotencyKey: newKey(),
          mineCount,
          ...env.seedField(),
        },
        { idempotent: true },
      );
      const r = env.round(j);
      setRound(r);
      env.showBalance(r.balance);
      setNotice({ kind: 'info', text: t('mines.pickTile') });
    });

  const reveal = (tile: number) =>
    run(async () => {
      if (!round) return;
      setPendingTile(tile);
      try {
        const j = await api.post(`${base}/${round.roundId}/reveal`, { sessionId: env.session.sessionId, tile, idempotencyKey: newKey() }, { idempotent: true });
        const r = env.round(j);
        if (!mounted.current) return;
        if (r.roundStatus === 'active') {
          setRound(r);
          env.showBalance(r.balance);
        } else finish(r);
      } finally {
        if (mounted.current) setPendingTile(null);
      }
    });

  const cashout = () =>
    run(async () => {
      if (!round) return;
      const j = await api.post(`${base}/${round.roundId}/cashout`, { sessionId: env.session.sessionId, idempotencyKey: newKey() }, { idempotent: true });
      finish(env.round(j));
    });

  const revealed = new Set(((round?.result.revealed as number[]) ?? []).map(Number));
  const mines = new Set(((round?.result.mines as number[]) ?? []).map(Number));
  const lastReveal = ((round?.result.revealed as number[]) ?? []).at(-1);
  const ended = round !== null && !active;
  const current = Number(round?.result.multiplier ?? 0);
  const next = Number(round?.result.nextMultiplier ?? 0);
  const shownMines = Number(round?.result.mineCount ?? mineCount);
  const cashoutAmount = round && current > 0 ? payoutOf(round.bet.amount, current) : null;

  /**
   * Autobet (issue 29): each round starts with the stake autobet chooses, reveals the chosen
   * tiles in the order they were picked, stops at a mine, and cashes out after the last one (the
   * server cashes out by itself when no safe tile is left). Each request is the game's own
   * (idempotency key, retries, tracked for a currency switch).
   */
  const [chosen, setChosen] = useState<number[]>([]);
  const playChosen = (amount: Minor) =>
    run(async () => {
      const tiles = chosenRef.current;
      const post = (path: string, body: Record<string, unknown>) =>
        api.post(path, { sessionId: env.session.sessionId, idempotencyKey: newKey(), ...body }, { idempotent: true });
      let r = env.round(await post(base, { amount: new LosslessNumber(toDecimalText(amount, env.config.decimals)), mineCount, ...env.seedField() }));
      if (!mounted.current) return r;
      setRound(r);
      env.showBalance(r.balance);
      for (const tile of tiles) {
        if (r.roundStatus !== 'active') break;
        await sleep(reducedMotion() ? 0 : 120);
        r = env.round(await post(`${base}/${r.roundId}/reveal`, { tile }));
        if (!mounted.current) return r;
        if (r.roundStatus === 'active') {
          setRound(r);
          env.showBalance(r.balance);
        }
      }
      if (r.roundStatus === 'active') r = env.round(await post(`${base}/${r.roundId}/cashout`, {}));
      if (mounted.current) finish(r);
      return r;
    });
  const chosenRef = useRef(chosen);
  chosenRef.current = chosen;
  const auto = useAutobet(playChosen, canStart && chosen.length > 0 && chosen.length <= 25 - mineCount);
  const choosing = auto.mode === 'auto' && !auto.running && !active;
  const toggleChosen = (tile: number) => setChosen((c) => (c.includes(tile) ? c.filter((x) => x !== tile) : c.length >= 25 - mineCount ? c : [...c, tile]));
  const randomTile = () => {
    if (choosing) {
      const tile = pickRandom(TILES.filter((x) => !chosen.includes(x)));
      if (tile !== undefined) toggleChosen(tile);
      return;
    }
    const tile = pickRandom(TILES.filter((x) => !revealed.has(x)));
    if (tile !== undefined) void reveal(tile);
  };

  const stage = (
    <div className="gp-mines">
      <div className="gp-mines-stats" data-testid="mines-stats">
        <div>
          <span className="gp-label">{t('mines.current')}</span>
          <strong data-testid="mines-current">{active || ended ? `${multiplier2(current)}×` : '—'}</strong>
        </div>
        <div>
          <span className="gp-label">{t('mines.next')}</span>
          <strong data-testid="mines-next">{active && next > 0 ? `${multiplier2(next)}×` : '—'}</strong>
        </div>
        <div>
          <span className="gp-label">{t('mines.gems')}</span>
          <strong>{25 - shownMines}</strong>
        </div>
      </div>
      <div className={`gp-mines-grid${ended ? ' is-ended' : ''}`} role="group" aria-label={t('games.mines')} data-testid="mines-grid">
        {TILES.map((tile) => {
          const isGem = revealed.has(tile);
          const isMine = mines.has(tile);
          const state = isMine ? (tile === lastReveal ? 'boom' : 'mine') : isGem ? 'gem' : ended ? 'safe' : pendingTile === tile ? 'pending' : 'hidden';
          const label = `${t('mines.tile', { n: tile + 1 })}: ${t(state === 'gem' || state === 'safe' ? 'mines.tileGem' : state === 'mine' || state === 'boom' ? 'mines.tileMine' : 'mines.tileHidden')}`;
          return (
            <button
              key={tile}
              type="button"
              className={`gp-tile is-${state}${chosen.includes(tile) && (choosing || auto.running) ? ' is-chosen' : ''}`}
              onClick={() => (choosing ? toggleChosen(tile) : void reveal(tile))}
              disabled={choosing ? env.locked : !active || isGem || busy || env.locked || auto.running}
              aria-label={label}
              aria-pressed={choosing ? chosen.includes(tile) : undefined}
              data-testid={`tile-${tile}`}
              data-state={state}
              data-chosen={chosen.includes(tile) ? 'true' : undefined}
            >
              <span className="gp-tile-face" aria-hidden="true" />
            </button>
          );
        })}
      </div>
    </div>
  );
  const randomButton = (
    <button
      type="button"
      className="gp-btn gp-btn-secondary"
      onClick={randomTile}
      disabled={choosing ? env.locked || chosen.length >= 25 - mineCount : !active || busy || env.locked}
      data-testid="mines-random"
    >
      {choosing ? t('mines.randomChoose') : t('mines.random')}
    </button>
  );
  const controls = (
    <>
      {auto.tabs}
      <BetAmount disabled={busy || active || env.locked || auto.running} maxMultiplier={topMultiplier(mineCount)} capped />
      <Select
        id="mines-count"
        label={t('mines.mines')}
        options={COUNTS}
        value={mineCount}
        onChange={(m) => {
          setMineCount(m);
          setChosen((c) => c.slice(0, 25 - m));
        }}
        disabled={busy || active || env.locked || auto.running}
      />
      {auto.mode === 'auto' ? (
        <>
          <div className="gp-btn-row">
            {randomButton}
            <button
              type="button"
              className="gp-btn gp-btn-secondary"
              onClick={() => setChosen([])}
              disabled={auto.running || chosen.length === 0}
              data-testid="mines-clear-chosen"
            >
              {t('keno.clear')}
            </button>
          </div>
          <p className="gp-hint" data-testid="mines-chosen">
            {chosen.length ? t('mines.chosen', { count: chosen.length }) : t('mines.chooseTiles')}
          </p>
          {auto.panel}
        </>
      ) : active ? (
        <BetButton
          variant="cashout"
          label={cashoutAmount !== null ? t('mines.cashout', { amount: env.money(cashoutAmount) }) : t('mines.cashoutNow')}
          onClick={() => void cashout()}
          disabled={busy || env.locked || revealed.size === 0}
          busy={busy}
          testId="cashout-button"
        />
      ) : (
        <BetButton label={busy ? t('bet.placing') : t('mines.start')} onClick={() => void start()} disabled={!canStart} busy={busy} />
      )}
      {auto.mode === 'manual' && active && randomButton}
      <NoticeLine notice={notice} />
    </>
  );
  return <GameLayout game="mines" stage={stage} controls={controls} />;
}

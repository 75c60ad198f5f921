/**
 * Limbo (CONTRACT.md §10): a target multiplier 1.01..1,000,000 (2 decimals); win chance 99 / target.
 * The result counts up from 1.00× once the answer came and stops on the server's value.
 */
import { useEffect, useRef, useState } from 'react';
import { LosslessNumber } from 'lossless-json';
import { useGameEnv } from '../app/env';
import { fromInput, toInput } from '../lib/format';
import { BetAmount } from '../components/BetAmount';
import { t } from '../i18n';
import { api, newKey } from '../lib/api';
import { formatMultiplier, parseMinor, toDecimalText, type Minor } from '../lib/money';
import { BetButton, GameLayout, NoticeLine, reducedMotion, useAction, useCanBet } from './common';
import { History, type HistoryItem } from './History';
import { useAutobet } from './Autobet';

const MIN = 101n; // hundredths: 1.01×
const MAX = 100_000_000n; // 1,000,000×
const clamp = (v: bigint) => (v < MIN ? MIN : v > MAX ? MAX : v);

/** Counts from 1.00 to `to` (exponentially, like a rocket), then calls done. */
function countUp(to: number, onFrame: (v: number) => void, done: () => void): () => void {
  if (reducedMotion() || to <= 1) {
    onFrame(to);
    done();
    return () => undefined;
  }
  const duration = Math.min(1400, 350 + 260 * Math.log10(to));
  const start = performance.now();
  let raf = 0;
  const step = (now: number) => {
    const p = Math.min(1, (now - start) / duration);
    const eased = 1 - (1 - p) ** 3;
    onFrame(p >= 1 ? to : Math.floor(100 * Math.exp(Math.log(to) * eased)) / 100);
    if (p < 1) raf = requestAnimationFrame(step);
    else done();
  };
  raf = requestAnimationFrame(step);
  return () => cancelAnimationFrame(raf);
}

export function Limbo() {
  const env = useGameEnv();
  const { busy, run, notice, setNotice, mounted } = useAction();
  const [target, setTarget] = useState(200n);
  const [draft, setDraft] = useState<{ field: 'target' | 'chance'; text: string } | null>(null);
  const [shown, setShown] = useState<{ value: number; final: boolean; won: boolean } | null>(null);
  const [history, setHistory] = useState<HistoryItem[]>([]);
  const cancel = useRef<() => void>(() => undefined);
  useEffect(() => () => cancel.current(), []);

  // millionths of a percent, floored: 2 decimals down to 0.01 %, then as many as a 1,000,000× target needs (0.000099 %)
  const chance6 = 9_900_000_000n / target;
  const chanceText = chance6 >= 10_000n ? toDecimalText(chance6 / 10_000n, 2) : toDecimalText(chance6, 6).replace(/0+$/, '');
  const targetText = toDecimalText(target, 2);
  const canBet = useCanBet(busy, Number(targetText));

  const bet = (amount: Minor = env.stake!) =>
    run(async () => {
      const j = await api.post(
        '/api/bets',
        {
          sessionId: env.session.sessionId,
          gameType: 'limbo',
          amount: new LosslessNumber(toDecimalText(amount, env.config.decimals)),
          idempotencyKey: newKey(),
          params: { target: new LosslessNumber(targetText) },
          ...env.seedField(),
        },
        { idempotent: true },
      );
      const r = env.round(j);
      const result = Number(r.result.result);
      await new Promise<void>((resolve) => {
        cancel.current = countUp(result, (v) => setShown({ value: v, final: false, won: false }), resolve);
      });
      if (!mounted.current) return;
      setShown({ value: result, final: true, won: r.bet.won });
      env.showBalance(r.balance);
      setHistory((h) => [{ id: r.roundId, label: `${formatMultiplier(result)}×`, won: r.bet.won }, ...h]);
      setNotice(r.bet.won ? { kind: 'win', text: t('bet.win', { amount: env.money(r.bet.payout) }) } : { kind: 'loss', text: t('bet.loss') });
      return r;
    });
  const auto = useAutobet(bet, canBet);

  const commit = () => {
    if (!draft) return;
    if (draft.field === 'target') {
      const v = parseMinor(fromInput(draft.text), 2);
      if (v !== null) setTarget(clamp(v));
    } else {
      const c = parseMinor(fromInput(draft.text), 6);
      if (c !== null && c > 0n) setTarget(clamp(9_900_000_000n / c));
    }
    setDraft(null);
  };
  const disabled = busy || env.locked || auto.running;

  const stage = (
    <div className="gp-limbo">
      <History items={history} />
      <div className="gp-limbo-display">
        <output
          className={`gp-limbo-value${shown?.final ? (shown.won ? ' is-win' : ' is-loss') : ''}`}
          data-testid="limbo-result"
          data-final={shown?.final ? 'true' : 'false'}
          aria-live="polite"
        >
          {formatMultiplier(shown?.value ?? 1)}×
        </output>
      </div>
      <div className="gp-stat-row is-two">
        <label className="gp-stat-field">
          <span className="gp-label">{t('limbo.target')}</span>
          <span className="gp-stat-box">
            <input
              inputMode="decimal"
              value={draft?.field === 'target' ? draft.text : toInput(targetText)}
              disabled={disabled}
              onChange={(e) => setDraft({ field: 'target', text: e.target.value })}
              onBlur={commit}
              onKeyDown={(e) => e.key === 'Enter' && (e.target as HTMLInputElement).blur()}
              data-testid="limbo-target"
            />
            <span className="gp-suffix">×</span>
          </span>
        </label>
        <label className="gp-stat-field">
          <span className="gp-label">{t('limbo.winChance')}</span>
          <span className="gp-stat-box">
            <input
              inputMode="decimal"
              value={draft?.field === 'chance' ? draft.text : toInput(chanceText)}
              disabled={disabled}
              onChange={(e) => setDraft({ field: 'chance', text: e.target.value })}
              onBlur={commit}
              onKeyDown={(e) => e.key === 'Enter' && (e.target as HTMLInputElement).blur()}
              data-testid="limbo-chance"
            />
            <span className="gp-suffix">%</span>
          </span>
        </label>
      </div>
    </div>
  );
  const controls = (
    <>
      {auto.tabs}
      <BetAmount disabled={disabled} multiplier={Number(targetText)} maxMultiplier={Number(targetText)} />
      {auto.mode === 'manual' ? (
        <BetButton label={busy ? t('bet.placing') : t('bet.place')} onClick={() => void bet()} disabled={!canBet} busy={busy} />
      ) : (
        auto.panel
      )}
      <NoticeLine notice={notice} />
    </>
  );
  return <GameLayout game="limbo" stage={stage} controls={controls} />;
}

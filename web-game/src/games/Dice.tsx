/**
 * Dice (CONTRACT.md §10): target 2..98 with 2 decimals, over/under; win chance and multiplier kept
 * in step both ways (multiplier = floor(99 / winChance) to 4 decimals, integers throughout); the
 * roll is shown on the bar once the answer came.
 */
import { useState } from 'react';
import { LosslessNumber } from 'lossless-json';
import { useGameEnv } from '../app/env';
import { fromInput, localizeDecimal, toInput } from '../lib/format';
import { BetAmount } from '../components/BetAmount';
import { t } from '../i18n';
import { api, newKey } from '../lib/api';
import { parseMinor, toDecimalText, type Minor } from '../lib/money';
import { BetButton, GameLayout, NoticeLine, reducedMotion, sleep, useAction, useCanBet } from './common';
import { History, type HistoryItem } from './History';
import { useAutobet } from './Autobet';

const MIN = 200n; // hundredths
const MAX = 9800n;
const clamp = (v: bigint) => (v < MIN ? MIN : v > MAX ? MAX : v);
const hundredths = (v: bigint) => toDecimalText(v, 2);
/** multiplier × 10^4 of a win chance in hundredths of a percent */
const mult4Of = (winChance: bigint) => 99_000_000n / winChance;

function NumberField({
  label,
  value,
  suffix,
  onCommit,
  testId,
  disabled,
  decimals,
}: {
  label: string;
  value: string;
  suffix: string;
  onCommit(text: string): void;
  testId: string;
  disabled: boolean;
  decimals: number;
}) {
  const [draft, setDraft] = useState<string | null>(null);
  return (
    <label className="gp-stat-field">
      <span className="gp-label">{label}</span>
      <span className="gp-stat-box">
        <input
          inputMode="decimal"
          value={draft ?? value}
          disabled={disabled}
          onChange={(e) => setDraft(e.target.value)}
          onBlur={() => {
            if (draft !== null) onCommit(draft);
            setDraft(null);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') (e.target as HTMLInputElement).blur();
          }}
          data-testid={testId}
          data-decimals={decimals}
        />
        <span className="gp-suffix">{suffix}</span>
      </span>
    </label>
  );
}

export function Dice() {
  const env = useGameEnv();
  const { busy, run, notice, setNotice, mounted } = useAction();
  const [target, setTarget] = useState(5050n);
  const [direction, setDirection] = useState<'over' | 'under'>('over');
  const [roll, setRoll] = useState<{ value: number; won: boolean } | null>(null);
  const [history, setHistory] = useState<HistoryItem[]>([]);

  const winChance = direction === 'over' ? 10_000n - target : target;
  const mult4 = mult4Of(winChance);
  const multiplier = Number(toDecimalText(mult4, 4));
  const canBet = useCanBet(busy, multiplier);

  const setWinChance = (wc: bigint) => {
    const c = clamp(wc);
    setTarget(direction === 'over' ? 10_000n - c : c);
  };

  const bet = (amount: Minor = env.stake!) =>
    run(async () => {
      const j = await api.post(
        '/api/bets',
        {
          sessionId: env.session.sessionId,
          gameType: 'dice',
          amount: new LosslessNumber(toDecimalText(amount, env.config.decimals)),
          idempotencyKey: newKey(),
          params: { target: new LosslessNumber(hundredths(target)), direction },
          ...env.seedField(),
        },
        { idempotent: true },
      );
      const r = env.round(j);
      const value = Number(r.result.roll);
      setRoll({ value, won: r.bet.won });
      await sleep(reducedMotion() ? 0 : 450);
      if (!mounted.current) return;
      env.showBalance(r.balance);
      setHistory((h) => [{ id: r.roundId, label: localizeDecimal(value.toFixed(2)), won: r.bet.won }, ...h]);
      setNotice(
        r.bet.won
          ? { kind: 'win', text: t('bet.win', { amount: env.money(r.bet.payout) }) }
          : { kind: 'loss', text: `${t('dice.rolled', { roll: localizeDecimal(value.toFixed(2)) })} · ${t('bet.loss')}` },
      );
      return r;
    });
  const auto = useAutobet(bet, canBet);
  const off = busy || env.locked || auto.running;

  const pct = (v: number) => `${v}%`;
  const targetNum = Number(hundredths(target));
  const stage = (
    <div className="gp-dice">
      <History items={history} />
      <div className="gp-dice-board">
        <div className="gp-dice-rollrow" aria-hidden={roll === null}>
          {roll && (
            <div
              className={`gp-dice-roll ${roll.won ? 'is-win' : 'is-loss'}`}
              style={{ left: pct(roll.value) }}
              data-testid="dice-roll"
              data-roll={roll.value.toFixed(2)}
            >
              {localizeDecimal(roll.value.toFixed(2))}
            </div>
          )}
        </div>
        <div className="gp-dice-track">
          <div className={`gp-dice-fill ${direction}`} style={direction === 'over' ? { left: pct(targetNum), right: 0 } : { left: 0, width: pct(targetNum) }} />
          <input
            type="range"
            className="gp-dice-slider"
            min={2}
            max={98}
            step={0.01}
            value={targetNum}
            disabled={off}
            onChange={(e) => setTarget(clamp(parseMinor(e.target.value, 2) ?? target))}
            aria-label={t('dice.slider')}
            aria-valuetext={`${direction === 'over' ? t('dice.rollOver') : t('dice.rollUnder')} ${hundredths(target)}`}
            data-testid="dice-slider"
          />
        </div>
        <div className="gp-dice-scale" aria-hidden="true">
          {[0, 25, 50, 75, 100].map((n) => (
            <span key={n}>{n}</span>
          ))}
        </div>
      </div>
      <div className="gp-stat-row">
        <NumberField
          label={t('dice.multiplier')}
          value={toInput(toDecimalText(mult4, 4))}
          suffix="×"
          decimals={4}
          disabled={off}
          testId="dice-multiplier"
          onCommit={(text) => {
            const m4 = parseMinor(fromInput(text), 4);
            if (m4 !== null && m4 > 0n) setWinChance(99_000_000n / m4);
          }}
        />
        <div className="gp-stat-field">
          <span className="gp-label">{direction === 'over' ? t('dice.rollOver') : t('dice.rollUnder')}</span>
          <button
            type="button"
            className="gp-stat-box gp-dir-btn"
            onClick={() => {
              setDirection((d) => (d === 'over' ? 'under' : 'over'));
              setTarget((v) => 10_000n - v);
            }}
            disabled={off}
            aria-label={`${t('dice.switchDirection')}: ${direction === 'over' ? t('dice.rollOver') : t('dice.rollUnder')} ${hundredths(target)}`}
            data-testid="dice-direction"
            data-direction={direction}
          >
            <span data-testid="dice-target">{localizeDecimal(hundredths(target))}</span>
            <span className="gp-suffix" aria-hidden="true">
              ⇄
            </span>
          </button>
        </div>
        <NumberField
          label={t('dice.winChance')}
          value={toInput(hundredths(winChance))}
          suffix="%"
          decimals={2}
          disabled={off}
          testId="dice-chance"
          onCommit={(text) => {
            const wc = parseMinor(fromInput(text), 2);
            if (wc !== null) setWinChance(wc);
          }}
        />
      </div>
    </div>
  );

  const controls = (
    <>
      {auto.tabs}
      <BetAmount disabled={off} multiplier={multiplier} maxMultiplier={multiplier} />
      {auto.mode === 'manual' ? (
        <BetButton label={busy ? t('bet.placing') : t('bet.place')} onClick={() => void bet()} disabled={!canBet} busy={busy} />
      ) : (
        auto.panel
      )}
      <NoticeLine notice={notice} />
    </>
  );
  return <GameLayout game="dice" stage={stage} controls={controls} />;
}

/**
 * Keno (CONTRACT.md §10): a 40-number board, 1 to 10 picks, auto pick and clear, a risk; the ten
 * drawn numbers are revealed one by one from the answer, hits and misses marked; the payout table
 * of the current pick count below the board.
 */
import { useState } from 'react';
import { LosslessNumber } from 'lossless-json';
import { useGameEnv } from '../app/env';
import { BetAmount } from '../components/BetAmount';
import { t } from '../i18n';
import { api, newKey } from '../lib/api';
import { formatMultiplier, shortMultiplier, toDecimalText, type Minor } from '../lib/money';
import { useAutobet } from './Autobet';
import { BetButton, GameLayout, NoticeLine, reducedMotion, Select, sleep, useAction, useCanBet } from './common';
import { KENO_RISKS, kenoRow, type KenoRisk } from './paytables';

const NUMBERS = Array.from({ length: 40 }, (_, i) => i + 1);

function randomPicks(count: number): number[] {
  const pool = [...NUMBERS];
  const out: number[] = [];
  const rnd = new Uint32Array(count);
  crypto.getRandomValues(rnd);
  for (let i = 0; i < count; i++) out.push(pool.splice(rnd[i]! % pool.length, 1)[0]!);
  return out.sort((a, b) => a - b);
}

export function Keno() {
  const env = useGameEnv();
  const { busy, run, notice, setNotice, mounted } = useAction();
  const [picks, setPicks] = useState<number[]>([]);
  const [risk, setRisk] = useState<KenoRisk>('classic');
  const [drawn, setDrawn] = useState<number[]>([]);
  const [hitsShown, setHitsShown] = useState<number | null>(null);
  const topMultiplier = picks.length > 0 ? Math.max(...kenoRow(risk, picks.length)) : null;
  const canBet = useCanBet(busy, topMultiplier) && picks.length > 0;

  const toggle = (n: number) => {
    if (disabled) return;
    setDrawn([]);
    setHitsShown(null);
    setPicks((p) => (p.includes(n) ? p.filter((x) => x !== n) : p.length >= 10 ? p : [...p, n].sort((a, b) => a - b)));
  };

  const bet = (amount: Minor = env.stake!) =>
    run(async () => {
      setDrawn([]);
      setHitsShown(null);
      const j = await api.post(
        '/api/bets',
        {
          sessionId: env.session.sessionId,
          gameType: 'keno',
          amount: new LosslessNumber(toDecimalText(amount, env.config.decimals)),
          idempotencyKey: newKey(),
          params: { picks, risk },
          ...env.seedField(),
        },
        { idempotent: true },
      );
      const r = env.round(j);
      const all = (r.result.drawn as number[]) ?? [];
      for (let i = 1; i <= all.length; i++) {
        if (!mounted.current) return;
        setDrawn(all.slice(0, i));
        await sleep(reducedMotion() ? 0 : 110);
      }
      if (!mounted.current) return;
      const hits = ((r.result.hits as number[]) ?? []).length;
      setHitsShown(hits);
      env.showBalance(r.balance);
      setNotice(
        r.bet.payout > 0n
          ? {
              kind: r.bet.won ? 'win' : 'info',
              text: `${t('keno.hits', { count: hits })} · ${formatMultiplier(r.bet.multiplier)}× · ${env.money(r.bet.payout)}`,
            }
          : { kind: 'loss', text: `${t('keno.hits', { count: hits })} · ${t('bet.loss')}` },
      );
      return r;
    });
  const auto = useAutobet(bet, canBet);
  const disabled = busy || env.locked || auto.running;

  const table = picks.length > 0 ? kenoRow(risk, picks.length) : [];
  const drawnSet = new Set(drawn);

  const stage = (
    <div className="gp-keno">
      <div className="gp-keno-board" role="group" aria-label={t('keno.board')} data-testid="keno-board">
        {NUMBERS.map((n) => {
          const picked = picks.includes(n);
          const isDrawn = drawnSet.has(n);
          const state = picked && isDrawn ? 'hit' : isDrawn ? 'miss' : picked ? 'picked' : 'idle';
          const label = `${t('keno.pick', { n })}${picked ? `, ${t('keno.picked')}` : ''}${state === 'hit' ? `, ${t('keno.hit')}` : state === 'miss' ? `, ${t('keno.miss')}` : ''}`;
          return (
            <button
              key={n}
              type="button"
              className={`gp-keno-tile is-${state}`}
              aria-pressed={picked}
              aria-label={label}
              onClick={() => toggle(n)}
              disabled={disabled && !picked}
              data-testid={`keno-${n}`}
              data-state={state}
            >
              {n}
            </button>
          );
        })}
      </div>
      <div className="gp-keno-table" data-testid="keno-table" aria-label={picks.length ? t('keno.payoutTable', { count: picks.length }) : t('keno.pickSome')}>
        {table.length === 0 ? (
          <p className="gp-muted gp-keno-empty">{t('keno.pickSome')}</p>
        ) : (
          table.map((m, hits) => (
            <div key={hits} className={`gp-keno-pay${hitsShown === hits ? ' is-hit' : ''}`}>
              <span className="gp-keno-mult">{shortMultiplier(m)}×</span>
              <span className="gp-keno-hits">{t('keno.hits', { count: hits })}</span>
            </div>
          ))
        )}
      </div>
    </div>
  );
  const controls = (
    <>
      {auto.tabs}
      <BetAmount disabled={disabled} maxMultiplier={topMultiplier} />
      <Select id="keno-risk" label={t('keno.risk')} options={KENO_RISKS} value={risk} onChange={setRisk} disabled={disabled} render={(r) => t(`risk.${r}`)} />
      <div className="gp-btn-row">
        <button
          type="button"
          className="gp-btn gp-btn-secondary"
          onClick={() => {
            setDrawn([]);
            setHitsShown(null);
            setPicks(randomPicks(10));
          }}
          disabled={disabled}
          data-testid="keno-auto"
        >
          {t('keno.autoPick')}
        </button>
        <button
          type="button"
          className="gp-btn gp-btn-secondary"
          onClick={() => {
            setDrawn([]);
            setHitsShown(null);
            setPicks([]);
          }}
          disabled={disabled || picks.length === 0}
          data-testid="keno-clear"
        >
          {t('keno.clear')}
        </button>
      </div>
      <p className="gp-hint" data-testid="keno-count">
        {picks.length ? t('keno.picks', { count: picks.length }) : t('keno.pickSome')}
      </p>
      {auto.mode === 'manual' ? (
        <BetButton label={busy ? t('bet.placing') : t('bet.place')} onClick={() => void bet()} disabled={!canBet} busy={busy} />
      ) : (
        auto.panel
      )}
      <NoticeLine notice={notice} />
    </>
  );
  return <GameLayout game="keno" stage={stage} controls={controls} />;
}

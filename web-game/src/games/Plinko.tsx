/**
 * Plinko (CONTRACT.md §10): rows 8..16 and a risk; one ball per bet whose bounces follow the
 * result's left/right moves (`path`) and land in the result's bin. Several balls may fall at once;
 * each one's balance shows when it lands (newest bet wins).
 */
import { useEffect, useRef, useState } from 'react';
import { LosslessNumber } from 'lossless-json';
import { useGameEnv } from '../app/env';
import { BetAmount } from '../components/BetAmount';
import { t } from '../i18n';
import { api, newKey } from '../lib/api';
import { formatMultiplier, toDecimalText, type Minor } from '../lib/money';
import type { RoundAnswer } from '../app/types';
import { useAutobet } from './Autobet';
import { BetButton, describeError, GameLayout, NoticeLine, reducedMotion, Segmented, Select, sleep, useCanBet, type Notice } from './common';
import { History, type HistoryItem } from './History';
import { binLabel, binTextFit, PLINKO_RISKS, PLINKO_ROWS, plinkoRow, type PlinkoRisk } from './paytables';

const V = 0.86; // vertical spacing of peg rows (horizontal spacing is 1)
const MAX_BALLS = 10;

interface BallSpec {
  id: number;
  seq: number;
  path: number[];
  onLand(): void;
}

function Ball({ spec, rows }: { spec: BallSpec; rows: number }) {
  const ref = useRef<SVGCircleElement>(null);
  const land = useRef(spec.onLand);
  useEffect(() => {
    const el = ref.current!;
    // Way points: above the first peg, then one contact per row, then the bin.
    const xs = [0];
    for (const move of spec.path) xs.push(xs[xs.length - 1]! + (move ? 0.5 : -0.5));
    const ys = xs.map((_, i) => i * V - 0.32);
    ys[ys.length - 1] = rows * V + 0.25;
    const stepMs = reducedMotion() ? 1 : Math.max(70, 1500 / rows);
    const start = performance.now();
    let raf = 0;
    const frame = (now: number) => {
      // a frame time before the start (rAF stamps the frame's beginning) is the start: never a negative step (cx NaN)
      const e = Math.max(0, (now - start) / stepMs);
      const i = Math.min(Math.floor(e), xs.length - 1);
      if (i >= xs.length - 1) {
        el.setAttribute('cx', String(xs[xs.length - 1]));
        el.setAttribute('cy', String(ys[ys.length - 1]));
        land.current();
        return;
      }
      const p = e - i;
      const x = xs[i]! + (xs[i + 1]! - xs[i]!) * p;
      const y = ys[i]! + (ys[i + 1]! - ys[i]!) * p * p - 0.28 * Math.sin(Math.PI * p);
      el.setAttribute('cx', x.toFixed(3));
      el.setAttribute('cy', y.toFixed(3));
      raf = requestAnimationFrame(frame);
    };
    el.setAttribute('cx', '0');
    el.setAttribute('cy', String(-0.9));
    raf = requestAnimationFrame(frame);
    return () => cancelAnimationFrame(raf);
  }, [spec.path, rows]);
  return <circle ref={ref} r={0.24} className="gp-plinko-ball" />;
}

const binTone = (m: number, max: number) => {
  const ratio = Math.log(Math.max(m, 0.1) / 0.1) / Math.log(max / 0.1);
  return ratio > 0.8 ? 'hot' : ratio > 0.55 ? 'warm' : ratio > 0.3 ? 'mild' : 'cool';
};

export function Plinko() {
  const env = useGameEnv();
  const [rows, setRows] = useState(16);
  const [risk, setRisk] = useState<PlinkoRisk>('low');
  const [balls, setBalls] = useState<BallSpec[]>([]);
  const [pending, setPending] = useState(0);
  const [notice, setNotice] = useState<Notice>(null);
  const [flash, setFlash] = useState<{ bin: number; key: number } | null>(null);
  const [history, setHistory] = useState<HistoryItem[]>([]);
  const seq = useRef(0);
  const shownSeq = useRef(0);
  const mounted = useRef(true);
  useEffect(() => () => void (mounted.current = false), []);

  const table = plinkoRow(rows, risk);
  const max = Math.max(...table);
  const active = pending + balls.length;
  const canBet = useCanBet(false, max) && active < MAX_BALLS;
  const activeRef = useRef(active);
  activeRef.current = active;
  const canAuto = useCanBet(false, max);

  const drop = async (amount: Minor = env.stake!): Promise<RoundAnswer | undefined> => {
    while (activeRef.current >= MAX_BALLS && mounted.current) await sleep(100);
    const mySeq = ++seq.current;
    setPending((n) => n + 1);
    setNotice(null);
    try {
      const j = await env.track(() =>
        api.post(
          '/api/bets',
          {
            sessionId: env.session.sessionId,
            gameType: 'plinko',
            amount: new LosslessNumber(toDecimalText(amount, env.config.decimals)),
            idempotencyKey: newKey(),
            params: { rows, risk },
            ...env.seedField(),
          },
          { idempotent: true },
        ),
      );
      const r = env.round(j);
      if (!mounted.current) return r;
      const path = (r.result.path as number[]) ?? [];
      const bin = Number(r.result.bin);
      const spec: BallSpec = {
        id: mySeq,
        seq: mySeq,
        path,
        onLand: () => {
          if (!mounted.current) return;
          setBalls((b) => b.filter((x) => x.id !== mySeq));
          setFlash({ bin, key: mySeq });
          if (mySeq > shownSeq.current) {
            shownSeq.current = mySeq;
            env.showBalance(r.balance);
          }
          setHistory((h) => [{ id: r.roundId, label: `${formatMultiplier(r.bet.multiplier)}×`, won: r.bet.won }, ...h]);
          setNotice({
            kind: r.bet.won ? 'win' : 'loss',
            text: `${t('plinko.landed', { multiplier: formatMultiplier(r.bet.multiplier) })} · ${env.money(r.bet.payout)}`,
          });
        },
      };
      setBalls((b) => [...b, spec]);
      return r;
    } catch (err) {
      if (mounted.current) setNotice({ kind: 'error', text: describeError(err) });
      return undefined;
    } finally {
      if (mounted.current) setPending((n) => n - 1);
    }
  };

  const auto = useAutobet(drop, canAuto);
  const settingsOff = active > 0 || env.locked || auto.running;

  const half = (rows + 2) / 2;
  const stage = (
    <div className="gp-plinko">
      <History items={history} />
      <svg
        className="gp-plinko-board"
        viewBox={`${-half + 0.35} -1.1 ${rows + 1.3} ${rows * V + 2}`}
        role="img"
        aria-label={t('plinko.board')}
        data-testid="plinko-board"
        data-balls={balls.length}
      >
        {Array.from({ length: rows }, (_, i) =>
          Array.from({ length: i + 3 }, (_, j) => <circle key={`${i}-${j}`} cx={j - (i + 2) / 2} cy={i * V} r={0.09} className="gp-peg" />),
        )}
        {table.map((m, k) => {
          const x = k - rows / 2;
          const isFlash = flash?.bin === k;
          return (
            <g key={`${k}-${isFlash ? flash.key : 0}`} className={`gp-bin tone-${binTone(m, max)}${isFlash ? ' is-hit' : ''}`} data-testid={`plinko-bin-${k}`}>
              <rect x={x - 0.47} y={rows * V + 0.05} width={0.94} height={0.72} rx={0.12} />
              <text x={x} y={rows * V + 0.55} textAnchor="middle" {...binTextFit(binLabel(m))}>
                {binLabel(m)}
              </text>
            </g>
          );
        })}
        {balls.map((b) => (
          <Ball key={b.id} spec={b} rows={rows} />
        ))}
      </svg>
    </div>
  );
  const controls = (
    <>
      {auto.tabs}
      <BetAmount disabled={env.locked || auto.running} maxMultiplier={max} />
      <Segmented
        name="plinko-risk"
        label={t('plinko.risk')}
        options={PLINKO_RISKS}
        value={risk}
        onChange={setRisk}
        disabled={settingsOff}
        render={(r) => t(`risk.${r}`)}
      />
      <Select
        id="plinko-rows"
        label={t('plinko.rows')}
        options={PLINKO_ROWS}
        value={rows as (typeof PLINKO_ROWS)[number]}
        onChange={setRows}
        disabled={settingsOff}
      />
      {auto.mode === 'manual' ? <BetButton label={t('plinko.drop')} onClick={() => void drop()} disabled={!canBet} busy={pending > 0} /> : auto.panel}
      <NoticeLine notice={notice} />
    </>
  );
  return <GameLayout game="plinko" stage={stage} controls={controls} />;
}

/**
 * A round drawn as the player's replay draws it (issue 29: the round page showed raw JSON, all 52
 * cards of a Blackjack shoe): dice bar and roll, limbo result against the target, the plinko path
 * into its bin, keno picks and draw, the Mines grid, Blackjack's dealer and hands. Only what the
 * result holds is drawn; a round still in play shows what the player sees (no mines, no hole card).
 */
import type { ReactNode } from 'react';

type Json = Record<string, unknown>;
const num = (v: unknown) => Number(v ?? 0);
const list = (v: unknown): number[] => (Array.isArray(v) ? v.map(Number) : []);
const SUIT: Record<string, string> = { S: '♠', H: '♥', D: '♦', C: '♣' };

function Card({ code }: { code: string | null }) {
  if (!code) return <span className="rb-card is-back" aria-label="hidden card" />;
  const rank = code.slice(0, -1);
  const suit = code.slice(-1);
  return (
    <span className={`rb-card${suit === 'H' || suit === 'D' ? ' is-red' : ''}`} aria-label={code}>
      {rank}
      {SUIT[suit] ?? suit}
    </span>
  );
}

function Dice({ res, params }: { res: Json; params: Json }) {
  const target = num(res.target ?? params.target);
  const over = (res.direction ?? params.direction) !== 'under';
  const roll = num(res.roll);
  const won = over ? roll > target : roll < target;
  return (
    <div className="rb-dice" data-testid="rb-dice">
      <div className="rb-dice-track">
        <span className="rb-dice-win" style={over ? { left: `${target}%`, right: 0 } : { left: 0, width: `${target}%` }} />
        <span className={`rb-dice-roll ${won ? 'is-win' : 'is-loss'}`} style={{ left: `${roll}%` }}>{roll.toFixed(2)}</span>
      </div>
      <p className="muted small">
        Roll {over ? 'over' : 'under'} {target.toFixed(2)} · rolled {roll.toFixed(2)}
      </p>
    </div>
  );
}

function Plinko({ res, params }: { res: Json; params: Json }) {
  const rows = num(res.rows ?? params.rows ?? 16);
  const path = list(res.path);
  const bin = num(res.bin);
  const V = 0.86;
  const pts = ['0,-0.8'];
  let x = 0;
  path.forEach((d, i) => {
    x += d === 1 ? 0.5 : -0.5;
    pts.push(`${x},${i * V + V / 2}`);
  });
  const half = (rows + 2) / 2;
  return (
    <svg className="rb-plinko" viewBox={`${-half + 0.35} -1.1 ${rows + 1.3} ${rows * V + 2}`} role="img" aria-label={`bin ${bin} of ${rows}`} data-testid="rb-plinko">
      {Array.from({ length: rows }, (_, i) => Array.from({ length: i + 3 }, (_, j) => <circle key={`${i}-${j}`} cx={j - (i + 2) / 2} cy={i * V} r={0.09} className="rb-peg" />))}
      {Array.from({ length: rows + 1 }, (_, k) => <rect key={k} x={k - rows / 2 - 0.47} y={rows * V + 0.05} width={0.94} height={0.72} rx={0.12} className={k === bin ? 'rb-bin is-hit' : 'rb-bin'} />)}
      <polyline points={pts.join(' ')} className="rb-path" />
      <circle cx={x} cy={rows * V + 0.4} r={0.28} className="rb-ball" />
    </svg>
  );
}

function Keno({ res, params }: { res: Json; params: Json }) {
  const picks = new Set(list(res.picks ?? params.picks));
  const drawn = new Set(list(res.drawn));
  return (
    <div className="rb-grid rb-keno" data-testid="rb-keno">
      {Array.from({ length: 40 }, (_, i) => {
        const n = i + 1;
        const state = picks.has(n) && drawn.has(n) ? 'hit' : drawn.has(n) ? 'miss' : picks.has(n) ? 'picked' : 'idle';
        return <span key={n} className={`rb-cell is-${state}`}>{n}</span>;
      })}
    </div>
  );
}

function Mines({ res }: { res: Json }) {
  const revealed = list(res.revealed);
  const mines = new Set(list(res.mines));
  const last = revealed.at(-1);
  return (
    <div className="rb-grid rb-mines" data-testid="rb-mines">
      {Array.from({ length: 25 }, (_, tile) => {
        const state = mines.has(tile) ? (tile === last ? 'boom' : 'mine') : revealed.includes(tile) ? 'gem' : mines.size > 0 ? 'safe' : 'hidden';
        return <span key={tile} className={`rb-cell is-${state}`} title={`tile ${tile + 1}: ${state}`}>{state === 'gem' || state === 'safe' ? '◆' : state === 'mine' || state === 'boom' ? '✹' : ''}</span>;
      })}
    </div>
  );
}

interface Hand {
  cards: string[];
  value: number;
  doubled?: boolean;
  outcome?: string;
}

function Blackjack({ res, active }: { res: Json; active: boolean }) {
  const dealer = (res.dealer ?? { cards: [], value: 0 }) as { cards: string[]; value: number };
  const hands = (res.hands ?? []) as Hand[];
  const natural = (cards: string[], value: number) => (value === 21 && cards.length === 2 ? 'Blackjack' : String(value));
  return (
    <div className="rb-bj" data-testid="rb-blackjack">
      <div className="rb-bj-row">
        <span className="rb-bj-label">Dealer · {natural(dealer.cards, dealer.value)}</span>
        <span className="rb-cards">{[...dealer.cards, ...(active ? [null] : [])].map((c, i) => <Card key={i} code={c} />)}</span>
      </div>
      {hands.map((h, i) => (
        <div key={i} className="rb-bj-row" data-testid={`rb-hand-${i}`}>
          <span className="rb-bj-label">
            {hands.length > 1 ? `Hand ${i + 1}` : 'Player'} · {hands.length > 1 ? h.value : natural(h.cards, h.value)}
            {h.doubled ? ' · doubled' : ''}
            {h.outcome ? ` · ${h.outcome}` : ''}
          </span>
          <span className="rb-cards">{h.cards.map((c, k) => <Card key={k} code={c} />)}</span>
        </div>
      ))}
    </div>
  );
}

export function AdminRoundBoard({ gameType, result, params, active }: { gameType: string; result: unknown; params: unknown; active: boolean }): ReactNode {
  const res = (result ?? {}) as Json;
  const p = (params ?? {}) as Json;
  switch (gameType) {
    case 'dice':
      return <Dice res={res} params={p} />;
    case 'limbo':
      return (
        <div className="rb-limbo" data-testid="rb-limbo">
          <strong className={num(res.result) >= num(res.target ?? p.target) ? 'win' : 'loss'}>{num(res.result).toFixed(2)}×</strong>
          <span className="muted small">target {num(res.target ?? p.target).toFixed(2)}×</span>
        </div>
      );
    case 'plinko':
      return <Plinko res={res} params={p} />;
    case 'keno':
      return <Keno res={res} params={p} />;
    case 'mines':
      return <Mines res={res} />;
    case 'blackjack':
      return <Blackjack res={res} active={active} />;
    default:
      return null;
  }
}

/** The settings a player chose, in words (no JSON): target 50.50 over, 16 rows · low risk, 3 mines… */
export function paramsText(gameType: string, params: unknown, result: unknown): string {
  const p = (params ?? {}) as Json;
  const r = (result ?? {}) as Json;
  switch (gameType) {
    case 'dice':
      return `Roll ${(r.direction ?? p.direction) === 'under' ? 'under' : 'over'} ${num(r.target ?? p.target).toFixed(2)}`;
    case 'limbo':
      return `Target ${num(r.target ?? p.target).toFixed(2)}×`;
    case 'plinko':
      return `${num(r.rows ?? p.rows ?? 16)} rows · ${String(r.risk ?? p.risk ?? 'low')} risk`;
    case 'keno':
      return `${list(r.picks ?? p.picks).length} picks (${list(r.picks ?? p.picks).join(', ')}) · ${String(r.risk ?? p.risk ?? 'classic')} risk`;
    case 'mines':
      return `${num(r.mineCount ?? p.mineCount ?? 3)} mines`;
    case 'blackjack':
      return 'Standard rules: 3:2 blackjack, dealer stands on soft 17';
    default:
      return '';
  }
}

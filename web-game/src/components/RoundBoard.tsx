/**
 * A stored round drawn as the player saw it, read-only (My bets detail and the replay): the dice
 * bar and roll, limbo's result, plinko's ball path into its bin, keno's picks and draw, the Mines
 * grid, Blackjack's table. An open round shows only what the player may see (the server sends no
 * more).
 */
import type { StoredRound } from '../app/rounds';
import { t } from '../i18n';
import { localizeDecimal } from '../lib/format';
import { formatMultiplier } from '../lib/money';
import { PlayingCard } from './PlayingCard';
import { binLabel, binTextFit, plinkoRow, PLINKO_RISKS, type PlinkoRisk } from '../games/paytables';

const num = (v: unknown) => Number(v ?? 0);
const list = (v: unknown): number[] => (Array.isArray(v) ? v.map(Number) : []);
const dec2 = (v: unknown) => localizeDecimal(num(v).toFixed(2));

function DiceBoard({ r }: { r: StoredRound }) {
  const res = r.result ?? {};
  const target = num(res.target ?? r.params.target);
  const over = (res.direction ?? r.params.direction) !== 'under';
  const roll = num(res.roll);
  return (
    <div className="gp-rb-dice">
      <div className="gp-rb-dice-track">
        <div className="gp-rb-dice-win" style={over ? { left: `${target}%`, right: 0 } : { left: 0, width: `${target}%` }} />
        <div className={`gp-rb-dice-roll ${r.won ? 'is-win' : 'is-loss'}`} style={{ left: `${roll}%` }} data-testid="rb-roll">{dec2(roll)}</div>
      </div>
      <p className="gp-muted">{over ? t('dice.rollOver') : t('dice.rollUnder')} {dec2(target)} · {t('dice.winChance')} {dec2(res.winChance)}%</p>
    </div>
  );
}

function LimboBoard({ r }: { r: StoredRound }) {
  const res = r.result ?? {};
  return (
    <div className="gp-rb-limbo">
      <strong className={r.won ? 'is-win' : 'is-loss'} data-testid="rb-limbo">{formatMultiplier(num(res.result))}×</strong>
      <span className="gp-muted">{t('replay.target', { target: `${formatMultiplier(num(res.target ?? r.params.target))}×` })}</span>
    </div>
  );
}

function PlinkoBoard({ r }: { r: StoredRound }) {
  const res = r.result ?? {};
  const rows = num(res.rows ?? r.params.rows ?? 16);
  const path = list(res.path);
  const bin = num(res.bin);
  const risk = String(res.risk ?? r.params.risk ?? 'low');
  // the multipliers of the round's table (issue 29: the replay drew bins without them)
  const table = PLINKO_RISKS.includes(risk as PlinkoRisk) ? plinkoRow(rows, risk as PlinkoRisk) : [];
  const V = 0.86;
  // the ball starts above the top peg row and moves half a column per row
  const points: string[] = ['0,-0.8'];
  let x = 0;
  path.forEach((dir, i) => {
    x += dir === 1 ? 0.5 : -0.5;
    points.push(`${x},${i * V + V / 2}`);
  });
  const half = (rows + 2) / 2;
  return (
    <svg className="gp-rb-plinko" viewBox={`${-half + 0.35} -1.1 ${rows + 1.3} ${rows * V + 2}`} role="img" aria-label={t('plinko.landed', { multiplier: formatMultiplier(r.multiplier) })} data-testid="rb-plinko" data-bin={bin}>
      {Array.from({ length: rows }, (_, i) => Array.from({ length: i + 3 }, (_, j) => <circle key={`${i}-${j}`} cx={j - (i + 2) / 2} cy={i * V} r={0.09} className="gp-peg" />))}
      {Array.from({ length: rows + 1 }, (_, k) => (
        <g key={k} className="gp-bin">
          <rect x={k - rows / 2 - 0.47} y={rows * V + 0.05} width={0.94} height={0.72} rx={0.12} className={k === bin ? 'gp-rb-bin is-hit' : 'gp-rb-bin'} />
          {table[k] !== undefined && <text x={k - rows / 2} y={rows * V + 0.55} textAnchor="middle" {...binTextFit(binLabel(table[k]))} data-testid={`rb-bin-${k}`}>{binLabel(table[k])}</text>}
        </g>
      ))}
      <polyline points={points.join(' ')} className="gp-rb-path" />
      <circle cx={x} cy={rows * V - 0.3} r={0.24} className="gp-plinko-ball" />
    </svg>
  );
}

function KenoBoard({ r }: { r: StoredRound }) {
  const res = r.result ?? {};
  const picks = new Set(list(res.picks ?? r.params.picks));
  const drawn = new Set(list(res.drawn));
  return (
    <div className="gp-rb-keno" data-testid="rb-keno">
      {Array.from({ length: 40 }, (_, i) => {
        const n = i + 1;
        const state = picks.has(n) && drawn.has(n) ? 'hit' : drawn.has(n) ? 'miss' : picks.has(n) ? 'picked' : 'idle';
        return <span key={n} className={`gp-keno-tile is-${state}`} data-state={state}>{n}</span>;
      })}
    </div>
  );
}

function MinesBoard({ r }: { r: StoredRound }) {
  const res = r.result ?? {};
  const revealed = list(res.revealed);
  const mines = new Set(list(res.mines));
  const last = revealed.at(-1);
  const closed = mines.size > 0;
  return (
    <div className="gp-rb-mines" data-testid="rb-mines">
      {Array.from({ length: 25 }, (_, tile) => {
        const state = mines.has(tile) ? (tile === last ? 'boom' : 'mine') : revealed.includes(tile) ? 'gem' : closed ? 'safe' : 'hidden';
        return (
          <span key={tile} className={`gp-tile is-${state}`} data-state={state} role="img" aria-label={`${t('mines.tile', { n: tile + 1 })}: ${t(state === 'gem' || state === 'safe' ? 'mines.tileGem' : state === 'hidden' ? 'mines.tileHidden' : 'mines.tileMine')}`}>
            <span className="gp-tile-face" aria-hidden="true" />
          </span>
        );
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

function BlackjackBoard({ r }: { r: StoredRound }) {
  const res = (r.result ?? {}) as { dealer?: { cards: string[]; value: number }; hands?: Hand[] };
  const dealer = res.dealer ?? { cards: [], value: 0 };
  const hands = res.hands ?? [];
  const active = r.roundStatus === 'active';
  return (
    <div className="gp-bj gp-rb-bj" data-testid="rb-blackjack">
      <div className="gp-bj-row">
        <div className="gp-bj-label">{t('blackjack.dealer')} <span className="gp-hand-value">{dealer.value === 21 && dealer.cards.length === 2 ? t('blackjack.outcome.blackjack') : dealer.value}</span></div>
        <div className="gp-cards">{[...dealer.cards, ...(active ? [null] : [])].map((c, i) => <PlayingCard key={i} code={c} testId={`rb-dealer-${i}`} />)}</div>
      </div>
      <div className={`gp-bj-row gp-bj-hands${hands.length > 1 ? ' is-split' : ''}`}>
        {hands.map((h, i) => (
          <div key={i} className={`gp-bj-hand${h.outcome ? ` is-${h.outcome}` : ''}`} data-testid={`rb-hand-${i}`}>
            <div className="gp-cards">{h.cards.map((c, k) => <PlayingCard key={k} code={c} />)}</div>
            <div className="gp-bj-label">
              {hands.length > 1 ? t('blackjack.hand', { n: i + 1 }) : t('blackjack.you')} <span className="gp-hand-value">{h.value}</span>
              {h.doubled && <span className="gp-tag">2×</span>}
              {h.outcome && <span className={`gp-tag is-${h.outcome}`}>{t(`blackjack.outcome.${h.outcome}`)}</span>}
            </div>
          </div>
        ))}
      </div>
    </div>
  );
}

export function RoundBoard({ round }: { round: StoredRound }) {
  if (!round.result) return null;
  switch (round.gameType) {
    case 'dice':
      return <DiceBoard r={round} />;
    case 'limbo':
      return <LimboBoard r={round} />;
    case 'plinko':
      return <PlinkoBoard r={round} />;
    case 'keno':
      return <KenoBoard r={round} />;
    case 'mines':
      return <MinesBoard r={round} />;
    case 'blackjack':
      return <BlackjackBoard r={round} />;
  }
}

/**
 * A stored round drawn as the player saw it, read-only (My bets detail and the replay): the dice
 * bar and roll, limbo's result, plinko's ball path into its bin, keno's picks and draw, the Mines
 * grid, Blackjack's table. An open round shows only what the player may see (the server sends no
 * more). What each board shows is worked out in round-board-model.ts, shared with the console.
 */
import type { StoredRound } from '../app/rounds';
import { t } from '../i18n';
import { localizeDecimal } from '../lib/format';
import { formatMultiplier } from '../lib/money';
import { PlayingCard } from './PlayingCard';
import { binLabel, binTextFit, plinkoRow, PLINKO_RISKS, type PlinkoRisk } from '../games/paytables';
import { blackjackBoard, diceBoard, isNatural, kenoCells, limboBoard, minesCells, num, plinkoBoard } from './round-board-model';

const dec2 = (v: unknown) => localizeDecimal(num(v).toFixed(2));

function DiceBoard({ r }: { r: StoredRound }) {
  const res = r.result ?? {};
  const { target, over, roll, winSpan } = diceBoard(res, r.params);
  return (
    <div className="gp-rb-dice">
      <div className="gp-rb-dice-track">
        <div className="gp-rb-dice-win" style={winSpan} />
        <div className={`gp-rb-dice-roll ${r.won ? 'is-win' : 'is-loss'}`} style={{ left: `${roll}%` }} data-testid="rb-roll">
          {dec2(roll)}
        </div>
      </div>
      <p className="gp-muted">
        {over ? t('dice.rollOver') : t('dice.rollUnder')} {dec2(target)} · {t('dice.winChance')} {dec2(res.winChance)}%
      </p>
    </div>
  );
}

function LimboBoard({ r }: { r: StoredRound }) {
  const { result, target } = limboBoard(r.result ?? {}, r.params);
  return (
    <div className="gp-rb-limbo">
      <strong className={r.won ? 'is-win' : 'is-loss'} data-testid="rb-limbo">
        {formatMultiplier(result)}×
      </strong>
      <span className="gp-muted">{t('replay.target', { target: `${formatMultiplier(target)}×` })}</span>
    </div>
  );
}

function PlinkoBoard({ r }: { r: StoredRound }) {
  const res = r.result ?? {};
  const board = plinkoBoard(res, r.params);
  const risk = String(res.risk ?? r.params.risk ?? 'low');
  // the multipliers of the round's table (issue 29: the replay drew bins without them)
  const table = PLINKO_RISKS.includes(risk as PlinkoRisk) ? plinkoRow(board.rows, risk as PlinkoRisk) : [];
  return (
    <svg
      className="gp-rb-plinko"
      viewBox={board.viewBox}
      role="img"
      aria-label={t('plinko.landed', { multiplier: formatMultiplier(r.multiplier) })}
      data-testid="rb-plinko"
      data-bin={board.bin}
    >
      {board.pegs.map((p) => (
        <circle key={p.key} cx={p.cx} cy={p.cy} r={0.09} className="gp-peg" />
      ))}
      {board.bins.map((b) => {
        const m = table[b.k];
        return (
          <g key={b.k} className="gp-bin">
            <rect x={b.x} y={b.y} width={b.width} height={b.height} rx={0.12} className={b.hit ? 'gp-rb-bin is-hit' : 'gp-rb-bin'} />
            {m !== undefined && (
              <text x={b.centerX} y={board.floorY + 0.55} textAnchor="middle" {...binTextFit(binLabel(m))} data-testid={`rb-bin-${b.k}`}>
                {binLabel(m)}
              </text>
            )}
          </g>
        );
      })}
      <polyline points={board.path} className="gp-rb-path" />
      <circle cx={board.ballX} cy={board.floorY - 0.3} r={0.24} className="gp-plinko-ball" />
    </svg>
  );
}

function KenoBoard({ r }: { r: StoredRound }) {
  return (
    <div className="gp-rb-keno" data-testid="rb-keno">
      {kenoCells(r.result ?? {}, r.params).map(({ n, state }) => (
        <span key={n} className={`gp-keno-tile is-${state}`} data-state={state}>
          {n}
        </span>
      ))}
    </div>
  );
}

function MinesBoard({ r }: { r: StoredRound }) {
  return (
    <div className="gp-rb-mines" data-testid="rb-mines">
      {minesCells(r.result ?? {}).map(({ tile, state }) => (
        <span
          key={tile}
          className={`gp-tile is-${state}`}
          data-state={state}
          role="img"
          aria-label={`${t('mines.tile', { n: tile + 1 })}: ${t(state === 'gem' || state === 'safe' ? 'mines.tileGem' : state === 'hidden' ? 'mines.tileHidden' : 'mines.tileMine')}`}
        >
          <span className="gp-tile-face" aria-hidden="true" />
        </span>
      ))}
    </div>
  );
}

function BlackjackBoard({ r }: { r: StoredRound }) {
  const { dealer, dealerCards, hands, split } = blackjackBoard(r.result ?? {}, r.roundStatus === 'active');
  return (
    <div className="gp-bj gp-rb-bj" data-testid="rb-blackjack">
      <div className="gp-bj-row">
        <div className="gp-bj-label">
          {t('blackjack.dealer')} <span className="gp-hand-value">{isNatural(dealer) ? t('blackjack.outcome.blackjack') : dealer.value}</span>
        </div>
        <div className="gp-cards">
          {dealerCards.map((c, i) => (
            <PlayingCard key={i} code={c} testId={`rb-dealer-${i}`} />
          ))}
        </div>
      </div>
      <div className={`gp-bj-row gp-bj-hands${split ? ' is-split' : ''}`}>
        {hands.map((h, i) => (
          <div key={i} className={`gp-bj-hand${h.outcome ? ` is-${h.outcome}` : ''}`} data-testid={`rb-hand-${i}`}>
            <div className="gp-cards">
              {h.cards.map((c, k) => (
                <PlayingCard key={k} code={c} />
              ))}
            </div>
            <div className="gp-bj-label">
              {split ? t('blackjack.hand', { n: i + 1 }) : t('blackjack.you')} <span className="gp-hand-value">{h.value}</span>
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

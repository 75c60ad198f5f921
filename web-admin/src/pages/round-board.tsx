/**
 * A round drawn as the player's replay draws it (issue 29: the round page showed raw JSON, all 52
 * cards of a Blackjack shoe): dice bar and roll, limbo result against the target, the plinko path
 * into its bin, keno picks and draw, the Mines grid, Blackjack's dealer and hands. Only what the
 * result holds is drawn; a round still in play shows what the player sees (no mines, no hole card).
 * What each board shows is worked out once, with the game page's RoundBoard, in
 * web-game/src/components/round-board-model.ts (the `@gp/round-board` alias); this file draws it in
 * the console's words and look.
 */
import type { ReactNode } from 'react';
import { blackjackBoard, diceBoard, isNatural, kenoCells, limboBoard, list, minesCells, num, plinkoBoard, type Json } from '@gp/round-board';

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
  const { target, over, roll, winSpan } = diceBoard(res, params);
  const won = over ? roll > target : roll < target;
  return (
    <div className="rb-dice" data-testid="rb-dice">
      <div className="rb-dice-track">
        <span className="rb-dice-win" style={winSpan} />
        <span className={`rb-dice-roll ${won ? 'is-win' : 'is-loss'}`} style={{ left: `${roll}%` }}>
          {roll.toFixed(2)}
        </span>
      </div>
      <p className="muted small">
        Roll {over ? 'over' : 'under'} {target.toFixed(2)} · rolled {roll.toFixed(2)}
      </p>
    </div>
  );
}

function Limbo({ res, params }: { res: Json; params: Json }) {
  const { result, target } = limboBoard(res, params);
  return (
    <div className="rb-limbo" data-testid="rb-limbo">
      <strong className={result >= target ? 'win' : 'loss'}>{result.toFixed(2)}×</strong>
      <span className="muted small">target {target.toFixed(2)}×</span>
    </div>
  );
}

function Plinko({ res, params }: { res: Json; params: Json }) {
  const board = plinkoBoard(res, params);
  return (
    <svg className="rb-plinko" viewBox={board.viewBox} role="img" aria-label={`bin ${board.bin} of ${board.rows}`} data-testid="rb-plinko">
      {board.pegs.map((p) => (
        <circle key={p.key} cx={p.cx} cy={p.cy} r={0.09} className="rb-peg" />
      ))}
      {board.bins.map((b) => (
        <rect key={b.k} x={b.x} y={b.y} width={b.width} height={b.height} rx={0.12} className={b.hit ? 'rb-bin is-hit' : 'rb-bin'} />
      ))}
      <polyline points={board.path} className="rb-path" />
      <circle cx={board.ballX} cy={board.floorY + 0.4} r={0.28} className="rb-ball" />
    </svg>
  );
}

function Keno({ res, params }: { res: Json; params: Json }) {
  return (
    <div className="rb-grid rb-keno" data-testid="rb-keno">
      {kenoCells(res, params).map(({ n, state }) => (
        <span key={n} className={`rb-cell is-${state}`}>
          {n}
        </span>
      ))}
    </div>
  );
}

function Mines({ res }: { res: Json }) {
  return (
    <div className="rb-grid rb-mines" data-testid="rb-mines">
      {minesCells(res).map(({ tile, state }) => (
        <span key={tile} className={`rb-cell is-${state}`} title={`tile ${tile + 1}: ${state}`}>
          {state === 'gem' || state === 'safe' ? '◆' : state === 'mine' || state === 'boom' ? '✹' : ''}
        </span>
      ))}
    </div>
  );
}

function Blackjack({ res, active }: { res: Json; active: boolean }) {
  const { dealer, dealerCards, hands, split } = blackjackBoard(res, active);
  const value = (h: { cards: string[]; value: number }) => (isNatural(h) ? 'Blackjack' : String(h.value));
  return (
    <div className="rb-bj" data-testid="rb-blackjack">
      <div className="rb-bj-row">
        <span className="rb-bj-label">Dealer · {value(dealer)}</span>
        <span className="rb-cards">
          {dealerCards.map((c, i) => (
            <Card key={i} code={c} />
          ))}
        </span>
      </div>
      {hands.map((h, i) => (
        <div key={i} className="rb-bj-row" data-testid={`rb-hand-${i}`}>
          <span className="rb-bj-label">
            {split ? `Hand ${i + 1}` : 'Player'} · {split ? h.value : value(h)}
            {h.doubled ? ' · doubled' : ''}
            {h.outcome ? ` · ${h.outcome}` : ''}
          </span>
          <span className="rb-cards">
            {h.cards.map((c, k) => (
              <Card key={k} code={c} />
            ))}
          </span>
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
      return <Limbo res={res} params={p} />;
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

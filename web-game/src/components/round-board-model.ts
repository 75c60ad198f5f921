/**
 * What a stored round's board shows, worked out once for both drawings of it (issue 24): the game
 * page's RoundBoard (My bets, the replay; localized, the game's look) and the console's round page
 * (web-admin/src/pages/round-board.tsx, through its `@gp/round-board` alias; English, the console's
 * look). Pure and without imports, so either bundle takes it as it is: the dice bar, the plinko
 * board's geometry and the ball's path, keno's and Mines' cell states, Blackjack's dealer and hands.
 * Only what the result holds is drawn; an open round holds what the player may see (no mines, no
 * hole card).
 */

export type Json = Record<string, unknown>;

export const num = (v: unknown): number => Number(v ?? 0);
export const list = (v: unknown): number[] => (Array.isArray(v) ? v.map(Number) : []);

/** Dice: the target, the side that wins, the roll, and the winning stretch of the bar (in %). */
export function diceBoard(res: Json, params: Json) {
  const target = num(res.target ?? params.target);
  const over = (res.direction ?? params.direction) !== 'under';
  const roll = num(res.roll);
  const winSpan = over ? { left: `${target}%`, right: 0 } : { left: 0, width: `${target}%` };
  return { target, over, roll, winSpan };
}

/** Limbo: the result and the target multiplier. */
export function limboBoard(res: Json, params: Json) {
  return { result: num(res.result), target: num(res.target ?? params.target) };
}

/** Vertical distance between peg rows, in peg columns. */
const ROW_GAP = 0.86;

/**
 * Plinko's board in SVG user units: one column per unit, the top peg row at y 0. The ball starts
 * above the top row and moves half a column per row; `ballX` is where it ends, over its bin.
 */
export function plinkoBoard(res: Json, params: Json) {
  const rows = num(res.rows ?? params.rows ?? 16);
  const path = list(res.path);
  const bin = num(res.bin);
  const points = ['0,-0.8'];
  let ballX = 0;
  path.forEach((dir, i) => {
    ballX += dir === 1 ? 0.5 : -0.5;
    points.push(`${ballX},${i * ROW_GAP + ROW_GAP / 2}`);
  });
  const half = (rows + 2) / 2;
  const floorY = rows * ROW_GAP;
  const pegs = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: i + 3 }, (_, j) => ({ key: `${i}-${j}`, cx: j - (i + 2) / 2, cy: i * ROW_GAP })),
  ).flat();
  const bins = Array.from({ length: rows + 1 }, (_, k) => ({
    k,
    x: k - rows / 2 - 0.47,
    y: floorY + 0.05,
    width: 0.94,
    height: 0.72,
    centerX: k - rows / 2,
    hit: k === bin,
  }));
  return { rows, bin, viewBox: `${-half + 0.35} -1.1 ${rows + 1.3} ${floorY + 2}`, pegs, bins, path: points.join(' '), ballX, floorY };
}

export type KenoState = 'hit' | 'miss' | 'picked' | 'idle';

/** Keno's 40 numbers, each with its state: picked and drawn (hit), drawn only (miss), picked only. */
export function kenoCells(res: Json, params: Json): { n: number; state: KenoState }[] {
  const picks = new Set(list(res.picks ?? params.picks));
  const drawn = new Set(list(res.drawn));
  return Array.from({ length: 40 }, (_, i) => {
    const n = i + 1;
    const state: KenoState = picks.has(n) && drawn.has(n) ? 'hit' : drawn.has(n) ? 'miss' : picks.has(n) ? 'picked' : 'idle';
    return { n, state };
  });
}

export type MinesState = 'boom' | 'mine' | 'gem' | 'safe' | 'hidden';

/**
 * Mines' 25 tiles: the mine the player hit (boom, the last tile revealed), the other mines, the
 * revealed gems, and once the round is over (the mines are known) the safe tiles left; before that
 * the unrevealed tiles are hidden.
 */
export function minesCells(res: Json): { tile: number; state: MinesState }[] {
  const revealed = list(res.revealed);
  const mines = new Set(list(res.mines));
  const last = revealed.at(-1);
  const closed = mines.size > 0;
  return Array.from({ length: 25 }, (_, tile) => {
    const state: MinesState = mines.has(tile) ? (tile === last ? 'boom' : 'mine') : revealed.includes(tile) ? 'gem' : closed ? 'safe' : 'hidden';
    return { tile, state };
  });
}

export interface BlackjackHand {
  cards: string[];
  value: number;
  doubled?: boolean;
  outcome?: string;
}

/**
 * Blackjack's dealer and hands; the dealer's cards end with a face-down one (null) while the round
 * is in play. `natural` tells a two-card 21.
 */
export function blackjackBoard(res: Json, active: boolean) {
  const dealer = (res.dealer ?? { cards: [], value: 0 }) as { cards: string[]; value: number };
  const hands = (res.hands ?? []) as BlackjackHand[];
  const dealerCards: (string | null)[] = [...dealer.cards, ...(active ? [null] : [])];
  return { dealer, dealerCards, hands, split: hands.length > 1 };
}

export const isNatural = (hand: { cards: string[]; value: number }): boolean => hand.value === 21 && hand.cards.length === 2;

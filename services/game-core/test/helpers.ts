/** Test helpers: floats that select wanted blackjack cards or mine positions. */
export { deck, floatForCard } from '../src/games/scripted.js';

/** A float that selects pool index `i` of a pool of size `n`: (i + 0.5) / n. */
export function pick(i: number, n: number): number {
  return (i + 0.5) / n;
}

/** JSON with bigints as strings. */
export function json(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/** The error code a function throws (undefined when it does not throw). */
export const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
};

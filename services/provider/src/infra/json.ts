/**
 * Lossless JSON (CONTRACT.md §3): request bodies keep every number's exact text when a JS
 * number could not hold it, and answers write amounts as exact JSON numbers. A 15-digit DOGE
 * balance or 1e-8 BTC survives both ways.
 */
import { LosslessNumber, isLosslessNumber, isSafeNumber, parse, stringify } from 'lossless-json';

/** Numbers a double holds exactly stay JS numbers; the others keep their text. */
function parseNumber(text: string): number | LosslessNumber {
  return isSafeNumber(text) ? Number(text) : new LosslessNumber(text);
}

export function parseJson(text: string): unknown {
  return parse(text, undefined, parseNumber);
}

export function stringifyJson(value: unknown): string {
  return stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? new LosslessNumber(v.toString()) : v)) ?? 'null';
}

/** A JSON number written from its exact decimal text (for amounts in answers). */
export function jsonNumber(text: string): LosslessNumber {
  return new LosslessNumber(text);
}

export { LosslessNumber, isLosslessNumber };
export { numberText } from '@gp/game-core/money';

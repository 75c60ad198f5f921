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

const answerTexts = new WeakMap<object, string>();

/**
 * An answer as it is stored with its idempotency key, remembered with the object so the reply
 * sends the same text (app.ts `answerText`): the answer is written once per request (issue 25),
 * and the first answer and its replays are the same bytes. The caller does not change the
 * object afterwards (it is returned as it is, the route's answer).
 */
export function stringifyAnswer(value: object): string {
  const text = stringifyJson(value);
  answerTexts.set(value, text);
  return text;
}

/** The reply's text: the stored text of an answer written by stringifyAnswer, else the value written now. */
export function answerText(value: unknown): string {
  return (typeof value === 'object' && value !== null ? answerTexts.get(value) : undefined) ?? stringifyJson(value);
}

/** A JSON number written from its exact decimal text (for amounts in answers). */
export function jsonNumber(text: string): LosslessNumber {
  return new LosslessNumber(text);
}

export { LosslessNumber, isLosslessNumber };
export { numberText } from '@gp/game-core/money';

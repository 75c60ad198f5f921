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

/** `JSON.rawJSON` (V8 11.4, Node 21+; not in TypeScript's lib yet): a JSON number written as its exact text. */
const rawJSON = (JSON as unknown as { rawJSON?: (text: string) => unknown }).rawJSON;

/** lossless-json's writer: the same text, in JavaScript (Node 20, where `JSON.rawJSON` is missing). */
export function stringifyJsonPortable(value: unknown): string {
  return stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? new LosslessNumber(v.toString()) : v)) ?? 'null';
}

/**
 * Writes JSON with exact numbers: a bigint or a LosslessNumber is written as its decimal text. With
 * `JSON.rawJSON` the engine's own writer does it (issue 25: lossless-json's writer in JavaScript was
 * ≈ 2 % of the provider's CPU a bet: four callback bodies and the answer); the text is the same
 * (test/unit/json.test.ts holds the two writers to one output).
 */
export const stringifyJson: (value: unknown) => string = rawJSON
  ? (value) => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' || isLosslessNumber(v) ? rawJSON(String(v)) : v)) ?? 'null'
  : stringifyJsonPortable;

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

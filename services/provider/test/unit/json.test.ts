/** Exact JSON (CONTRACT.md §3): the engine's writer (JSON.rawJSON) and lossless-json's write the same text. */
import { describe, expect, it } from 'vitest';
import { jsonNumber, parseJson, stringifyJson, stringifyJsonPortable } from '../../src/infra/json.js';

const VALUES: unknown[] = [
  { amount: jsonNumber('10.50'), currency: 'USD', balance: 123456789012345678901234567890n },
  {
    operatorId: 'op',
    playerRef: 'p-ü "quoted" \\ \n\u2028',
    launchToken: 'tok',
    gameType: 'dice',
    roundId: 'r',
    amount: jsonNumber('0.00000001'),
    currency: 'BTC',
  },
  [1, 'two', null, undefined, () => 1, true, jsonNumber('1e-8'), -0, 1.5, 1e21],
  { nested: { list: [{ a: 1n }, { b: jsonNumber('-3.25') }], date: new Date(0), skip: undefined, fn: () => 1 }, empty: {}, none: [] },
  { result: { multiplier: jsonNumber('2.0000'), rolled: 50.5, target: 49.5, over: true }, balance: null },
  'a string',
  42,
  null,
  123n,
  jsonNumber('99999999999999999999.99'),
  undefined,
];

describe('stringifyJson', () => {
  it('writes what lossless-json writes: exact numbers from bigints and lossless numbers, the rest as JSON.stringify', () => {
    for (const v of VALUES) expect(stringifyJson(v)).toBe(stringifyJsonPortable(v));
  });

  it('keeps every digit of an amount, and reads back to the same text', () => {
    const text = stringifyJson({ amount: jsonNumber('12345678901234567.123456789'), n: 2n ** 80n });
    expect(text).toBe('{"amount":12345678901234567.123456789,"n":1208925819614629174706176}');
    expect(stringifyJson(parseJson(text))).toBe(text);
  });
});

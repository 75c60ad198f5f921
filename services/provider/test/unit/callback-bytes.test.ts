/**
 * A callback's exact bytes at rest (money-path/callback-bytes.ts): the `t1` form (the masked body
 * and the launch token sealed once) gives back exactly the bytes the body is written as, whatever
 * the token holds; the `v1` form (rows written before it, bodies without a token) still reads.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jsonNumber, stringifyJson, stringifyJsonPortable } from '../../src/infra/json.js';
import { createSecretBox } from '../../src/infra/secret-box.js';
import { bodyAtRest, exactBody, KEPT_TOKENS, keptTokensOf, maskedBody } from '../../src/rounds/money-path/callback-bytes.js';

const box = createSecretBox(randomBytes(32));

const debit = (launchToken: string, extra: Record<string, unknown> = {}) => ({
  operatorId: 'op-1',
  playerRef: 'p-ü "quoted" \\ \n\u2028 "launchToken":"[redacted]"',
  launchToken,
  gameType: 'dice',
  roundId: '01a24db7-ba04-75f8-9022-4d5125943530-b682be2f8011',
  amount: jsonNumber('0.00000001'),
  currency: 'BTC',
  ...extra,
});

const TOKENS = [
  'lt_0123456789abcdef',
  '[redacted]',
  '"launchToken":"[redacted]"',
  'quote " backslash \\ slash / tab \t newline \n nul \u0000 line sep \u2028',
  'ünïcødé 🎲 漢字',
  '',
  'x'.repeat(5000),
];

describe('a callback body at rest', () => {
  it.each(TOKENS)('t1: the exact bytes come back for the token %j', (token) => {
    const body = debit(token, { freeBet: true, campaignId: 'c-1' });
    const rest = bodyAtRest(box, body);
    expect(rest.requestBodyEnc.startsWith('t1:v1:')).toBe(true);
    // the audit's copy and the stored secret hold no token in the clear
    expect(rest.requestBody).toBe(maskedBody(body));
    // (a token that is itself the masked field's text is in it by definition)
    if (token.length > 12 && token !== '"launchToken":"[redacted]"') {
      expect(rest.requestBody).not.toContain(token);
      expect(rest.requestBodyEnc).not.toContain(token);
    }
    expect(exactBody(box, rest)).toBe(stringifyJson(body));
    // the same text lossless-json writes (Node 20, no JSON.rawJSON)
    expect(exactBody(box, rest)).toBe(stringifyJsonPortable(body));
  });

  it('a session’s callbacks share one sealed token; another process (its memory gone) opens it', () => {
    const a = bodyAtRest(box, debit('lt_shared'));
    const b = bodyAtRest(box, { ...debit('lt_shared'), roundId: 'other' });
    expect(a.requestBodyEnc).toBe(b.requestBodyEnc);
    // another box with the same key: nothing kept, the token is decrypted
    const key = randomBytes(32);
    const writer = createSecretBox(key);
    const reader = createSecretBox(key);
    const rest = bodyAtRest(writer, debit('lt_elsewhere'));
    expect(exactBody(reader, rest)).toBe(stringifyJson(debit('lt_elsewhere')));
  });

  it('v1: a body without a launch token (a rollback) is sealed whole, and rows written before t1 still read', () => {
    const rollback = {
      operatorId: 'op-1',
      playerRef: 'p',
      roundId: 'r',
      debitIdempotencyKey: 'r:debit',
      amount: jsonNumber('1.00'),
      currency: 'USD',
      reason: 'x',
    };
    const rest = bodyAtRest(box, rollback);
    expect(rest.requestBodyEnc.startsWith('v1:')).toBe(true);
    expect(rest.requestBody).toBe(stringifyJson(rollback));
    expect(exactBody(box, rest)).toBe(stringifyJson(rollback));
    const before = { requestBody: maskedBody(debit('lt_old')), requestBodyEnc: box.seal(stringifyJson(debit('lt_old'))) };
    expect(exactBody(box, before)).toBe(stringifyJson(debit('lt_old')));
  });

  it('a t1 row whose masked body lost its masked token is refused, not sent wrong', () => {
    const rest = bodyAtRest(box, debit('lt_x'));
    expect(() => exactBody(box, { ...rest, requestBody: rest.requestBody.replace('"launchToken":"[redacted]"', '"launchToken":"?"') })).toThrow(/exactly once/);
    const twice = rest.requestBody.replace('{', '{"launchToken":"[redacted]",');
    expect(() => exactBody(box, { ...rest, requestBody: twice })).toThrow(/exactly once/);
  });

  it('keeps a bounded number of tokens: past the bound the oldest is sealed again, and every sealed text still opens', () => {
    const k = createSecretBox(randomBytes(32));
    const first = bodyAtRest(k, debit('lt_first'));
    for (let i = 0; i < KEPT_TOKENS.entries; i++) bodyAtRest(k, debit(`lt_${i}`));
    const again = bodyAtRest(k, debit('lt_first'));
    expect(again.requestBodyEnc).not.toBe(first.requestBodyEnc); // forgotten, sealed anew (a fresh IV)
    expect(exactBody(k, first)).toBe(stringifyJson(debit('lt_first')));
    expect(exactBody(k, again)).toBe(stringifyJson(debit('lt_first')));
  });
  it('bounds what it keeps by characters too: long tokens keep fewer entries, never past the budget', () => {
    const k = createSecretBox(randomBytes(32));
    const long = (i: number) => `${String(i).padStart(6, '0')}${'t'.repeat(1994)}`; // 2,000 characters, the longest a launch takes
    const first = bodyAtRest(k, debit(long(0)));
    for (let i = 1; i < 1000; i++) {
      bodyAtRest(k, debit(long(i)));
      expect(keptTokensOf(k).chars).toBeLessThanOrEqual(KEPT_TOKENS.chars);
    }
    const { entries } = keptTokensOf(k);
    expect(entries).toBeGreaterThan(100);
    expect(entries).toBeLessThan(400);
    expect(exactBody(k, first)).toBe(stringifyJson(debit(long(0)))); // forgotten long ago, still opens
  });
});

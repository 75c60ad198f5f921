import { afterEach, describe, expect, it } from 'vitest';
import { createNonceStore } from '../src/signature.js';
import { sign, signRequest, type ReferenceCasino } from '../src/index.js';
import { balanceBody, call, debitBody, hmacHex, setup } from './helpers.js';

let casino: ReferenceCasino;
let token: string;
afterEach(async () => casino?.close());

describe('signature recipe', () => {
  it('matches the worked example of the README', () => {
    const body = '{"operatorId":"op-usd","playerRef":"p1","launchToken":"lt_demo","gameType":"dice","roundId":"r-0001","amount":1.5,"currency":"USD"}';
    const expected = 'e70484643ee5b3e5690b24c7f0bf11995798681fdddc89d587d490080136ce25';
    expect(hmacHex('s3cr3t', `POST\n/wallet/debit\n1700000000\nn0nce-0123456789abcdef\n${body}`)).toBe(expected);
    expect(sign('s3cr3t', 'POST', '/wallet/debit', '1700000000', 'n0nce-0123456789abcdef', body)).toBe(expected);
    const headers = signRequest({
      operatorId: 'op-usd',
      secret: 's3cr3t',
      method: 'POST',
      path: '/wallet/debit',
      body,
      timestamp: 1700000000,
      nonce: 'n0nce-0123456789abcdef',
      idempotencyKey: 'r-0001:debit',
    });
    expect(headers['x-signature']).toBe(expected);
    expect(headers['x-idempotency-key']).toBe('r-0001:debit');
  });
});

describe('every wallet request is verified', () => {
  it('accepts a valid signature', async () => {
    ({ casino } = await setup());
    const res = await call(casino, '/wallet/balance', balanceBody);
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"balance":100,"currency":"USD"}');
  });

  it('signs the interface path whatever prefix the callback base carries', async () => {
    ({ casino } = await setup());
    expect((await call(casino, '/wallet/balance', balanceBody, { prefix: '/casino-a' })).status).toBe(200);
    expect((await call(casino, '/wallet/balance', balanceBody, { prefix: '/casino-a/v2' })).status).toBe(200);
    const signedWithPrefix = await call(casino, '/wallet/balance', balanceBody, { prefix: '/casino-a', signedPath: '/casino-a/wallet/balance' });
    expect(signedWithPrefix).toMatchObject({ status: 401, json: { code: 'SIGNATURE_INVALID' } });
    expect(casino.requests().map((r) => [r.prefix, r.path, r.status])).toEqual([
      ['/casino-a', '/wallet/balance', 200],
      ['/casino-a/v2', '/wallet/balance', 200],
      ['/casino-a', '/wallet/balance', 401],
    ]);
  });

  it.each(['X-Operator-Id', 'X-Timestamp', 'X-Nonce', 'X-Signature'])('missing %s is SIGNATURE_REQUIRED', async (header) => {
    ({ casino } = await setup());
    const res = await call(casino, '/wallet/balance', balanceBody, { omit: [header] });
    expect(res).toMatchObject({ status: 401, json: { code: 'SIGNATURE_REQUIRED' } });
  });

  it.each([
    ['an unknown operator', { operatorId: 'op-nope', secret: 'whatever' }],
    ['the wrong secret', { secret: 'not-the-secret' }],
    ['another path signed', { signedPath: '/wallet/debit' }],
    ['a malformed nonce (too short)', { nonce: 'short' }],
    ['a malformed nonce (bad characters)', { nonce: 'abcdefgh.ijklmnop' }],
  ])('%s is SIGNATURE_INVALID', async (_name, opts) => {
    ({ casino } = await setup());
    const res = await call(casino, '/wallet/balance', balanceBody, opts);
    expect(res).toMatchObject({ status: 401, json: { code: 'SIGNATURE_INVALID' } });
  });

  it('a body changed after signing is SIGNATURE_INVALID (the raw bytes are signed)', async () => {
    ({ casino } = await setup());
    const raw = JSON.stringify(balanceBody);
    const ts = String(Math.floor(Date.now() / 1000));
    const nonce = 'nonce-tampered-0001';
    const headers = {
      'x-operator-id': 'op-usd',
      'x-timestamp': ts,
      'x-nonce': nonce,
      'x-signature': hmacHex('secret-usd', `POST\n/wallet/balance\n${ts}\n${nonce}\n${raw}`),
    };
    const reformatted = JSON.stringify(balanceBody, null, 1); // same JSON value, other bytes
    const res = await fetch(`${casino.url}/wallet/balance`, { method: 'POST', headers, body: reformatted });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'SIGNATURE_INVALID' });
  });

  it('an uppercase hex signature is SIGNATURE_INVALID (lowercase hex only)', async () => {
    ({ casino } = await setup());
    const raw = JSON.stringify(balanceBody);
    const ts = String(Math.floor(Date.now() / 1000));
    const nonce = 'nonce-uppercase-0001';
    const sig = hmacHex('secret-usd', `POST\n/wallet/balance\n${ts}\n${nonce}\n${raw}`).toUpperCase();
    const res = await fetch(`${casino.url}/wallet/balance`, {
      method: 'POST',
      headers: { 'x-operator-id': 'op-usd', 'x-timestamp': ts, 'x-nonce': nonce, 'x-signature': sig },
      body: raw,
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'SIGNATURE_INVALID' });
  });

  it('a timestamp outside the skew (or not whole seconds) is SIGNATURE_STALE', async () => {
    const nowMs = 1_700_000_000_000;
    ({ casino } = await setup({ now: () => nowMs, clockSkewSeconds: 300 }));
    const at = (s: number | string) => call(casino, '/wallet/balance', balanceBody, { timestamp: String(s) });
    expect((await at(1_700_000_000 - 300)).status).toBe(200);
    expect((await at(1_700_000_000 + 300)).status).toBe(200);
    expect((await at(1_700_000_000 - 301)).json).toMatchObject({ code: 'SIGNATURE_STALE' });
    expect((await at(1_700_000_000 + 301)).json).toMatchObject({ code: 'SIGNATURE_STALE' });
    expect((await at('1700000000.5')).json).toMatchObject({ code: 'SIGNATURE_STALE' });
    expect((await at(1_700_000_000_000)).json).toMatchObject({ code: 'SIGNATURE_STALE' }); // milliseconds
  });

  it('a reused nonce is SIGNATURE_REPLAYED, even on another path or body', async () => {
    ({ casino, token } = await setup());
    const nonce = 'nonce-replayed-0001';
    expect((await call(casino, '/wallet/balance', balanceBody, { nonce })).status).toBe(200);
    expect(await call(casino, '/wallet/balance', balanceBody, { nonce })).toMatchObject({ status: 401, json: { code: 'SIGNATURE_REPLAYED' } });
    const debit = await call(casino, '/wallet/debit', debitBody(token, 1), { nonce, idempotencyKey: 'r1:debit' });
    expect(debit).toMatchObject({ status: 401, json: { code: 'SIGNATURE_REPLAYED' } });
    expect(casino.transactions()).toEqual([]);
  });

  it('a forged request does not burn the nonce', async () => {
    ({ casino } = await setup());
    const nonce = 'nonce-forged-00001';
    expect((await call(casino, '/wallet/balance', balanceBody, { nonce, secret: 'forged' })).status).toBe(401);
    expect((await call(casino, '/wallet/balance', balanceBody, { nonce })).status).toBe(200);
  });

  it('a money request without X-Idempotency-Key is IDEMPOTENCY_REQUIRED', async () => {
    ({ casino, token } = await setup());
    for (const path of ['/wallet/debit', '/wallet/credit', '/wallet/rollback']) {
      const res = await call(casino, path, debitBody(token, 1));
      expect(res).toMatchObject({ status: 400, json: { code: 'IDEMPOTENCY_REQUIRED' } });
    }
    const tooLong = await call(casino, '/wallet/debit', debitBody(token, 1), { idempotencyKey: 'k'.repeat(129) });
    expect(tooLong).toMatchObject({ status: 400, json: { code: 'VALIDATION_ERROR' } });
    expect(casino.transactions()).toEqual([]);
  });
});

describe('nonce memory', () => {
  it('keeps a nonce at least for the skew window', () => {
    const store = createNonceStore(300);
    expect(store.remember('op', 'nonce-aaaaaaaaaaaaaa', 1000, 1000)).toBe(true);
    expect(store.remember('op', 'nonce-aaaaaaaaaaaaaa', 1000, 1299)).toBe(false);
    expect(store.remember('op', 'nonce-aaaaaaaaaaaaaa', 1000, 1300)).toBe(false);
    expect(store.remember('other-op', 'nonce-aaaaaaaaaaaaaa', 1000, 1000)).toBe(true);
    // past ts + skew the timestamp itself is stale, so the entry may go
    expect(store.remember('op', 'nonce-aaaaaaaaaaaaaa', 1301, 1301)).toBe(true);
  });
});

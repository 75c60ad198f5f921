/**
 * SPEC.md "Authentication" 1–3 and wallet rules 4–5, CONTRACT.md §6 and §11: what goes over the
 * wire to the casino. A recording proxy sits between the provider and the reference casino, under
 * a callback base with a path prefix; the casino verifies every signature and refuses otherwise.
 */
import { createHmac } from 'node:crypto';
import { NONCE_PATTERN } from '@gp/reference-casino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from '../helpers/app.js';
import { secretOf, startTap, startWorld, type Player, type Tap, type TappedRequest, type World } from '../helpers/casino.js';

let w: World;
let tap: Tap;
let p: Player;
beforeAll(async () => {
  tap = await startTap();
  w = await startWorld([{ operatorId: 'op-tap', callbackBaseUrl: `${tap.url}/casino-a` }]);
  tap.target = w.casino.url;
  p = await w.player('signed-1');
});
afterAll(async () => {
  await w?.close();
  await tap?.close();
});

const header = (r: TappedRequest, name: string) => r.headers[name] as string | undefined;
const interfacePath = (r: TappedRequest) => r.url.replace(/^\/casino-a/, '');
const tapped = (key: string) => tap.requests.filter((r) => header(r, 'x-idempotency-key') === key);

describe('callbacks are signed with the shared operator secret', () => {
  it('signs METHOD, the interface path, X-Timestamp, X-Nonce and the exact body bytes with HMAC-SHA256 (lowercase hex)', async () => {
    const bet = await w.bet(p, 'dice', 1, { target: 50, direction: 'over' });
    expect(bet.status, bet.text).toBe(200);
    const paths = tap.requests.map(interfacePath);
    expect(paths).toEqual(expect.arrayContaining(['/wallet/validate-session', '/wallet/balance', '/wallet/debit', '/wallet/credit']));
    const nowS = Math.floor(Date.now() / 1000);
    for (const r of tap.requests) {
      expect(r.method).toBe('POST');
      expect(r.url.startsWith('/casino-a/wallet/')).toBe(true);
      expect(header(r, 'x-operator-id')).toBe('op-tap');
      const ts = header(r, 'x-timestamp')!;
      expect(ts).toMatch(/^\d+$/);
      expect(Math.abs(nowS - Number(ts))).toBeLessThanOrEqual(5);
      const nonce = header(r, 'x-nonce')!;
      expect(nonce).toMatch(NONCE_PATTERN);
      const expected = createHmac('sha256', secretOf('op-tap'))
        .update(`POST\n${interfacePath(r)}\n${ts}\n${nonce}\n${r.body}`, 'utf8')
        .digest('hex');
      expect(header(r, 'x-signature')).toBe(expected);
      expect(r.status).toBe(200);
    }
  });

  it('the casino sees every request under the callback base prefix and accepts it', () => {
    const log = w.casino.requests();
    expect(log.length).toBeGreaterThanOrEqual(4);
    for (const entry of log) {
      expect(entry.prefix).toBe('/casino-a');
      expect(entry.status).toBe(200);
      expect(entry.operatorId).toBe('op-tap');
    }
  });

  it('every attempt carries a new nonce', () => {
    const nonces = tap.requests.map((r) => header(r, 'x-nonce'));
    expect(new Set(nonces).size).toBe(nonces.length);
  });

  it("a profile whose secret is not the casino's is refused by the casino (it verifies signatures)", async () => {
    const put = await w.call(
      'PUT',
      '/api/admin/operators/op-tap',
      { currency: 'USD', callbackBaseUrl: `${tap.url}/casino-a`, sharedSecret: 'not-the-casino-secret-000000', minBet: 0.1, stakeStep: 0.01, maxPayout: 10000 },
      adminHeaders,
    );
    expect(put.status).toBe(200);
    const session = await w.call('POST', '/api/sessions', { operatorId: 'op-tap', launchToken: p.launchToken, launchMode: 'lobby' });
    expect(session.status).toBe(502);
    expect(session.body).toMatchObject({ code: 'CASINO_HTTP_ERROR', casinoCode: 'SIGNATURE_INVALID' });
    expect(w.casino.requests().at(-1)).toMatchObject({ path: '/wallet/validate-session', status: 401, code: 'SIGNATURE_INVALID' });
    const restore = await w.call(
      'PUT',
      '/api/admin/operators/op-tap',
      { currency: 'USD', callbackBaseUrl: `${tap.url}/casino-a`, sharedSecret: secretOf('op-tap'), minBet: 0.1, stakeStep: 0.01, maxPayout: 10000 },
      adminHeaders,
    );
    expect(restore.status).toBe(200);
  });
});

describe('X-Idempotency-Key on money-changing callbacks', () => {
  it('debit and credit carry <roundId>:debit and <roundId>:credit; validate-session and balance carry none', async () => {
    const bet = await w.bet(p, 'limbo', 1, { target: 2 });
    expect(bet.status, bet.text).toBe(200);
    const roundId = bet.body.roundId!;
    const debit = tapped(`${roundId}:debit`);
    const credit = tapped(`${roundId}:credit`);
    expect(debit.map(interfacePath)).toEqual(['/wallet/debit']);
    expect(credit.map(interfacePath)).toEqual(['/wallet/credit']);
    expect(JSON.parse(debit[0]!.body)).toMatchObject({
      operatorId: 'op-tap',
      playerRef: p.playerRef,
      launchToken: p.launchToken,
      gameType: 'limbo',
      roundId,
      amount: 1,
      currency: 'USD',
    });
    for (const r of tap.requests.filter((x) => /validate-session|balance/.test(x.url))) expect(header(r, 'x-idempotency-key')).toBeUndefined();
  });

  it('a retried debit reuses its key and body bytes with a new nonce (the casino would refuse a reused one)', async () => {
    w.casino.setFaults([{ path: '/wallet/debit', kind: 'status', status: 503, times: 1 }]);
    const bet = await w.bet(p, 'dice', 2, { target: 40, direction: 'under' });
    w.casino.clearFaults();
    expect(bet.status, bet.text).toBe(200);
    const roundId = bet.body.roundId!;
    const attempts = tapped(`${roundId}:debit`);
    expect(attempts).toHaveLength(2);
    expect(attempts[0]!.body).toBe(attempts[1]!.body);
    expect(header(attempts[0]!, 'x-nonce')).not.toBe(header(attempts[1]!, 'x-nonce'));
    expect(w.requestsOf(`${roundId}:debit`).map((r) => r.status)).toEqual([503, 200]);
    const audit = (await w.round(roundId)).body.casinoCallbackAudit as { path: string; attemptCount: number; idempotencyKey: string }[];
    expect(audit.find((a) => a.path === '/wallet/debit')).toMatchObject({ attemptCount: 2, idempotencyKey: `${roundId}:debit` });
  });

  it('a rollback has its own key <roundId>:debit:rollback and names the debit by debitIdempotencyKey', async () => {
    const bet = await w.bet(p, 'dice', 1, { target: 99, direction: 'over' });
    expect(bet.body).toMatchObject({ code: 'INVALID_GAME_PARAMS', roundStatus: 'cancelled' });
    const roundId = bet.body.roundId!;
    const rollback = tapped(`${roundId}:debit:rollback`);
    expect(rollback.map(interfacePath)).toEqual(['/wallet/rollback']);
    const body = JSON.parse(rollback[0]!.body) as Record<string, unknown>;
    expect(body).toMatchObject({
      operatorId: 'op-tap',
      playerRef: p.playerRef,
      gameType: 'dice',
      roundId,
      debitIdempotencyKey: `${roundId}:debit`,
      amount: 1,
      currency: 'USD',
    });
    expect(typeof body.reason).toBe('string');
    expect(body).not.toHaveProperty('launchToken');
  });

  it('the retry job repeats a credit with the same key and identical bytes, each attempt with a new nonce', async () => {
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 502, times: 2 }]);
    const bet = await w.bet(p, 'plinko', 1, { rows: 8, risk: 'low' });
    w.casino.clearFaults();
    expect(bet.body.roundStatus).toBe('credit_pending');
    const roundId = bet.body.roundId!;
    const cron = await w.cron('limit=10');
    expect(cron.body.items).toContainEqual({ roundId, operation: 'credit', outcome: 'succeeded' });
    const attempts = tapped(`${roundId}:credit`);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
    expect(new Set(attempts.map((a) => header(a, 'x-nonce'))).size).toBe(3);
    expect(w.requestsOf(`${roundId}:credit`).map((r) => r.status)).toEqual([502, 502, 200]);
    expect(w.ledger(roundId).filter((tx) => tx.type === 'credit')).toHaveLength(1);
  });
});

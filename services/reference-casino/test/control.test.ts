import { afterEach, describe, expect, it } from 'vitest';
import { startReferenceCasino, type ReferenceCasino } from '../src/index.js';
import { call, OPERATORS } from './helpers.js';

let casino: ReferenceCasino;
afterEach(async () => casino?.close());

const control = async (method: string, path: string, body?: string | object) => {
  const res = await fetch(`${casino.url}/_control${path}`, {
    method,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) as Record<string, unknown> };
};

describe('control API (/_control, unsigned)', () => {
  it('creates players and launch tokens, shows balances and the ledger', async () => {
    casino = await startReferenceCasino({ operators: OPERATORS });
    const player = await control('POST', '/players', '{"playerRef":"whale","displayName":"Whale","balance":123456789012345.12345678,"currency":"DOGE"}');
    expect(player.status).toBe(201);
    expect(player.text).toContain('"balance":123456789012345.12345678');
    const { json } = await control('POST', '/launch-tokens', { playerRef: 'whale' });
    const launchToken = json['launchToken'] as string;
    expect(launchToken).toMatch(/^lt_/);

    const body = `{"operatorId":"op-doge","playerRef":"whale","launchToken":"${launchToken}","gameType":"dice","roundId":"r1","amount":0.5,"currency":"DOGE"}`;
    expect((await call(casino, '/wallet/debit', body, { operatorId: 'op-doge', idempotencyKey: 'r1:debit' })).status).toBe(200);

    const balance = await control('GET', '/balance/whale');
    expect(balance.text).toBe('{"playerRef":"whale","currency":"DOGE","balance":123456789012344.62345678}');
    const ledger = await control('GET', '/ledger');
    expect(ledger.text).toContain('"amount":0.5,');
    expect(ledger.json['transactions']).toMatchObject([{ type: 'debit', idempotencyKey: 'r1:debit', roundId: 'r1', playerRef: 'whale' }]);
    expect((await control('GET', '/requests')).json['requests']).toMatchObject([{ path: '/wallet/debit', status: 200 }]);
    expect((await control('GET', '/balance/nobody')).status).toBe(404);
  });

  it('sets and clears faults', async () => {
    casino = await startReferenceCasino({ operators: OPERATORS });
    await control('POST', '/players', { playerRef: 'p1', balance: '10', currency: 'USD' });
    const set = await control('PUT', '/faults', { rules: [{ path: '/wallet/balance', kind: 'status', status: 503, times: 1 }], seed: 7 });
    expect(set).toMatchObject({ status: 200, json: { faults: [{ rule: { kind: 'status' }, hits: 0 }] } });
    const balanceBody = { operatorId: 'op-usd', playerRef: 'p1', gameType: 'dice', currency: 'USD' };
    expect((await call(casino, '/wallet/balance', balanceBody)).status).toBe(503);
    expect((await control('GET', '/faults')).json).toMatchObject({ faults: [{ hits: 1 }] });
    await control('PUT', '/faults', [{ path: '*', kind: 'drop' }]);
    expect((await control('DELETE', '/faults')).json).toEqual({ faults: [] });
    expect((await call(casino, '/wallet/balance', balanceBody)).status).toBe(200);
    expect(await control('PUT', '/faults', { rules: [{ path: '*', kind: 'explode' }] })).toMatchObject({ status: 400, json: { code: 'VALIDATION_ERROR' } });
  });

  it('switches misbehaviours on and off; none is on by default', async () => {
    casino = await startReferenceCasino({ operators: OPERATORS });
    casino.createPlayer({ playerRef: 'p1', balance: '100.00', currency: 'USD' });
    expect((await control('GET', '/misbehaviours')).json).toEqual({ misbehaviours: {} });
    expect(casino.misbehaviours()).toEqual({});
    const balanceBody = { operatorId: 'op-usd', playerRef: 'p1', gameType: 'dice', currency: 'USD' };
    expect(await control('PUT', '/misbehaviours', { misbehaviours: { 'amounts-as-strings': true, 'slow-answers': 0 } })).toMatchObject({
      status: 200,
      json: { misbehaviours: { 'amounts-as-strings': true } },
    });
    expect((await call(casino, '/wallet/balance', balanceBody)).text).toBe('{"balance":"100","currency":"USD"}');
    expect((await control('DELETE', '/misbehaviours')).json).toEqual({ misbehaviours: {} });
    expect((await call(casino, '/wallet/balance', balanceBody)).text).toBe('{"balance":100,"currency":"USD"}');
    expect(await control('PUT', '/misbehaviours', { 'no-such-bug': true })).toMatchObject({ status: 400, json: { code: 'VALIDATION_ERROR' } });
    expect(await control('PUT', '/misbehaviours', { 'slow-answers': 'slow' })).toMatchObject({ status: 400, json: { code: 'VALIDATION_ERROR' } });
  });

  it('answers 400 for bad input and 404 for unknown routes', async () => {
    casino = await startReferenceCasino({ operators: OPERATORS });
    expect((await control('POST', '/players', { playerRef: 'p1', balance: '1.001', currency: 'USD' })).status).toBe(400);
    expect((await control('POST', '/launch-tokens', { playerRef: 'nobody' })).status).toBe(400);
    expect((await control('GET', '/nothing')).status).toBe(404);
    const wallet = await fetch(`${casino.url}/somewhere`, { method: 'POST' });
    expect(wallet.status).toBe(404);
  });
});

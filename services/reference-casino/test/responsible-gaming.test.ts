/** Responsible gaming (issue 27): the jurisdiction validate-session reports and the casino's own refusals with words, per player or token, set through the control API. */
import { afterEach, describe, expect, it } from 'vitest';
import { startReferenceCasino, type ReferenceCasino } from '../src/index.js';
import { balanceBody, call, debitBody, OPERATORS } from './helpers.js';

let casino: ReferenceCasino;
afterEach(async () => casino?.close());

const control = async (method: string, path: string, body: object) => {
  const res = await fetch(`${casino.url}/_control${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};
const validate = (token: string) =>
  call(casino, '/wallet/validate-session', { operatorId: 'op-usd', launchToken: token, gameType: 'dice' }, { operatorId: 'op-usd' });

describe('responsible gaming at the reference casino', () => {
  it('reports a player’s jurisdiction, a token’s over it, and none when unset', async () => {
    casino = await startReferenceCasino({ operators: OPERATORS });
    expect((await control('POST', '/players', { playerRef: 'p1', balance: 10, currency: 'USD', responsibleGaming: { jurisdiction: 'GB' } })).status).toBe(201);
    const plain = (await control('POST', '/launch-tokens', { playerRef: 'p1' })).json['launchToken'] as string;
    const ontario = (await control('POST', '/launch-tokens', { playerRef: 'p1', responsibleGaming: { jurisdiction: 'CA-ON' } })).json['launchToken'] as string;
    expect((await validate(plain)).json).toMatchObject({ valid: true, jurisdiction: 'GB' });
    expect((await validate(ontario)).json).toMatchObject({ valid: true, jurisdiction: 'CA-ON' });
    await control('PUT', '/responsible-gaming', { playerRef: 'p1', jurisdiction: null });
    expect((await validate(plain)).json).not.toHaveProperty('jurisdiction');
  });

  it('refuses validate-session, balance or a debit with the configured {code, message} until cleared; a refused debit moves nothing and its key replays the refusal', async () => {
    casino = await startReferenceCasino({ operators: OPERATORS });
    casino.createPlayer({ playerRef: 'p1', balance: '10', currency: 'USD' });
    const token = casino.issueLaunchToken('p1');
    const set = await control('PUT', '/responsible-gaming', {
      playerRef: 'p1',
      refusals: {
        debit: { code: 'LOSS_LIMIT_REACHED', message: 'Daily loss limit reached.' },
        balance: { status: 403, code: 'TIME_OUT', message: 'On a break.' },
      },
    });
    expect(set.status).toBe(200);
    const debit = await call(casino, '/wallet/debit', debitBody(token, 1), { operatorId: 'op-usd', idempotencyKey: 'r1:debit' });
    expect(debit.status).toBe(400);
    expect(debit.json).toEqual({ code: 'LOSS_LIMIT_REACHED', message: 'Daily loss limit reached.' });
    expect(casino.balanceOf('p1', 'USD')).toBe(1000n);
    const balance = await call(casino, '/wallet/balance', balanceBody, { operatorId: 'op-usd' });
    expect([balance.status, balance.json['code'], balance.json['message']]).toEqual([403, 'TIME_OUT', 'On a break.']);
    // a token's own refusal of validate-session
    casino.setResponsibleGaming({ launchToken: token }, { refusals: { 'validate-session': { code: 'SELF_EXCLUDED', message: 'Self-excluded.' } } });
    expect((await validate(token)).json).toEqual({ code: 'SELF_EXCLUDED', message: 'Self-excluded.' });
    // cleared: a new key debits
    casino.setResponsibleGaming({ playerRef: 'p1' }, { refusals: { debit: null } });
    expect((await call(casino, '/wallet/debit', debitBody(token, 1, 'r2'), { operatorId: 'op-usd', idempotencyKey: 'r2:debit' })).status).toBe(200);
    expect((await call(casino, '/wallet/balance', balanceBody, { operatorId: 'op-usd' })).status).toBe(403);
  });

  it('refuses settings it cannot apply', async () => {
    casino = await startReferenceCasino({ operators: OPERATORS });
    casino.createPlayer({ playerRef: 'p1', balance: '10', currency: 'USD' });
    for (const bad of [
      { refusals: { credit: { code: 'X', message: 'y' } } },
      { refusals: { debit: { code: 'X', message: 'y', status: 409 } } },
      { refusals: { debit: { code: '', message: 'y' } } },
      { jurisdiction: 7 },
    ]) {
      expect((await control('PUT', '/responsible-gaming', { playerRef: 'p1', ...bad })).status, JSON.stringify(bad)).toBe(400);
    }
  });
});

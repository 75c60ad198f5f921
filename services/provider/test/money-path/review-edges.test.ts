/**
 * The money path's edges found by the hostile review (issue 9), against the reference casino over
 * HTTP: a profile's currency is fixed once it has sessions (defect 4); every answer to a round's
 * POST carries the player's latest balance (defect 11); a key that reached the wallet answers with
 * its round whatever changed since — a game disabled, the circuit open (defect 14).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from '../helpers/app.js';
import { newKey, secretOf, startWorld, type World } from '../helpers/casino.js';

let w: World;
beforeAll(async () => {
  w = await startWorld([{ operatorId: 'op-usd' }, { operatorId: 'op-fresh' }, { operatorId: 'op-keys' }]);
});
afterAll(async () => w?.close());

const put = (operatorId: string, body: Record<string, unknown>) =>
  w.call(
    'PUT',
    `/api/admin/operators/${operatorId}`,
    { callbackBaseUrl: w.casino.url, sharedSecret: secretOf(operatorId), minBet: 0.1, stakeStep: 0.01, maxPayout: 10_000, ...body },
    adminHeaders,
  );

describe("a profile's currency (every record and limit of a session is in its one currency)", () => {
  it('cannot change once the profile has sessions: the admin PUT is CURRENCY_MISMATCH and nothing changes', async () => {
    const p = await w.player('cur-1', { operatorId: 'op-usd' });
    const res = await put('op-usd', { currency: 'BTC', maxPayout: 100 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('CURRENCY_MISMATCH');
    const stored = await w.t.services.db('operators').where({ operator_id: 'op-usd' }).first();
    expect(stored.currency).toBe('USD');
    // the session keeps betting in USD under USD limits
    const bet = await w.bet(p, 'dice', 1, { target: 50, direction: 'over' });
    expect(bet.status).toBe(200);
    expect(bet.body.bet).toMatchObject({ currency: 'USD' });
    // changing the limits in the same currency is fine
    expect((await put('op-usd', { currency: 'USD', maxPayout: 5000 })).status).toBe(200);
  });

  it('the database holds the rule too (a trigger), whatever code writes', async () => {
    await expect(w.t.services.db('operators').where({ operator_id: 'op-usd' }).update({ currency: 'EUR' })).rejects.toThrow(/operators_currency_fixed/);
  });

  it('a profile without sessions may still change its currency', async () => {
    expect((await put('op-fresh', { currency: 'EUR' })).status).toBe(200);
    expect((await w.t.services.db('operators').where({ operator_id: 'op-fresh' }).first()).currency).toBe('EUR');
  });
});

describe('every answer to a POST of a round carries the latest casino balance (CONTRACT.md §12)', () => {
  it('Mines: start, a safe reveal (no wallet call) and cashout all answer the balance', async () => {
    const p = await w.player('bal-mines', { operatorId: 'op-usd', balance: '50', gameType: 'mines', launchMode: 'single' });
    const start = await w.call('POST', '/api/mines/rounds', { sessionId: p.sessionId, amount: 2, idempotencyKey: newKey(), mineCount: 1 });
    expect(start.status).toBe(200);
    expect(start.body.balance).toBe(48);
    const row = await w.t.services.db('rounds').where({ round_id: start.body.roundId }).first();
    const state = typeof row.state === 'string' ? JSON.parse(row.state) : row.state;
    const safe = [...Array(25).keys()].find((tile) => !state.mines.includes(tile))!;
    const requestsBefore = w.casino.requests().length;
    const reveal = await w.call('POST', `/api/mines/rounds/${start.body.roundId}/reveal`, { sessionId: p.sessionId, tile: safe, idempotencyKey: newKey() });
    expect(reveal.status).toBe(200);
    expect(reveal.body.roundStatus).toBe('active');
    expect(reveal.body.balance).toBe(48);
    expect(w.casino.requests().length).toBe(requestsBefore);
    // a reloaded iframe (another session of the player) also sees it
    const other = await w.newSession(p, { gameType: 'mines', launchMode: 'single' });
    const cash = await w.call('POST', `/api/mines/rounds/${start.body.roundId}/cashout`, { sessionId: other.sessionId, idempotencyKey: newKey() });
    expect(cash.status).toBe(200);
    expect(cash.body.balance).toBe(Number(w.balance(p)) / 100);
    // a GET omits it
    expect((await w.call('GET', `/api/mines/rounds/${start.body.roundId}?sessionId=${p.sessionId}`)).body.balance).toBeUndefined();
  });

  it('Blackjack: hit and stand (no wallet call) answer the balance', async () => {
    const p = await w.player('bal-bj', { operatorId: 'op-usd', balance: '50', gameType: 'blackjack', launchMode: 'single' });
    // play rounds until one stays active after the deal, then act on it
    for (let i = 0; i < 30; i++) {
      const start = await w.call('POST', '/api/blackjack/rounds', { sessionId: p.sessionId, amount: 1, idempotencyKey: newKey() });
      expect(start.status).toBe(200);
      expect(typeof start.body.balance).toBe('number');
      if (start.body.roundStatus !== 'active') continue;
      const result = start.body.result as { actions: string[] };
      const action = result.actions.includes('insurance') ? null : 'stand';
      const res = action
        ? await w.call('POST', `/api/blackjack/rounds/${start.body.roundId}/${action}`, { sessionId: p.sessionId, idempotencyKey: newKey() })
        : await w.call('POST', `/api/blackjack/rounds/${start.body.roundId}/insurance`, {
            sessionId: p.sessionId,
            idempotencyKey: newKey(),
            takeInsurance: false,
          });
      expect(res.status).toBe(200);
      expect(res.body.balance).toBe(Number(w.balance(p)) / 100);
      if (res.body.roundStatus === 'active') {
        const more = await w.call('POST', `/api/blackjack/rounds/${start.body.roundId}/stand`, { sessionId: p.sessionId, idempotencyKey: newKey() });
        expect(more.body.balance).toBe(Number(w.balance(p)) / 100);
      }
      return;
    }
    throw new Error('no Blackjack round stayed active in 30 deals');
  });
});

describe('a key that reached the wallet answers with its round, whatever changed since (CONTRACT.md §13)', () => {
  it('a settled bet replays after its game was disabled and while the wallet circuit is open', async () => {
    const p = await w.player('keys-1', { operatorId: 'op-keys' });
    const key = newKey('settled');
    const first = await w.bet(p, 'dice', 1, { target: 50, direction: 'over' }, key);
    expect(first.status).toBe(200);
    expect((await put('op-keys', { currency: 'USD', enabledGames: ['limbo'] })).status).toBe(200);
    const again = await w.bet(p, 'dice', 1, { target: 50, direction: 'over' }, key);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await w.bet(p, 'dice', 1, { target: 50, direction: 'over' })).body.code).toBe('GAME_DISABLED');
    expect((await put('op-keys', { currency: 'USD' })).status).toBe(200);

    // open the circuit: no wallet path answers
    w.casino.setFaults([{ path: '*', kind: 'status', status: 503 }]);
    for (let i = 0; i < 4; i++) await w.bet(p, 'dice', 1, { target: 50, direction: 'over' });
    w.casino.clearFaults();
    expect(w.t.services.wallet.circuitOpen('op-keys')).toBe(true);
    const fresh = await w.bet(p, 'dice', 1, { target: 50, direction: 'over' });
    expect(fresh.body.code).toBe('CASINO_NETWORK_ERROR');
    const replay = await w.bet(p, 'dice', 1, { target: 50, direction: 'over' }, key);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
  });

  it('an action on a round that is no longer active answers ROUND_NOT_ACTIVE with the round id and status', async () => {
    const p = await w.player('keys-2', { operatorId: 'op-usd', gameType: 'mines', launchMode: 'single' });
    const start = await w.call('POST', '/api/mines/rounds', { sessionId: p.sessionId, amount: 1, idempotencyKey: newKey(), mineCount: 24 });
    const row = await w.t.services.db('rounds').where({ round_id: start.body.roundId }).first();
    const state = typeof row.state === 'string' ? JSON.parse(row.state) : row.state;
    const mine = state.mines[0] as number;
    const bust = await w.call('POST', `/api/mines/rounds/${start.body.roundId}/reveal`, { sessionId: p.sessionId, tile: mine, idempotencyKey: newKey() });
    expect(bust.body.roundStatus).toBe('busted');
    const late = await w.call('POST', `/api/mines/rounds/${start.body.roundId}/cashout`, { sessionId: p.sessionId, idempotencyKey: newKey() });
    expect(late.status).toBe(400);
    expect(late.body).toMatchObject({ code: 'ROUND_NOT_ACTIVE', roundId: start.body.roundId, roundStatus: 'busted' });
  });

  it('a second open round is ACTIVE_ROUND_EXISTS naming the open round', async () => {
    const p = await w.player('keys-3', { operatorId: 'op-usd', gameType: 'mines', launchMode: 'single' });
    const open = await w.call('POST', '/api/mines/rounds', { sessionId: p.sessionId, amount: 1, idempotencyKey: newKey() });
    const second = await w.call('POST', '/api/mines/rounds', { sessionId: p.sessionId, amount: 1, idempotencyKey: newKey() });
    expect(second.status).toBe(400);
    expect(second.body).toMatchObject({ code: 'ACTIVE_ROUND_EXISTS', roundId: open.body.roundId, roundStatus: 'active' });
  });
});

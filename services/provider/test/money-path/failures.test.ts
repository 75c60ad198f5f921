/**
 * SPEC.md "States and transitions", endpoint rule 2, "Limits" (callback timeout, one retry);
 * CONTRACT.md §4 and §11: what the service does when the casino refuses, is slow, fails or drops
 * a callback. The reference casino injects the faults; the callback timeout is 300 ms here.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newKey, startWorld, type Player, type World } from '../helpers/casino.js';
import { latestBalance } from '../../src/rounds/round-store/reads.js';

let w: World;
let p: Player;
beforeAll(async () => {
  w = await startWorld([{ operatorId: 'op-fail', minBet: 0.1, stakeStep: 0.01, maxPayout: 100_000 }, { operatorId: 'op-circuit' }], {
    env: { CALLBACK_TIMEOUT_MS: '300' },
  });
  p = await w.player('fail-1', { balance: '1000' });
});
afterEach(() => w.casino.clearFaults());
afterAll(async () => w?.close());

type Audit = { path: string; idempotencyKey: string; attemptCount: number; statusCode: number | null; callbackStatus: string; errorMessage: string | null };
const auditOf = async (roundId: string) => (await w.round(roundId)).body.casinoCallbackAudit as Audit[];
const rollbackRequests = (roundId: string) => w.requestsOf(`${roundId}:debit:rollback`);

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(20);
  }
}

describe('settlement fails after a successful debit (endpoint rule 2)', () => {
  it('dice target 99 over is debited, refused INVALID_GAME_PARAMS with roundId and roundStatus cancelled, and rolled back', async () => {
    const before = w.balance(p);
    const key = newKey();
    const res = await w.bet(p, 'dice', 3, { target: 99, direction: 'over' }, key);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_GAME_PARAMS', roundStatus: 'cancelled', roundId: expect.any(String) });
    const roundId = res.body.roundId!;
    const ledger = w.ledger(roundId);
    expect(ledger.map((tx) => [tx.type, tx.amount, tx.idempotencyKey])).toEqual([
      ['debit', 300n, `${roundId}:debit`],
      ['rollback', 300n, `${roundId}:debit:rollback`],
    ]);
    expect(w.balance(p)).toBe(before);

    const stored = await w.round(roundId);
    expect(stored.body).toMatchObject({
      roundId,
      roundStatus: 'cancelled',
      casinoTransactions: { debit: ledger[0]!.casinoTransactionId, rollback: ledger[1]!.casinoTransactionId, credit: null },
    });
    expect((stored.body.casinoCallbackAudit as Audit[]).map((a) => [a.idempotencyKey, a.callbackStatus])).toEqual([
      [`${roundId}:debit`, 'succeeded'],
      [`${roundId}:debit:rollback`, 'succeeded'],
    ]);
    // the key now answers that error, without another callback
    const mark = w.casino.requests().length;
    const again = await w.bet(p, 'dice', 3, { target: 99, direction: 'over' }, key);
    expect(again.body).toMatchObject({ code: 'INVALID_GAME_PARAMS', roundId, roundStatus: 'cancelled' });
    expect(w.casino.requests().length).toBe(mark);
  });
});

describe('the casino refuses the debit (4xx): the round ends error, no rollback', () => {
  it('INSUFFICIENT_FUNDS passes through as a 400 with the round', async () => {
    const poor = await w.player('fail-poor', { balance: '5' });
    const res = await w.bet(poor, 'dice', 10, { target: 50, direction: 'over' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INSUFFICIENT_FUNDS', roundStatus: 'error' });
    const roundId = res.body.roundId!;
    expect(w.ledger(roundId)).toEqual([]);
    expect(rollbackRequests(roundId)).toEqual([]);
    expect(w.balance(poor)).toBe(500n);
    expect(await auditOf(roundId)).toMatchObject([{ idempotencyKey: `${roundId}:debit`, statusCode: 400, callbackStatus: 'failed', attemptCount: 1 }]);
    expect(await w.dbRound(roundId)).toMatchObject({ status: 'error' });
  });

  it('any other refusal code is CASINO_HTTP_ERROR carrying casinoCode', async () => {
    w.casino.setFaults([{ path: '/wallet/debit', kind: 'refuse', code: 'RESPONSIBLE_GAMING_LIMIT', status: 403, times: 1 }]);
    const res = await w.bet(p, 'limbo', 1, { target: 2 });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'CASINO_HTTP_ERROR', casinoCode: 'RESPONSIBLE_GAMING_LIMIT', roundStatus: 'error' });
    expect(w.requestsOf(`${res.body.roundId}:debit`)).toHaveLength(1);
    expect(rollbackRequests(res.body.roundId!)).toEqual([]);
  });
});

describe('the debit gets no positive answer: it is ambiguous and rolled back', () => {
  it('a debit past CALLBACK_TIMEOUT_MS (both attempts) is 504 CASINO_TIMEOUT; the rollback is sent, the round cancelled, the balance unchanged, and the late debit refused', async () => {
    const before = w.balance(p);
    // both attempts land long after their timeouts and the rollback (room for a busy machine)
    w.casino.setFaults([{ path: '/wallet/debit', kind: 'delay', ms: 2000, times: 2 }]);
    const res = await w.bet(p, 'dice', 4, { target: 50, direction: 'over' });
    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ code: 'CASINO_TIMEOUT', roundStatus: 'cancelled' });
    const roundId = res.body.roundId!;
    expect(rollbackRequests(roundId).map((r) => r.status)).toEqual([200]);
    // the two delayed debits wake after their rollback: the casino refuses them
    await until(() => w.requestsOf(`${roundId}:debit`).length === 2);
    expect(w.requestsOf(`${roundId}:debit`).map((r) => [r.status, r.code])).toEqual([
      [400, 'DEBIT_ROLLED_BACK'],
      [400, 'DEBIT_ROLLED_BACK'],
    ]);
    expect(w.ledger(roundId).map((tx) => [tx.type, tx.amount])).toEqual([['rollback', 0n]]);
    expect(w.balance(p)).toBe(before);
    const audit = await auditOf(roundId);
    expect(audit[0]).toMatchObject({ idempotencyKey: `${roundId}:debit`, attemptCount: 2, statusCode: null, callbackStatus: 'failed' });
    expect(audit[1]).toMatchObject({ idempotencyKey: `${roundId}:debit:rollback`, callbackStatus: 'succeeded' });
    expect((await w.round(roundId)).body.roundStatus).toBe('cancelled');
  });

  it('HTTP 5xx on both attempts is CASINO_HTTP_RETRYABLE; rolled back', async () => {
    w.casino.setFaults([{ path: '/wallet/debit', kind: 'status', status: 503, times: 2 }]);
    const res = await w.bet(p, 'plinko', 1, { rows: 8 });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'CASINO_HTTP_RETRYABLE', roundStatus: 'cancelled' });
    const roundId = res.body.roundId!;
    expect(w.requestsOf(`${roundId}:debit`).map((r) => r.status)).toEqual([503, 503]);
    expect(w.ledger(roundId).map((tx) => [tx.type, tx.amount])).toEqual([['rollback', 0n]]);
  });

  it('HTTP 429 then success: the retry with the same key settles the bet (attemptCount 2)', async () => {
    w.casino.setFaults([{ path: '/wallet/debit', kind: 'status', status: 429, times: 1 }]);
    const res = await w.bet(p, 'keno', 1, { picks: [5, 6, 7] });
    expect(res.status, res.text).toBe(200);
    const roundId = res.body.roundId!;
    expect(w.requestsOf(`${roundId}:debit`).map((r) => r.status)).toEqual([429, 200]);
    expect((await auditOf(roundId))[0]).toMatchObject({ idempotencyKey: `${roundId}:debit`, attemptCount: 2, statusCode: 200, callbackStatus: 'succeeded' });
  });

  it('one HTTP 500 then OK: success with attemptCount 2 and the same key', async () => {
    w.casino.setFaults([{ path: '/wallet/debit', kind: 'status', status: 500, times: 1 }]);
    const res = await w.bet(p, 'dice', 1, { target: 20, direction: 'over' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.roundStatus).toBe('settled');
    const roundId = res.body.roundId!;
    expect(w.requestsOf(`${roundId}:debit`).map((r) => r.status)).toEqual([500, 200]);
    expect((await auditOf(roundId))[0]).toMatchObject({ attemptCount: 2, callbackStatus: 'succeeded' });
    expect(w.ledger(roundId).filter((tx) => tx.type === 'debit')).toHaveLength(1);
  });

  it('a dropped connection (both attempts) is CASINO_NETWORK_ERROR; rolled back', async () => {
    w.casino.setFaults([{ path: '/wallet/debit', kind: 'drop', times: 2 }]);
    const res = await w.bet(p, 'limbo', 1, { target: 3 });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'CASINO_NETWORK_ERROR', roundStatus: 'cancelled' });
    expect(w.requestsOf(`${res.body.roundId}:debit`).map((r) => r.status)).toEqual([null, null]);
    expect((await auditOf(res.body.roundId!))[0]).toMatchObject({ statusCode: null, callbackStatus: 'failed', attemptCount: 2 });
  });

  it('an applied debit answered with 500 (both attempts) is rolled back and the balance restored', async () => {
    const before = w.balance(p);
    w.casino.setFaults([{ path: '/wallet/debit', kind: 'ambiguous', times: 2 }]);
    const res = await w.bet(p, 'dice', 7, { target: 50, direction: 'under' });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'CASINO_HTTP_RETRYABLE', roundStatus: 'cancelled' });
    const roundId = res.body.roundId!;
    expect(w.ledger(roundId).map((tx) => [tx.type, tx.amount])).toEqual([
      ['debit', 700n],
      ['rollback', 700n],
    ]);
    expect(w.balance(p)).toBe(before);
  });

  it('an applied debit whose answer was lost once is confirmed by the retry (the casino replays it), debited once', async () => {
    w.casino.setFaults([{ path: '/wallet/debit', kind: 'ambiguous', mode: 'drop', times: 1 }]);
    const res = await w.bet(p, 'dice', 2, { target: 50, direction: 'under' });
    expect(res.status, res.text).toBe(200);
    expect(w.ledger(res.body.roundId!).map((tx) => tx.type)).toEqual(['debit', 'credit']);
  });

  it('a refusal of the retry after an applied-but-unanswered first attempt is rolled back, not taken as "nothing was debited"', async () => {
    const before = w.balance(p);
    w.casino.setFaults([
      { path: '/wallet/debit', kind: 'ambiguous', times: 1 },
      { path: '/wallet/debit', kind: 'refuse', code: 'RESPONSIBLE_GAMING_LIMIT', times: 1 },
    ]);
    const res = await w.bet(p, 'dice', 6, { target: 50, direction: 'over' });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'CASINO_HTTP_ERROR', casinoCode: 'RESPONSIBLE_GAMING_LIMIT', roundStatus: 'cancelled' });
    const roundId = res.body.roundId!;
    expect(w.ledger(roundId).map((tx) => [tx.type, tx.amount])).toEqual([
      ['debit', 600n],
      ['rollback', 600n],
    ]);
    expect(w.balance(p)).toBe(before);
  });

  it('a refusal of the retry while the timed-out first attempt is still in flight is rolled back; the late debit is refused', async () => {
    const before = w.balance(p);
    w.casino.setFaults([
      // the first attempt lands long after its timeout, its retry and the rollback (room for a busy machine)
      { path: '/wallet/debit', kind: 'delay', ms: 2000, times: 1 },
      { path: '/wallet/debit', kind: 'refuse', code: 'INSUFFICIENT_FUNDS', times: 1 },
    ]);
    const res = await w.bet(p, 'limbo', 2, { target: 2 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INSUFFICIENT_FUNDS', roundStatus: 'cancelled' });
    const roundId = res.body.roundId!;
    await until(() => w.requestsOf(`${roundId}:debit`).length === 2);
    expect(w.requestsOf(`${roundId}:debit`).map((r) => r.code)).toEqual(['INSUFFICIENT_FUNDS', 'DEBIT_ROLLED_BACK']);
    expect(w.ledger(roundId).map((tx) => [tx.type, tx.amount])).toEqual([['rollback', 0n]]);
    expect(w.balance(p)).toBe(before);
  });

  it('a 409 answer to a debit is treated as ambiguous and rolled back, never as a refusal', async () => {
    w.casino.setFaults([{ path: '/wallet/debit', kind: 'refuse', status: 409, code: 'IDEMPOTENCY_CONFLICT', times: 1 }]);
    const res = await w.bet(p, 'dice', 1, { target: 50, direction: 'under' });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'CASINO_HTTP_ERROR', roundStatus: 'cancelled' });
    expect(rollbackRequests(res.body.roundId!).map((r) => r.status)).toEqual([200]);
  });
});

describe('credits and rollbacks are retried with the same key until the casino confirms', () => {
  it('a credit without a positive answer still answers 200 with the result and roundStatus credit_pending; the cron route settles it', async () => {
    const before = w.balance(p);
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503, times: 2 }]);
    const key = newKey();
    const res = await w.bet(p, 'dice', 5, { target: 10, direction: 'over' }, key);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ roundStatus: 'credit_pending', result: { roll: expect.any(Number) } });
    const roundId = res.body.roundId!;
    const payout = BigInt(Math.round((res.body.bet as { payout: number }).payout * 100));
    expect(w.ledger(roundId).map((tx) => tx.type)).toEqual(['debit']);
    expect((await auditOf(roundId))[1]).toMatchObject({ idempotencyKey: `${roundId}:credit`, attemptCount: 2, callbackStatus: 'pending', statusCode: 503 });
    // the key answers the round as it is now
    expect((await w.bet(p, 'dice', 5, { target: 10, direction: 'over' }, key)).body.roundStatus).toBe('credit_pending');
    // the player's latest balance is the debit's: the statement that stored the credit's answer (it carried
    // none) kept it in the round (one balance write per bet, settled-bet.ts)
    const stored0 = () => latestBalance(w.t.services.db, 'op-fail', 'fail-1', 'USD');
    expect(await stored0()).toBe(before - 500n);

    const cron = await w.cron('limit=10');
    expect(cron.status).toBe(200);
    expect(cron.body.items).toContainEqual({ roundId, operation: 'credit', outcome: 'succeeded' });
    expect(w.requestsOf(`${roundId}:credit`).map((r) => r.status)).toEqual([503, 503, 200]);
    expect(w.ledger(roundId).map((tx) => [tx.type, tx.amount])).toEqual([
      ['debit', 500n],
      ['credit', payout],
    ]);
    expect(w.balance(p)).toBe(before - 500n + payout);
    // the retry job's credit answered the newest balance (the player's row, newer than the round's)
    expect(await stored0()).toBe(before - 500n + payout);
    const stored = await w.round(roundId);
    expect(stored.body.roundStatus).toBe('settled');
    expect((stored.body.casinoCallbackAudit as Audit[])[1]).toMatchObject({ attemptCount: 3, callbackStatus: 'succeeded' });
    const replay = await w.bet(p, 'dice', 5, { target: 10, direction: 'over' }, key);
    expect(replay.body).toMatchObject({ roundId, roundStatus: 'settled' });
    // a second cron run finds nothing to do for it
    expect(((await w.cron('limit=10')).body.items as { roundId: string }[]).map((i) => i.roundId)).not.toContain(roundId);
  });

  it('a credit refused by the casino (here 401) stays pending and is retried', async () => {
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'refuse', status: 401, code: 'SIGNATURE_INVALID', times: 1 }]);
    const res = await w.bet(p, 'limbo', 1, { target: 1.01 });
    expect(res.body.roundStatus).toBe('credit_pending');
    const cron = await w.cron('limit=10');
    expect(cron.body.items).toContainEqual({ roundId: res.body.roundId, operation: 'credit', outcome: 'succeeded' });
    expect(w.requestsOf(`${res.body.roundId}:credit`).map((r) => r.status)).toEqual([401, 200]);
  });

  it('a rollback without a positive answer leaves the round rollback_pending; the cron route cancels it', async () => {
    const before = w.balance(p);
    w.casino.setFaults([{ path: '/wallet/rollback', kind: 'status', status: 500, times: 2 }]);
    const key = newKey();
    const res = await w.bet(p, 'dice', 2, { target: 99, direction: 'over' }, key);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_GAME_PARAMS', roundStatus: 'rollback_pending' });
    const roundId = res.body.roundId!;
    expect(w.balance(p)).toBe(before - 200n);
    expect((await w.round(roundId)).body.roundStatus).toBe('rollback_pending');

    const cron = await w.cron('limit=10');
    expect(cron.body.items).toContainEqual({ roundId, operation: 'rollback', outcome: 'succeeded' });
    expect(rollbackRequests(roundId).map((r) => r.status)).toEqual([500, 500, 200]);
    expect(w.balance(p)).toBe(before);
    expect((await w.round(roundId)).body.roundStatus).toBe('cancelled');
    const replay = await w.bet(p, 'dice', 2, { target: 99, direction: 'over' }, key);
    expect(replay.body).toMatchObject({ code: 'INVALID_GAME_PARAMS', roundId, roundStatus: 'cancelled' });
  });

  it('an ambiguous debit whose rollback also fails is rollback_pending, then cancelled by the cron route; the balance ends where it started', async () => {
    const before = w.balance(p);
    w.casino.setFaults([
      { path: '/wallet/debit', kind: 'ambiguous', mode: 'drop', times: 2 },
      { path: '/wallet/rollback', kind: 'drop', times: 1 },
      { path: '/wallet/rollback', kind: 'status', status: 502, times: 1 },
    ]);
    const res = await w.bet(p, 'keno', 3, { picks: [10, 20, 30] });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'CASINO_NETWORK_ERROR', roundStatus: 'rollback_pending' });
    const roundId = res.body.roundId!;
    expect(w.balance(p)).toBe(before - 300n);
    await w.cron('limit=10');
    expect(w.ledger(roundId).map((tx) => [tx.type, tx.amount])).toEqual([
      ['debit', 300n],
      ['rollback', 300n],
    ]);
    expect(w.balance(p)).toBe(before);
    expect(await w.dbRound(roundId)).toMatchObject({ status: 'cancelled' });
  });
});

describe('the wallet circuit of an operator (wallet-client.ts)', () => {
  it('after five unanswered attempts in a row new bets and sessions are refused before any money moves, while rollbacks are still sent', async () => {
    const c = await w.player('circuit-1', { operatorId: 'op-circuit' });
    w.casino.setFaults([{ path: '*', operatorId: 'op-circuit', kind: 'drop' }]);
    const first = await w.bet(c, 'dice', 1, { target: 50, direction: 'over' });
    expect(first.body).toMatchObject({ code: 'CASINO_NETWORK_ERROR', roundStatus: 'rollback_pending' }); // 4 attempts without an answer
    const second = await w.bet(c, 'dice', 1, { target: 50, direction: 'over' });
    expect(second.body).toMatchObject({ code: 'CASINO_NETWORK_ERROR', roundStatus: 'rollback_pending' });
    w.casino.clearFaults();

    const mark = w.casino.requests().length;
    const refused = await w.bet(c, 'dice', 1, { target: 50, direction: 'over' });
    expect(refused.status).toBe(502);
    expect(refused.body.code).toBe('CASINO_NETWORK_ERROR');
    expect(refused.body).not.toHaveProperty('roundId');
    const session = await w.call('POST', '/api/sessions', { operatorId: 'op-circuit', launchToken: c.launchToken, launchMode: 'lobby' });
    expect(session.body.code).toBe('CASINO_NETWORK_ERROR');
    expect(w.casino.requests().length).toBe(mark);
    expect((await w.call('GET', '/ready?operatorId=op-circuit')).status).toBe(503);

    const cron = await w.cron('operatorId=op-circuit');
    expect(cron.body.items).toEqual(
      expect.arrayContaining([
        { roundId: first.body.roundId, operation: 'rollback', outcome: 'succeeded' },
        { roundId: second.body.roundId, operation: 'rollback', outcome: 'succeeded' },
      ]),
    );
    expect(w.balance(c)).toBe(100_000n);
    // a confirmed answer closes the circuit again
    expect((await w.bet(c, 'dice', 1, { target: 50, direction: 'over' })).status).toBe(200);
  });
});

describe("the player's latest balance (CONTRACT.md §12)", () => {
  it("an instant bet keeps its balance in its round; a Mines answer that moved no money shows the newest of the player's row and that", async () => {
    const player = await w.player('fail-balance', { balance: '50' });
    const db = w.t.services.db;
    const row = () => db('player_balances').where({ operator_id: 'op-fail', player_ref: 'fail-balance' }).first('balance');
    expect(await row()).toEqual({ balance: '5000' }); // the launch wrote it
    // a Mines round's debit answer goes to the player's row
    const start = await w.call('POST', '/api/mines/rounds', { sessionId: player.sessionId, amount: 1, mineCount: 3, idempotencyKey: newKey('m') });
    expect(start.status, start.text).toBe(200);
    expect(await row()).toEqual({ balance: '4900' });
    // a dice bet meanwhile: its credit's balance stays in its round (the player's row is not written)
    const dice = await w.bet(player, 'dice', 1, { target: 50, direction: 'over' });
    expect(dice.body.roundStatus).toBe('settled');
    expect(await row()).toEqual({ balance: '4900' });
    expect(await latestBalance(db, 'op-fail', 'fail-balance', 'USD')).toBe(w.balance(player));
    // a safe reveal moves no money and answers the newest balance: the dice bet's
    const roundId = start.body.roundId!;
    const state = (await db('rounds').where({ round_id: roundId }).first('state')) as { state: { mines: number[] } };
    const tile = Array.from({ length: 25 }, (_, i) => i).find((i) => !state.state.mines.includes(i))!;
    const rev = await w.call('POST', `/api/mines/rounds/${roundId}/reveal`, { sessionId: player.sessionId, tile, idempotencyKey: newKey('r') });
    expect(rev.status, rev.text).toBe(200);
    expect(BigInt(Math.round(Number(rev.body.balance) * 100))).toBe(w.balance(player));
    // a player with no row at all still has the latest bet's balance
    await db('player_balances').where({ operator_id: 'op-fail', player_ref: 'fail-balance' }).del();
    expect(await latestBalance(db, 'op-fail', 'fail-balance', 'USD')).toBe(w.balance(player));
  });
});

/**
 * Blackjack end to end against the reference casino over real HTTP (signed callbacks): the casino
 * ledger shows only the debits SPEC.md rule 6 allows and exactly one credit per round; refused
 * and ambiguous extra debits (CONTRACT.md §11, §13); extra debits a stopped worker left behind;
 * abandoned rounds; duplicates and concurrency across two app instances.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dealerHasBlackjack, playerHasBlackjack } from '@gp/game-core/games';
import { claimKey, requestHash } from '../../src/rounds/idempotency.js';
import { operatorFor } from '../../src/rounds/money-path/callbacks.js';
import { exactBody } from '../../src/rounds/money-path/callback-bytes.js';
import { recordExtraDebit } from '../../src/rounds/money-path/extra-debits.js';
import { getRound } from '../../src/rounds/round-store/reads.js';
import { updateRound } from '../../src/rounds/round-store/writes.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startWorld, type Player, type World } from '../helpers/casino.js';
import { act, clientSeedFor, cron, get, insurance, key, ok, scripted, start } from './helpers.js';

const OP = 'bj-casino-usd';
let w: World;
let t: TestApp;
beforeAll(async () => {
  w = await startWorld([{ operatorId: OP, minBet: 0.01, stakeStep: 0.01, maxPayout: 10_000 }]);
  t = w.t;
});
afterAll(async () => w?.close());

/** The casino's ledger of a round as [type, key suffix, amount in cents]. */
const money = (roundId: string) => w.ledger(roundId).map((tx) => [tx.type, tx.idempotencyKey.slice(roundId.length), Number(tx.amount)]);

/** Only debits SPEC.md rule 6 allows (start, insurance, split, doubles), exactly one credit of the round's payout. */
async function expectOneCredit(roundId: string) {
  const ledger = w.ledger(roundId);
  for (const tx of ledger.filter((x) => x.type === 'debit')) {
    expect([':debit', ':insurance', ':split', ':double:0', ':double:1']).toContain(tx.idempotencyKey.slice(roundId.length));
  }
  const credits = ledger.filter((x) => x.type === 'credit');
  expect(credits).toHaveLength(1);
  const row = await t.services.db('rounds').where({ round_id: roundId }).first();
  expect(row.status).toBe('settled');
  expect(credits[0]!.amount).toBe(BigInt(String(row.payout)));
  const refunded = ledger.filter((x) => x.type === 'rollback').reduce((a, x) => a + x.amount, 0n);
  const debited = ledger.filter((x) => x.type === 'debit').reduce((a, x) => a + x.amount, 0n);
  expect(debited - refunded).toBe(BigInt(String(row.total_staked)));
}

async function newPlayer(ref: string, balance = '100'): Promise<Player> {
  return w.player(ref, { operatorId: OP, balance, gameType: 'blackjack' });
}

describe('end to end against the reference casino', () => {
  it('plays rounds with every kind of debit; the ledger and the balance add up', async () => {
    const p = await newPlayer('bj-e2e');
    const start0 = w.balance(p);
    const rounds: string[] = [];

    // double (win 4.00 on 2.00)
    let id = await scripted(t, p.sessionId, ['5S', '6D', '9H', '7C', '10D', '2C']);
    expect((await ok(act(t, p.sessionId, id, 'double'))).bet).toMatchObject({ totalStaked: 2, payout: 4 });
    expect(money(id)).toEqual([
      ['debit', ':debit', 100],
      ['debit', ':double:0', 100],
      ['credit', ':credit', 400],
    ]);
    rounds.push(id);

    // split eights, hit and stand (one wins, one loses)
    id = await scripted(t, p.sessionId, ['8S', '8D', '10H', '7C', '3C', '10S', '9D']);
    await ok(act(t, p.sessionId, id, 'split'));
    await ok(act(t, p.sessionId, id, 'stand'));
    const split = await ok(act(t, p.sessionId, id, 'stand'));
    expect(split.result.hands.map((h: { outcome: string }) => h.outcome)).toEqual(['lose', 'win']);
    expect(money(id)).toEqual([
      ['debit', ':debit', 100],
      ['debit', ':split', 100],
      ['credit', ':credit', 200],
    ]);
    rounds.push(id);

    // insurance taken and won against a dealer natural
    id = await scripted(t, p.sessionId, ['10S', '9D', 'AH', 'KC']);
    expect((await ok(insurance(t, p.sessionId, id, true))).bet).toMatchObject({ totalStaked: 1.5, payout: 1.5 });
    expect(money(id)).toEqual([
      ['debit', ':debit', 100],
      ['debit', ':insurance', 50],
      ['credit', ':credit', 150],
    ]);
    rounds.push(id);

    // bust: a zero credit
    id = await scripted(t, p.sessionId, ['10S', '6D', '9H', '5C', 'KD']);
    expect((await ok(act(t, p.sessionId, id, 'hit'))).bet.payout).toBe(0);
    expect(money(id)).toEqual([
      ['debit', ':debit', 100],
      ['credit', ':credit', 0],
    ]);
    rounds.push(id);

    // a natural settled at the start
    const clientSeed = await clientSeedFor(t, OP, p.playerRef, 100n, (s) => playerHasBlackjack(s) && !dealerHasBlackjack(s) && !s.insurance.offered);
    const natural = await ok(start(t, p.sessionId, { clientSeed }));
    expect(natural.roundStatus).toBe('settled');
    expect(natural.balance).toBe(Number(w.balance(p)) / 100);
    rounds.push(natural.roundId);
    expect(money(natural.roundId)).toEqual([
      ['debit', ':debit', 100],
      ['credit', ':credit', 250],
    ]);

    for (const r of rounds) await expectOneCredit(r);
    // Every round opened by scripted() that settled at once also counts: compare with all of the player's rounds.
    const all = await t.services.db('rounds').where({ player_ref: p.playerRef, operator_id: OP });
    for (const r of all) await expectOneCredit(r.round_id);
    const net = all.reduce((a: bigint, r: { payout: string; total_staked: string }) => a + BigInt(String(r.payout)) - BigInt(String(r.total_staked)), 0n);
    expect(w.balance(p)).toBe(start0 + net);
    // the audit trail of GET /api/bets shows every callback, launch tokens masked
    const audit = (await ok(get(t, `/api/bets/${rounds[0]}`))).casinoCallbackAudit;
    expect(audit.map((a: { idempotencyKey: string }) => a.idempotencyKey.slice(rounds[0]!.length))).toEqual([':debit', ':double:0', ':credit']);
    expect(JSON.stringify(audit)).not.toContain(p.launchToken);
  });
});

describe('extra debits the casino does not confirm', () => {
  it('a refused double leaves the round as it was but for the double, withdrawn; its key replays the error; the round settles with one credit', async () => {
    const p = await newPlayer('bj-refused');
    const id = await scripted(t, p.sessionId, ['5S', '6D', '9H', '7C', '10D', '2C']);
    const before = await ok(get(t, `/api/blackjack/rounds/${id}?sessionId=${p.sessionId}`));
    w.casino.setFaults([{ path: '/wallet/debit', kind: 'refuse', code: 'INSUFFICIENT_FUNDS', times: 1 }]);
    const k = key('double');
    const refused = await act(t, p.sessionId, id, 'double', k);
    w.casino.clearFaults();
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'INSUFFICIENT_FUNDS', roundId: id, roundStatus: 'active' });
    const after = await ok(get(t, `/api/blackjack/rounds/${id}?sessionId=${p.sessionId}`));
    // The double's wallet key is spent: the action is withdrawn instead of offered again (DECISIONS.md).
    expect(before.result.actions).toContain('double');
    expect(after.result).toEqual({ ...before.result, actions: before.result.actions.filter((a: string) => a !== 'double'), withdrawnActions: ['double'] });
    expect(after.bet).toEqual(before.bet);
    expect(after.roundStatus).toBe('active');
    // the key replays the error, without a new casino request
    const replay = await act(t, p.sessionId, id, 'double', k);
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toEqual(refused.json());
    expect(w.requestsOf(`${id}:double:0`)).toHaveLength(1);
    // the extra debit key is used once: a new attempt (a new request key) is refused before any wallet call
    expect((await act(t, p.sessionId, id, 'double')).json()).toMatchObject({ code: 'ACTION_NOT_AVAILABLE' });
    expect(w.requestsOf(`${id}:double:0`)).toHaveLength(1);
    const done = await ok(act(t, p.sessionId, id, 'hit'));
    expect(done.result.hands[0]).toMatchObject({ cards: ['5S', '6D', '10D'], value: 21, bet: 1, outcome: 'win' });
    expect(done.roundStatus).toBe('settled');
    expect(money(id)).toEqual([
      ['debit', ':debit', 100],
      ['credit', ':credit', 200],
    ]);
    await expectOneCredit(id);
  });

  it('an ambiguous double is rolled back with its own key and the action refused; the round goes on', async () => {
    const p = await newPlayer('bj-ambiguous');
    const id = await scripted(t, p.sessionId, ['5S', '6D', '9H', '7C', '10D', '2C']);
    const balance = w.balance(p);
    w.casino.setFaults([{ path: '/wallet/debit', kind: 'ambiguous', status: 500, times: 2 }]);
    const res = await act(t, p.sessionId, id, 'double');
    w.casino.clearFaults();
    expect(res.json()).toMatchObject({ code: 'CASINO_HTTP_RETRYABLE', roundId: id, roundStatus: 'active' });
    expect(money(id)).toEqual([
      ['debit', ':debit', 100],
      ['debit', ':double:0', 100],
      ['rollback', ':double:0:rollback', 100],
    ]);
    expect(w.balance(p)).toBe(balance);
    const round = await ok(get(t, `/api/blackjack/rounds/${id}?sessionId=${p.sessionId}`));
    expect(round.result.hands[0]).toMatchObject({ cards: ['5S', '6D'], doubled: false });
    expect(round.result.actions).toEqual(['hit', 'stand']);
    expect(round.result.withdrawnActions).toEqual(['double']);
    expect(round.bet.totalStaked).toBe(1);
    expect(round.casinoTransactions.extraDebits).toEqual([]);
    await ok(act(t, p.sessionId, id, 'stand'));
    await expectOneCredit(id);
  });

  it('an insurance rollback the casino does not confirm is retried by the cron job until it succeeds', async () => {
    const p = await newPlayer('bj-rollback-pending');
    const id = await scripted(t, p.sessionId, ['10S', '9D', 'AH', '7C']);
    w.casino.setFaults([
      { path: '/wallet/debit', kind: 'ambiguous', status: 500, times: 2 },
      { path: '/wallet/rollback', kind: 'status', status: 503, times: 2 },
    ]);
    const res = await insurance(t, p.sessionId, id, true);
    w.casino.clearFaults();
    expect(res.json()).toMatchObject({ code: 'CASINO_HTTP_RETRYABLE', roundId: id, roundStatus: 'active' });
    const pending = await t.services
      .db('wallet_callbacks')
      .where({ idempotency_key: `${id}:insurance:rollback` })
      .first();
    expect(pending.callback_status).toBe('pending');
    // taking it is withdrawn (its wallet key is spent); the decision stays, and declining is free
    const offered = await ok(get(t, `/api/blackjack/rounds/${id}?sessionId=${p.sessionId}`));
    expect(offered.result).toMatchObject({ actions: ['insurance'], withdrawnActions: ['insurance'], insurance: { offered: true, taken: null } });
    expect((await insurance(t, p.sessionId, id, true)).json()).toMatchObject({ code: 'ACTION_NOT_AVAILABLE' });
    await ok(insurance(t, p.sessionId, id, false));
    const sweep = await ok(cron(t, `operatorId=${OP}`));
    expect(sweep.items).toContainEqual({ roundId: id, operation: 'rollback', outcome: 'succeeded' });
    expect(money(id)).toEqual([
      ['debit', ':debit', 100],
      ['debit', ':insurance', 50],
      ['rollback', ':insurance:rollback', 50],
    ]);
    await ok(act(t, p.sessionId, id, 'stand'));
    await expectOneCredit(id);
  });
});

describe('a worker that stops in the middle of an extra debit', () => {
  /** What a worker leaves behind when it stops right after recording a double (its lease already run out). */
  async function strandedDouble(p: Player, roundId: string, actionKey: string, opts: { send: boolean }) {
    const deps = t.services.money;
    const round = (await getRound(t.services.db, roundId))!;
    const operator = await operatorFor(deps, round.operatorId);
    const debit = await t.services.db.transaction(async (tx) => {
      const leased = await updateRound(tx, roundId, 'active', { leaseUntil: new Date(Date.now() + 60_000), bumpVersion: true }, round.version);
      const cb = await recordExtraDebit(tx, deps, operator, leased!, { kind: 'double', hand: 0, amount: 100n, launchToken: p.launchToken });
      const requestHashOf = requestHash({ op: 'blackjack:action', roundId, action: 'double' });
      await claimKey(tx, { operatorId: OP, sessionId: p.sessionId, key: actionKey, requestHash: requestHashOf }, roundId);
      return cb;
    });
    // sent, but the worker stops before it stores the answer
    if (opts.send) expect((await deps.wallet.call(operator, '/wallet/debit', exactBody(deps.box, debit), debit.idempotencyKey)).kind).toBe('confirmed');
    return async function leaseRunsOut() {
      await t.services
        .db('rounds')
        .where({ round_id: roundId })
        .update({ lease_until: new Date(Date.now() - 1000) });
    };
  }

  it('a debit never answered is rolled back by the cron job; the action key answers the error', async () => {
    const p = await newPlayer('bj-crash-unsent');
    const id = await scripted(t, p.sessionId, ['5S', '6D', '9H', '7C', '10D', '2C']);
    const k = key('double');
    const leaseRunsOut = await strandedDouble(p, id, k, { send: false });
    // while the lease runs, the round is busy
    expect((await act(t, p.sessionId, id, 'stand')).json().code).toBe('IDEMPOTENCY_IN_PROGRESS');
    await leaseRunsOut();
    const sweep = await ok(cron(t, `operatorId=${OP}`));
    expect(sweep.items).toContainEqual({ roundId: id, operation: 'rollback', outcome: 'succeeded' });
    expect(
      await t.services
        .db('wallet_callbacks')
        .where({ idempotency_key: `${id}:double:0` })
        .first(),
    ).toMatchObject({ callback_status: 'failed', error_code: 'CASINO_TIMEOUT' });
    const row = await t.services.db('rounds').where({ round_id: id }).first();
    expect(row.lease_until).toBeNull();
    expect(row.status).toBe('active');
    // the casino never saw the debit: a rollback of nothing, and the key is dead
    expect(money(id)).toEqual([
      ['debit', ':debit', 100],
      ['rollback', ':double:0:rollback', 0],
    ]);
    const replay = await act(t, p.sessionId, id, 'double', k);
    expect(replay.json()).toMatchObject({ code: 'CASINO_TIMEOUT', roundId: id, roundStatus: 'active' });
    await ok(act(t, p.sessionId, id, 'stand'));
    await expectOneCredit(id);
  });

  it('a confirmed debit whose action was never applied is rolled back before the next action', async () => {
    const p = await newPlayer('bj-crash-confirmed');
    const id = await scripted(t, p.sessionId, ['5S', '6D', '9H', '7C', '10D', '2C']);
    const balance = w.balance(p);
    const k = key('double');
    const leaseRunsOut = await strandedDouble(p, id, k, { send: true });
    expect(w.balance(p)).toBe(balance - 100n);
    await leaseRunsOut();
    // the debit was sent but its answer never stored: ambiguous, rolled back; the key answers CASINO_TIMEOUT
    const replay = await act(t, p.sessionId, id, 'double', k);
    expect(replay.json()).toMatchObject({ code: 'CASINO_TIMEOUT', roundId: id, roundStatus: 'active' });
    expect(w.balance(p)).toBe(balance);
    const bet = await ok(act(t, p.sessionId, id, 'stand'));
    expect(bet.roundStatus).toBe('settled');
    // the dealer busts with the card the double would have taken: the un-doubled hand wins its stake
    expect(bet.result.hands[0]).toMatchObject({ cards: ['5S', '6D'], bet: 1, doubled: false, outcome: 'win', payout: 2 });
    expect(bet.bet).toMatchObject({ totalStaked: 1, payout: 2 });
    expect(money(id)).toEqual([
      ['debit', ':debit', 100],
      ['debit', ':double:0', 100],
      ['rollback', ':double:0:rollback', 100],
      ['credit', ':credit', 200],
    ]);
    expect(w.balance(p)).toBe(balance + 200n);
    await expectOneCredit(id);
  });
});

describe('a worker that stops after the casino confirmed an extra debit and the answer was stored', () => {
  it('the debit is rolled back and the action key answers 503 NOT_READY (never a 500); the hand plays on', async () => {
    const p = await newPlayer('bj-crash-stored');
    const id = await scripted(t, p.sessionId, ['5S', '6D', '9H', '7C', '10D', '2C']);
    const balance = w.balance(p);
    const deps = t.services.money;
    const round = (await getRound(t.services.db, id))!;
    const operator = await operatorFor(deps, round.operatorId);
    const k = key('double');
    const debit = await t.services.db.transaction(async (tx) => {
      const leased = await updateRound(tx, id, 'active', { leaseUntil: new Date(Date.now() + 60_000), bumpVersion: true }, round.version);
      const cb = await recordExtraDebit(tx, deps, operator, leased!, { kind: 'double', hand: 0, amount: 100n, launchToken: p.launchToken });
      await claimKey(
        tx,
        { operatorId: OP, sessionId: p.sessionId, key: k, requestHash: requestHash({ op: 'blackjack:action', roundId: id, action: 'double' }) },
        id,
      );
      return cb;
    });
    expect((await deps.wallet.call(operator, '/wallet/debit', exactBody(deps.box, debit), debit.idempotencyKey)).kind).toBe('confirmed');
    // the worker stored the casino's answer, then stopped before applying the double
    await t.services.db('wallet_callbacks').where({ id: debit.id }).update({ callback_status: 'succeeded', status_code: 200, attempt_count: 1 });
    await t.services
      .db('rounds')
      .where({ round_id: id })
      .update({ lease_until: new Date(Date.now() - 1000) });
    const replay = await act(t, p.sessionId, id, 'double', k);
    expect(replay.statusCode).toBe(503);
    expect(replay.json()).toMatchObject({ code: 'NOT_READY', roundId: id, roundStatus: 'active' });
    expect(w.balance(p)).toBe(balance);
    await ok(act(t, p.sessionId, id, 'stand'));
    await expectOneCredit(id);
  });
});

describe('abandoned rounds (policy stand)', () => {
  it('the cron job stands every open hand, declines a pending insurance, the dealer plays out, one credit', async () => {
    const p = await newPlayer('bj-abandoned');
    const a = await scripted(t, p.sessionId, ['10S', '9D', 'AH', '7C']);
    const leftInsurance = a;
    await t.services
      .db('rounds')
      .where({ round_id: a })
      .update({ updated_at: t.services.db.raw(`now() - interval '25 hours'`) });
    const sweep = await ok(cron(t, `operatorId=${OP}`));
    expect(sweep.items).toContainEqual({ roundId: leftInsurance, operation: 'credit', outcome: 'succeeded' });
    const bet = await ok(get(t, `/api/bets/${a}`));
    expect(bet.roundStatus).toBe('settled');
    expect(bet.result.insurance).toMatchObject({ offered: true, taken: false });
    expect(bet.result.hands[0]).toMatchObject({ cards: ['10S', '9D'], status: 'stood', outcome: 'win', payout: 2 });
    expect(bet.result.dealer.cards).toEqual(['AH', '7C']);
    await expectOneCredit(a);

    const b = await scripted(t, p.sessionId, ['8S', '8D', '10H', '7C', '3C', '10S', '9D']);
    await ok(act(t, p.sessionId, b, 'split'));
    await t.services
      .db('rounds')
      .where({ round_id: b })
      .update({ updated_at: t.services.db.raw(`now() - interval '25 hours'`) });
    await ok(cron(t, `operatorId=${OP}`));
    const split = await ok(get(t, `/api/bets/${b}`));
    expect(split.result.hands).toMatchObject([
      { cards: ['8S', '3C'], status: 'stood', outcome: 'lose' },
      { cards: ['8D', '10S'], status: 'stood', outcome: 'win' },
    ]);
    await expectOneCredit(b);
    // a second run finds nothing more to do
    const again = await ok(cron(t, `operatorId=${OP}`));
    expect(again.items.filter((i: { roundId: string }) => i.roundId === a || i.roundId === b)).toEqual([]);
  });
});

describe('two app instances (two pods) on one database and one Redis', () => {
  let t2: TestApp;
  beforeAll(async () => {
    t2 = await createTestApp({ databaseUrl: t.config.databaseUrl, redisKeyPrefix: t.config.redisKeyPrefix });
  });
  afterAll(async () => t2?.close());

  it('the same double sent to both at once is applied once; both get the same answer', async () => {
    const p = await newPlayer('bj-pods-same');
    const id = await scripted(t, p.sessionId, ['5S', '6D', '9H', '7C', '10D', '2C']);
    const k = key('double');
    const [r1, r2] = await Promise.all([act(t, p.sessionId, id, 'double', k), act(t2, p.sessionId, id, 'double', k)]);
    expect(r1.statusCode, r1.body).toBe(200);
    expect(r2.statusCode, r2.body).toBe(200);
    const { balance: _b1, ...a1 } = r1.json();
    const { balance: _b2, ...a2 } = r2.json();
    expect(a1).toEqual(a2);
    expect(w.requestsOf(`${id}:double:0`)).toHaveLength(1);
    expect(money(id).filter((m) => m[0] === 'debit')).toHaveLength(2);
    await expectOneCredit(id);
  });

  it('two different doubles at once: one debit, the other is refused', async () => {
    const p = await newPlayer('bj-pods-diff');
    const id = await scripted(t, p.sessionId, ['5S', '6D', '9H', '7C', '10D', '2C']);
    const [r1, r2] = await Promise.all([act(t, p.sessionId, id, 'double'), act(t2, p.sessionId, id, 'double')]);
    const codes = [r1, r2].map((r) => (r.statusCode === 200 ? 'ok' : r.json().code)).sort();
    expect(codes[1]).toBe('ok');
    expect(['ACTION_NOT_AVAILABLE', 'ROUND_NOT_ACTIVE', 'IDEMPOTENCY_IN_PROGRESS']).toContain(codes[0]);
    expect(money(id).filter((m) => m[0] === 'debit')).toEqual([
      ['debit', ':debit', 100],
      ['debit', ':double:0', 100],
    ]);
    await expectOneCredit(id);
  });

  it('concurrent hits with one key on both pods draw one card', async () => {
    const p = await newPlayer('bj-pods-hit');
    const id = await scripted(t, p.sessionId, ['2S', '3D', '9H', '7C', '4D', '5D']);
    const k = key('hit');
    const [r1, r2] = await Promise.all([act(t, p.sessionId, id, 'hit', k), act(t2, p.sessionId, id, 'hit', k)]);
    expect(r1.json()).toEqual(r2.json());
    expect(r1.json().result.hands[0].cards).toEqual(['2S', '3D', '4D']);
    const round = await ok(get(t2, `/api/blackjack/rounds/${id}?sessionId=${p.sessionId}`));
    expect(round.result.hands[0].cards).toEqual(['2S', '3D', '4D']);
    await ok(act(t2, p.sessionId, id, 'stand'));
    await expectOneCredit(id);
  });

  it('two starts of one player on both pods open one round', async () => {
    const p = await newPlayer('bj-pods-start');
    const [r1, r2] = await Promise.all([start(t, p.sessionId), start(t2, p.sessionId)]);
    const answers = [r1, r2].map((r) => r.json());
    const opened = answers.filter((a) => a.roundId && !a.code);
    const refused = answers.filter((a) => a.code);
    const active = opened.filter((a) => a.roundStatus === 'active');
    // at most one round is open at a time; a refused start is ACTIVE_ROUND_EXISTS
    expect(active.length).toBeLessThanOrEqual(1);
    for (const r of refused) expect(r.code).toBe('ACTIVE_ROUND_EXISTS');
    const debits = w.casino.transactions().filter((x) => x.playerRef === p.playerRef && x.type === 'debit');
    expect(debits).toHaveLength(opened.length);
  });
});

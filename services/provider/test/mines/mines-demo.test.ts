/**
 * Mines against the demo operator (sandbox wallet): SPEC.md endpoint rule 5, the Mines rows of
 * "States and transitions", CONTRACT.md §9, §10, §12, §13.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floats, hashServerSeed } from '@gp/game-core/fairness';
import { minePositions, MINES_FLOATS } from '@gp/game-core/games';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { callbacksOf, cashout, demoSession, get, key, minesOf, post, reveal, safeTilesOf, start, startOk } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const demoBalance = async (playerRef: string) => t.services.demoCasino.balanceOf('demo-usd', playerRef);

describe('a Mines round end to end (demo operator)', () => {
  it('start → reveal → reveal → cashout: one debit, no wallet movement on reveals, one credit of floor(amount × multiplier)', async () => {
    const sessionId = await demoSession(t, 'm-happy');
    const started = await startOk(t, sessionId, { amount: 2, mineCount: 3 });
    expect(started.roundStatus).toBe('active');
    expect(started.bet).toMatchObject({ gameType: 'mines', amount: 2, currency: 'USD', params: { mineCount: 3 }, multiplier: 0, payout: 0, won: false });
    expect(started.result).toEqual({ mineCount: 3, revealed: [], multiplier: 0, nextMultiplier: 1.125 });
    expect(started.balance).toBe(998);
    expect(started.casinoTransactions.debit).toBeTruthy();
    const roundId: string = started.roundId;

    const [a, b] = await safeTilesOf(t, roundId);
    const r1 = await reveal(t, sessionId, roundId, a!);
    expect(r1.statusCode, r1.body).toBe(200);
    expect(r1.json().roundStatus).toBe('active');
    expect(r1.json().result).toEqual({ mineCount: 3, revealed: [a], multiplier: 1.125, nextMultiplier: 1.2857 });
    const r2 = await reveal(t, sessionId, roundId, b!);
    expect(r2.json().result).toEqual({ mineCount: 3, revealed: [a, b], multiplier: 1.2857, nextMultiplier: 1.4785 });
    expect(await callbacksOf(t, roundId)).toEqual(['debit:200']);
    expect(await demoBalance('m-happy')).toBe(99_800n);

    const out = await cashout(t, sessionId, roundId);
    expect(out.statusCode, out.body).toBe(200);
    const final = out.json();
    expect(final.roundStatus).toBe('cashed_out');
    expect(final.bet).toMatchObject({ multiplier: 1.2857, payout: 2.57, won: true });
    expect(final.bet.settledAt).toBeTruthy();
    expect(final.result).toEqual({ mineCount: 3, revealed: [a, b], multiplier: 1.2857, nextMultiplier: null, mines: await minesOf(t, roundId) });
    expect(final.balance).toBe(1000.57);
    expect(await callbacksOf(t, roundId)).toEqual(['debit:200', 'credit:257']);
    expect(await demoBalance('m-happy')).toBe(100_057n);

    const stored = (await get(t, `/api/bets/${roundId}`)).json();
    expect(stored.roundStatus).toBe('cashed_out');
    expect(stored.casinoCallbackAudit.map((c: { path: string }) => c.path)).toEqual(['/wallet/debit', '/wallet/credit']);
  });

  it('start → a mine: busted, one credit of 0, bet.multiplier 0, every mine shown', async () => {
    const sessionId = await demoSession(t, 'm-bust');
    const { roundId } = await startOk(t, sessionId, { amount: 1, mineCount: 5 });
    const mines = await minesOf(t, roundId);
    expect(mines).toHaveLength(5);
    const res = await reveal(t, sessionId, roundId, mines[2]!);
    expect(res.statusCode, res.body).toBe(200);
    const final = res.json();
    expect(final.roundStatus).toBe('busted');
    expect(final.bet).toMatchObject({ multiplier: 0, payout: 0, won: false });
    expect(final.result).toEqual({ mineCount: 5, revealed: [mines[2]], multiplier: 0, nextMultiplier: null, mines });
    expect(final.balance).toBe(999);
    expect(await callbacksOf(t, roundId)).toEqual(['debit:100', 'credit:0']);
    const after = await reveal(t, sessionId, roundId, (await safeTilesOf(t, roundId))[0]!);
    expect(after.json()).toMatchObject({ code: 'ROUND_NOT_ACTIVE' });
  });

  it('revealing the last safe tile cashes out by itself', async () => {
    const sessionId = await demoSession(t, 'm-all-safe');
    const { roundId } = await startOk(t, sessionId, { amount: 0.01, mineCount: 23 });
    const [a, b] = await safeTilesOf(t, roundId);
    expect((await reveal(t, sessionId, roundId, a!)).json()).toMatchObject({ roundStatus: 'active', result: { multiplier: 12.375, nextMultiplier: 297 } });
    const last = (await reveal(t, sessionId, roundId, b!)).json();
    expect(last.roundStatus).toBe('cashed_out');
    expect(last.bet).toMatchObject({ multiplier: 297, payout: 2.97, won: true });
    expect(await callbacksOf(t, roundId)).toEqual(['debit:1', 'credit:297']);
  });
});

describe('one active Mines round per player', () => {
  it('a second start, from any session of the player, is ACTIVE_ROUND_EXISTS with no wallet call', async () => {
    const s1 = await demoSession(t, 'm-one');
    const { roundId } = await startOk(t, s1);
    const again = await start(t, s1);
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('ACTIVE_ROUND_EXISTS');
    const s2 = await demoSession(t, 'm-one');
    expect((await start(t, s2)).json().code).toBe('ACTIVE_ROUND_EXISTS');
    expect(await demoBalance('m-one')).toBe(99_900n);
    const rounds = await t.services.db('rounds').where({ player_ref: 'm-one' });
    expect(rounds.map((r) => r.round_id)).toEqual([roundId]);
    // once the round is over, a new one may start
    const mines = await minesOf(t, roundId);
    await reveal(t, s1, roundId, mines[0]!);
    expect((await start(t, s2)).statusCode).toBe(200);
  });

  it('a reloaded game (new session of the player) finds the round and plays on; another player gets ROUND_SESSION_MISMATCH', async () => {
    const s1 = await demoSession(t, 'm-reload');
    const { roundId } = await startOk(t, s1, { mineCount: 4 });
    const [a, b] = await safeTilesOf(t, roundId);
    await reveal(t, s1, roundId, a!);

    const s2 = await demoSession(t, 'm-reload');
    const active = await get(t, `/api/mines/rounds/active?sessionId=${s2}`);
    expect(active.statusCode, active.body).toBe(200);
    expect(active.json().round).toMatchObject({ roundId, roundStatus: 'active', result: { mineCount: 4, revealed: [a] } });
    const byId = await get(t, `/api/mines/rounds/${roundId}?sessionId=${s2}`);
    expect(byId.json()).toMatchObject({ roundId, roundStatus: 'active', result: { revealed: [a] } });
    expect((await reveal(t, s2, roundId, b!)).json().result.revealed).toEqual([a, b]);

    const other = await demoSession(t, 'm-stranger');
    expect((await get(t, `/api/mines/rounds/${roundId}?sessionId=${other}`)).json().code).toBe('ROUND_SESSION_MISMATCH');
    expect((await reveal(t, other, roundId, 0)).json().code).toBe('ROUND_SESSION_MISMATCH');
    expect((await cashout(t, other, roundId)).json().code).toBe('ROUND_SESSION_MISMATCH');
    expect((await get(t, `/api/mines/rounds/active?sessionId=${other}`)).json()).toEqual({ round: null });
    expect((await get(t, `/api/mines/rounds/00000000-0000-4000-8000-000000000000?sessionId=${s2}`)).json().code).toBe('ROUND_NOT_FOUND');
    expect((await get(t, `/api/mines/rounds/${roundId}?sessionId=nope`)).json().code).toBe('INVALID_SESSION');
    expect((await get(t, `/api/mines/rounds/${roundId}`)).json().code).toBe('VALIDATION_ERROR');
  });

  it('an active round never shows its mines: start, reveal, both GETs, GET /api/bets/{roundId}', async () => {
    const s = await demoSession(t, 'm-secret');
    const started = await start(t, s, { mineCount: 10 });
    const { roundId } = started.json();
    const [a] = await safeTilesOf(t, roundId);
    const answers = [
      started,
      await reveal(t, s, roundId, a!),
      await get(t, `/api/mines/rounds/${roundId}?sessionId=${s}`),
      await get(t, `/api/mines/rounds/active?sessionId=${s}`),
      await get(t, `/api/bets/${roundId}`),
    ];
    for (const res of answers) {
      expect(res.statusCode, res.body).toBe(200);
      expect(res.body).not.toContain('"mines":');
      expect(res.body).not.toContain('serverSeed"');
    }
    expect(answers[4]!.json().result).toEqual({ mineCount: 10, revealed: [a], multiplier: 1.65, nextMultiplier: 2.8285 });
  });
});

describe('refusals', () => {
  it('TILE_ALREADY_REVEALED, and cashout before any reveal is ACTION_NOT_AVAILABLE; neither moves money', async () => {
    const s = await demoSession(t, 'm-refusals');
    const { roundId } = await startOk(t, s);
    const no = await cashout(t, s, roundId);
    expect(no.statusCode).toBe(400);
    expect(no.json().code).toBe('ACTION_NOT_AVAILABLE');
    const [a] = await safeTilesOf(t, roundId);
    expect((await reveal(t, s, roundId, a!)).statusCode).toBe(200);
    const twice = await reveal(t, s, roundId, a!);
    expect(twice.statusCode).toBe(400);
    expect(twice.json().code).toBe('TILE_ALREADY_REVEALED');
    expect(await callbacksOf(t, roundId)).toEqual(['debit:100']);
    const row = await t.services.db('rounds').where({ round_id: roundId }).first();
    expect(row.state.revealed).toEqual([a]);
  });

  it.each([
    ['mineCount 0', { mineCount: 0 }],
    ['mineCount 25', { mineCount: 25 }],
    ['mineCount as a string', { mineCount: '3' }],
    ['mineCount not an integer', { mineCount: 2.5 }],
    ['params.mineCount 25', { params: { mineCount: 25 } }],
    ['mineCount and params.mineCount differ', { mineCount: 3, params: { mineCount: 4 } }],
    ['amount with 3 decimals', { amount: 1.005 }],
    ['amount 0', { amount: 0 }],
    ['an unknown field', { tiles: 3 }],
  ])('start with %s is a VALIDATION_ERROR before any debit', async (_name, body) => {
    const s = await demoSession(t, 'm-invalid');
    const res = await start(t, s, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_ERROR');
    expect(await t.services.db('rounds').where({ player_ref: 'm-invalid' })).toHaveLength(0);
  });

  it('mineCount defaults to 3 and is also taken from params', async () => {
    const s = await demoSession(t, 'm-params');
    const first = await startOk(t, s, { idempotencyKey: key() });
    expect(first.bet.params).toEqual({ mineCount: 3 });
    await reveal(t, s, first.roundId, (await minesOf(t, first.roundId))[0]!);
    const second = await startOk(t, s, { params: { mineCount: 7 } });
    expect(second.result.mineCount).toBe(7);
    await reveal(t, s, second.roundId, (await minesOf(t, second.roundId))[0]!);
    const third = await startOk(t, s, { mineCount: 6, params: { mineCount: 6 } });
    expect(third.bet.params).toEqual({ mineCount: 6 });
  });

  it('idempotency keys are required; tiles are integers 0..24 (never coerced)', async () => {
    const s = await demoSession(t, 'm-keys');
    expect((await post(t, '/api/mines/rounds', { sessionId: s, amount: 1 })).json().code).toBe('IDEMPOTENCY_REQUIRED');
    const { roundId } = await startOk(t, s);
    expect((await post(t, `/api/mines/rounds/${roundId}/reveal`, { sessionId: s, tile: 1 })).json().code).toBe('IDEMPOTENCY_REQUIRED');
    expect((await post(t, `/api/mines/rounds/${roundId}/cashout`, { sessionId: s, idempotencyKey: '' })).json().code).toBe('IDEMPOTENCY_REQUIRED');
    for (const tile of [25, -1, 1.5, '3']) {
      expect((await reveal(t, s, roundId, tile as number)).json().code).toBe('VALIDATION_ERROR');
    }
  });

  it('a session for another game cannot start Mines (SESSION_GAME_MISMATCH); POST /api/bets refuses mines', async () => {
    const dice = await demoSession(t, 'm-dice', 'dice');
    expect((await start(t, dice)).json().code).toBe('SESSION_GAME_MISMATCH');
    const bet = await post(t, '/api/bets', { sessionId: dice, gameType: 'mines', amount: 1, idempotencyKey: key() });
    expect(bet.json().code).toBe('VALIDATION_ERROR');
  });
});

describe('idempotent replays', () => {
  it('start, reveal and cashout replay their original answers and never move money twice', async () => {
    const s = await demoSession(t, 'm-replay');
    const startKey = key('start');
    const first = await start(t, s, { idempotencyKey: startKey, amount: 3 });
    const again = await start(t, s, { idempotencyKey: startKey, amount: 3 });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    const conflict = await start(t, s, { idempotencyKey: startKey, amount: 4 });
    expect(conflict.statusCode).toBe(400);
    expect(conflict.json().code).toBe('IDEMPOTENCY_CONFLICT');
    const roundId: string = first.json().roundId;

    const [a, b] = await safeTilesOf(t, roundId);
    const revealKey = key('reveal');
    const r1 = await reveal(t, s, roundId, a!, revealKey);
    const r1again = await reveal(t, s, roundId, a!, revealKey);
    expect(r1again.statusCode).toBe(200);
    expect(r1again.json()).toEqual(r1.json());
    // the same key with another tile is a conflict, never a second reveal
    expect((await reveal(t, s, roundId, b!, revealKey)).json().code).toBe('IDEMPOTENCY_CONFLICT');
    expect((await t.services.db('rounds').where({ round_id: roundId }).first()).state.revealed).toEqual([a]);

    const cashoutKey = key('cashout');
    const out = await cashout(t, s, roundId, cashoutKey);
    expect(out.json().roundStatus).toBe('cashed_out');
    const outAgain = await cashout(t, s, roundId, cashoutKey);
    expect(outAgain.statusCode).toBe(200);
    expect(outAgain.json()).toEqual(out.json());
    expect((await cashout(t, s, roundId)).json().code).toBe('ROUND_NOT_ACTIVE');
    expect((await post(t, `/api/mines/rounds/${roundId}/reveal`, { sessionId: s, tile: a, idempotencyKey: cashoutKey })).json().code).toBe(
      'IDEMPOTENCY_CONFLICT',
    );
    expect(await callbacksOf(t, roundId)).toEqual(['debit:300', 'credit:337']);
    expect(await demoBalance('m-replay')).toBe(100_000n - 300n + 337n);
  });

  it('concurrent duplicates of one start open one round with one debit', async () => {
    const s = await demoSession(t, 'm-dup-start');
    const k = key('start');
    const answers = await Promise.all([start(t, s, { idempotencyKey: k }), start(t, s, { idempotencyKey: k }), start(t, s, { idempotencyKey: k })]);
    for (const a of answers) expect(a.statusCode, a.body).toBe(200);
    expect(new Set(answers.map((a) => a.json().roundId)).size).toBe(1);
    expect(await callbacksOf(t, answers[0]!.json().roundId)).toEqual(['debit:100']);
  });
});

describe('provable fairness', () => {
  it('rotation is refused while the round is active; once it is final the revealed seed recomputes its mines', async () => {
    const s = await demoSession(t, 'm-fair');
    const started = await startOk(t, s, { mineCount: 6, clientSeed: 'my-lucky-seed' });
    expect(started.fairness).toMatchObject({ clientSeed: 'my-lucky-seed', nonce: 0 });
    expect(started.fairness.serverSeed).toBeUndefined();
    const refused = await post(t, '/api/fairness/rotate', { sessionId: s });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe('ACTIVE_ROUND_EXISTS');

    const [a] = await safeTilesOf(t, started.roundId);
    await reveal(t, s, started.roundId, a!);
    const final = (await cashout(t, s, started.roundId)).json();
    const rotated = await post(t, '/api/fairness/rotate', { sessionId: s });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { previousServerSeed, previousServerSeedHash } = rotated.json();
    expect(previousServerSeedHash).toBe(started.fairness.serverSeedHash);
    expect(hashServerSeed(previousServerSeed)).toBe(started.fairness.serverSeedHash);

    const recomputed = minePositions(floats(previousServerSeed, 'my-lucky-seed', 0, MINES_FLOATS), 6);
    expect(final.result.mines).toEqual(recomputed);
    const stored = (await get(t, `/api/bets/${started.roundId}`)).json();
    expect(stored.fairness.serverSeed).toBe(previousServerSeed);

    const verified = await post(t, '/api/verify', {
      gameType: 'mines',
      serverSeed: previousServerSeed,
      serverSeedHash: previousServerSeedHash,
      clientSeed: 'my-lucky-seed',
      nonce: 0,
      amount: 1,
      params: { mineCount: 6, revealed: [a] },
    });
    expect(verified.json()).toMatchObject({ result: { mines: recomputed, revealed: [a] }, multiplier: final.bet.multiplier, payout: final.bet.payout });
  });
});

describe('interface description', () => {
  it('/openapi.json lists the Mines endpoints', async () => {
    const paths = Object.keys((await get(t, '/openapi.json')).json().paths);
    for (const p of [
      '/api/mines/rounds',
      '/api/mines/rounds/active',
      '/api/mines/rounds/{roundId}',
      '/api/mines/rounds/{roundId}/reveal',
      '/api/mines/rounds/{roundId}/cashout',
    ]) {
      expect(paths).toContain(p);
    }
  });
});

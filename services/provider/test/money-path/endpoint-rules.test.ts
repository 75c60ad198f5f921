/**
 * SPEC.md endpoint rules 1, 3, 4 and "Limits"; CONTRACT.md §2, §3 and §13: what POST /api/bets
 * refuses before any money moves, exactly-once under one idempotency key, and exact amounts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from '../helpers/app.js';
import { newKey, rawJson, secretOf, startWorld, type Player, type World } from '../helpers/casino.js';

let w: World;
let lobby: Player;
beforeAll(async () => {
  w = await startWorld([
    { operatorId: 'op-rules', minBet: 0.1, maxBet: 50, stakeStep: 0.05, maxPayout: 5000, enabledGames: ['dice', 'limbo', 'plinko', 'mines', 'blackjack'] },
    { operatorId: 'op-doge', currency: 'DOGE', decimals: 8, minBet: '0.00000001', stakeStep: '0.00000001', maxPayout: '1e16' },
    { operatorId: 'op-btc', currency: 'BTC', decimals: 8, minBet: '0.00000001', stakeStep: '0.00000001', maxPayout: 1 },
  ]);
  lobby = await w.player('rules-lobby', { operatorId: 'op-rules', balance: '500' });
});
afterAll(async () => w?.close());

/** The casino saw no wallet request since `mark`. */
const casinoRequestsSince = (mark: number) => w.casino.requests().slice(mark);

describe('session and game checks (endpoint rules 3 and 4)', () => {
  it('a single-game session refuses a bet on another game: SESSION_GAME_MISMATCH', async () => {
    const single = await w.player('rules-single', { operatorId: 'op-rules', launchMode: 'single', gameType: 'dice' });
    const mark = w.casino.requests().length;
    const res = await w.bet(single, 'limbo', 1, { target: 2 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('SESSION_GAME_MISMATCH');
    expect(casinoRequestsSince(mark)).toEqual([]);
    expect((await w.bet(single, 'dice', 1, { target: 50, direction: 'under' })).status).toBe(200);
  });

  it('a lobby session accepts every game the operator enabled', async () => {
    for (const [game, params] of [
      ['dice', { target: 30, direction: 'over' }],
      ['limbo', { target: 1.5 }],
      ['plinko', { rows: 8 }],
    ] as const) {
      const res = await w.bet(lobby, game, 0.5, params);
      expect(res.status, res.text).toBe(200);
      expect(res.body.roundStatus).toBe('settled');
    }
  });

  it('a game the operator disabled is GAME_DISABLED: at bet time in a lobby, and at session creation for a single-game launch', async () => {
    const mark = w.casino.requests().length;
    const res = await w.bet(lobby, 'keno', 1, { picks: [1, 2] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('GAME_DISABLED');
    expect(casinoRequestsSince(mark)).toEqual([]);
    const session = await w.call('POST', '/api/sessions', { operatorId: 'op-rules', launchToken: lobby.launchToken, gameType: 'keno', launchMode: 'single' });
    expect(session.body.code).toBe('GAME_DISABLED');
  });

  it('disabling a game after the session started refuses the next bet of it', async () => {
    const single = await w.player('rules-disabled', { operatorId: 'op-rules', launchMode: 'single', gameType: 'plinko' });
    const profile = {
      currency: 'USD',
      callbackBaseUrl: w.casino.url,
      sharedSecret: secretOf('op-rules'),
      minBet: 0.1,
      maxBet: 50,
      stakeStep: 0.05,
      maxPayout: 5000,
    };
    expect(
      (await w.call('PUT', '/api/admin/operators/op-rules', { ...profile, enabledGames: ['dice', 'limbo', 'mines', 'blackjack'] }, adminHeaders)).status,
    ).toBe(200);
    try {
      const res = await w.bet(single, 'plinko', 1, { rows: 8 });
      expect(res.body.code).toBe('GAME_DISABLED');
    } finally {
      await w.call('PUT', '/api/admin/operators/op-rules', { ...profile, enabledGames: ['dice', 'limbo', 'plinko', 'mines', 'blackjack'] }, adminHeaders);
    }
    expect((await w.bet(single, 'plinko', 1, { rows: 8 })).status).toBe(200);
  });

  it.each(['mines', 'blackjack'])('%s is not accepted on POST /api/bets (it has active-round endpoints)', async (game) => {
    const mark = w.casino.requests().length;
    const res = await w.bet(lobby, game, 1, {});
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(casinoRequestsSince(mark)).toEqual([]);
  });
});

describe('bet and payout bounds (CONTRACT.md §3)', () => {
  it.each([
    ['below minBet', 0.05],
    ['above maxBet', 50.05],
    ['not a multiple of stakeStep', 0.12],
  ])('%s is BET_OUT_OF_RANGE before any debit', async (_case, amount) => {
    const mark = w.casino.requests().length;
    const res = await w.bet(lobby, 'dice', amount, { target: 50, direction: 'over' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BET_OUT_OF_RANGE');
    expect(res.body).not.toHaveProperty('roundId');
    expect(casinoRequestsSince(mark)).toEqual([]);
  });

  it('minBet, maxBet and a multiple of stakeStep are accepted', async () => {
    for (const amount of [0.1, 50, 0.15]) expect((await w.bet(lobby, 'dice', amount, { target: 50, direction: 'over' })).status).toBe(200);
  });

  it('a bet whose largest payout exceeds maxPayout is MAX_PAYOUT_EXCEEDED before any debit (limbo 1000000×)', async () => {
    const mark = w.casino.requests().length;
    const res = await w.bet(lobby, 'limbo', 0.1, { target: 1_000_000 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('MAX_PAYOUT_EXCEEDED');
    expect(casinoRequestsSince(mark)).toEqual([]);
    // 0.1 × 50000 = 5000 = maxPayout: allowed
    expect((await w.bet(lobby, 'limbo', 0.1, { target: 50_000 })).status).toBe(200);
  });
});

describe('amounts (CONTRACT.md §2, §3)', () => {
  it.each([
    ['more decimals than USD has', '0.101'],
    ['zero', '0'],
    ['negative', '-1'],
  ])('%s is a VALIDATION_ERROR', async (_case, amount) => {
    const mark = w.casino.requests().length;
    const res = await w.bet(lobby, 'dice', amount, { target: 50, direction: 'over' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(casinoRequestsSince(mark)).toEqual([]);
  });

  it('an amount sent as a string is a VALIDATION_ERROR (no coercion)', async () => {
    const res = await w.call('POST', '/api/bets', {
      sessionId: lobby.sessionId,
      gameType: 'dice',
      amount: '1',
      idempotencyKey: newKey(),
      params: { target: 50, direction: 'over' },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it('a 15-digit DOGE amount is debited, credited and answered exactly', async () => {
    const p = await w.player('rules-doge', { operatorId: 'op-doge', balance: '999999999999999.99999999' });
    const res = await w.call(
      'POST',
      '/api/bets',
      rawJson({
        sessionId: p.sessionId,
        gameType: 'dice',
        amount: '@@123456789012345.12345678',
        idempotencyKey: newKey(),
        params: { target: 50, direction: 'under' },
      }),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain('"amount":123456789012345.12345678');
    const debit = w.ledger(res.body.roundId!).find((tx) => tx.type === 'debit');
    expect(debit?.amount).toBe(12345678901234512345678n);
    const credit = w.ledger(res.body.roundId!).find((tx) => tx.type === 'credit')!;
    expect(res.text).toContain(`"balance":${formatMinor(credit.balanceAfter, 8)}`);
    expect(w.balance(p)).toBe(99999999999999999999999n - 12345678901234512345678n + credit.amount);
  });

  it('1e-8 BTC converts exactly to one satoshi', async () => {
    const p = await w.player('rules-btc', { operatorId: 'op-btc', balance: '0.00000002' });
    const res = await w.call(
      'POST',
      '/api/bets',
      `{"sessionId":"${p.sessionId}","gameType":"dice","amount":1e-8,"idempotencyKey":"${newKey()}","params":{"target":50,"direction":"under"}}`,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain('"amount":0.00000001');
    expect(w.ledger(res.body.roundId!).find((tx) => tx.type === 'debit')?.amount).toBe(1n);
    const tooFine = await w.bet(p, 'dice', '1e-9', { target: 50, direction: 'under' });
    expect(tooFine.body.code).toBe('VALIDATION_ERROR');
  });
});

function formatMinor(minor: bigint, decimals: number): string {
  const base = 10n ** BigInt(decimals);
  const frac = (minor % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${minor / base}${frac ? `.${frac}` : ''}`;
}

describe('idempotency (endpoint rule 1, CONTRACT.md §13)', () => {
  it('a bet without idempotencyKey, or with an empty one, is IDEMPOTENCY_REQUIRED', async () => {
    const base = { sessionId: lobby.sessionId, gameType: 'dice', amount: 1, params: { target: 50, direction: 'over' } };
    const missing = await w.call('POST', '/api/bets', base);
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('IDEMPOTENCY_REQUIRED');
    const empty = await w.call('POST', '/api/bets', { ...base, idempotencyKey: '' });
    expect(empty.body.code).toBe('IDEMPOTENCY_REQUIRED');
    const tooLong = await w.call('POST', '/api/bets', { ...base, idempotencyKey: 'k'.repeat(129) });
    expect(tooLong.body.code).toBe('VALIDATION_ERROR');
  });

  it('an identical retry answers the original settled response and sends no new callback', async () => {
    const key = newKey('same');
    const first = await w.bet(lobby, 'dice', 1, { target: 50, direction: 'over' }, key);
    expect(first.status).toBe(200);
    const mark = w.casino.requests().length;
    const again = await w.bet(lobby, 'dice', 1, { target: 50, direction: 'over' }, key);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    // the same amount written another way is the same request
    const sameAmount = await w.bet(lobby, 'dice', '1.00', { target: 50, direction: 'over' }, key);
    expect(sameAmount.body).toEqual(first.body);
    expect(casinoRequestsSince(mark)).toEqual([]);
    expect(w.ledger(first.body.roundId!)).toHaveLength(2);
  });

  it.each([
    ['another amount', 'dice', 2, { target: 50, direction: 'over' }],
    ['other params', 'dice', 1, { target: 51, direction: 'over' }],
    ['another game', 'limbo', 1, { target: 2 }],
  ])('the same key with %s is IDEMPOTENCY_CONFLICT', async (_case, game, amount, params) => {
    const key = newKey('conflict');
    expect((await w.bet(lobby, 'dice', 1, { target: 50, direction: 'over' }, key)).status).toBe(200);
    const mark = w.casino.requests().length;
    const res = await w.bet(lobby, game, amount, params, key);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('IDEMPOTENCY_CONFLICT');
    expect(casinoRequestsSince(mark)).toEqual([]);
  });

  it('a request refused before any wallet call stores nothing: the key may be used again', async () => {
    const key = newKey('refused-first');
    expect((await w.bet(lobby, 'dice', 0.05, { target: 50, direction: 'over' }, key)).body.code).toBe('BET_OUT_OF_RANGE');
    const res = await w.bet(lobby, 'dice', 0.5, { target: 50, direction: 'over' }, key);
    expect(res.status, res.text).toBe(200);
  });

  it('five identical requests at once run once and all get the same answer', async () => {
    const key = newKey('burst');
    // a slow casino keeps the first request busy while the others arrive
    w.casino.setFaults([{ path: '/wallet/debit', kind: 'delay', ms: 150, times: 1 }]);
    const answers = await Promise.all(Array.from({ length: 5 }, () => w.bet(lobby, 'limbo', 1, { target: 1.7 }, key)));
    w.casino.clearFaults();
    for (const a of answers) expect(a.status, a.text).toBe(200);
    for (const a of answers) expect(a.body).toEqual(answers[0]!.body);
    const roundId = answers[0]!.body.roundId!;
    expect(w.requestsOf(`${roundId}:debit`)).toHaveLength(1);
    expect(w.ledger(roundId).map((tx) => tx.type)).toEqual(['debit', 'credit']);
    expect(await w.t.services.db('idempotency_records').where({ idempotency_key: key })).toHaveLength(1);
    // target 1.7 is only played here: one round exists for the five requests
    expect(await w.t.services.db('rounds').where({ session_id: lobby.sessionId }).whereRaw("params->>'target' = '1.7'")).toHaveLength(1);
  });
});

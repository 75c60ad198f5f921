/**
 * Blackjack through the HTTP API against the demo operator: every rule of SPEC.md rule 7 and
 * CONTRACT.md §10/§13 on scripted decks, the money each one moves (one debit at start, extra
 * debits only for insurance, double and split, exactly one credit of the total payout), the
 * player's view while active, and the errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTenValue } from '@gp/game-core/games';
import { dealerHasBlackjack, playerHasBlackjack } from '@gp/game-core/games';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { act, clientSeedFor, demoLedger, demoSession, get, insurance, key, ok, playerOf, post, script, scripted, start } from './helpers.js';

let t: TestApp;
let sessionId: string;
beforeAll(async () => {
  t = await createTestApp();
  sessionId = await demoSession(t, 'bj-rules');
});
afterAll(async () => t?.close());

/** The round's money as (operation, key suffix, amount in cents), from the demo casino's ledger. */
const ledger = (roundId: string) => demoLedger(t, roundId);

describe('openings the deal decides settle at once', () => {
  it('a player blackjack against no dealer blackjack pays 3:2 at once, dealer draws nothing', async () => {
    const who = await playerOf(t, sessionId);
    const clientSeed = await clientSeedFor(
      t,
      who.operatorId,
      who.playerRef,
      100n,
      (s) => playerHasBlackjack(s) && !dealerHasBlackjack(s) && !s.insurance.offered,
    );
    const bet = await ok(start(t, sessionId, { clientSeed }));
    expect(bet.roundStatus).toBe('settled');
    expect(bet.bet).toMatchObject({ amount: 1, totalStaked: 1, payout: 2.5, multiplier: 2.5, won: true });
    expect(bet.result.hands[0]).toMatchObject({ outcome: 'blackjack', payout: 2.5, status: 'stood' });
    expect(bet.result.dealer.cards).toHaveLength(2);
    expect(bet.result.cards).toHaveLength(52);
    expect(bet.balance).toBeDefined();
    expect(await ledger(bet.roundId)).toEqual([
      { operation: 'debit', key: ':debit', amount: 100 },
      { operation: 'credit', key: ':credit', amount: 250 },
    ]);
  });

  it('natural against a dealer natural (ten up, the peek) is a push at once', async () => {
    const who = await playerOf(t, sessionId);
    const clientSeed = await clientSeedFor(
      t,
      who.operatorId,
      who.playerRef,
      100n,
      (s) => playerHasBlackjack(s) && dealerHasBlackjack(s) && isTenValue(s.dealer[0]!),
    );
    const bet = await ok(start(t, sessionId, { clientSeed }));
    expect(bet.roundStatus).toBe('settled');
    expect(bet.bet).toMatchObject({ payout: 1, multiplier: 1, won: false });
    expect(bet.result.hands[0].outcome).toBe('push');
    expect(bet.result.insurance.offered).toBe(false);
    expect((await ledger(bet.roundId)).map((l) => [l.key, l.amount])).toEqual([
      [':debit', 100],
      [':credit', 100],
    ]);
  });

  it('a dealer natural under a ten loses at once with a zero credit', async () => {
    const who = await playerOf(t, sessionId);
    const clientSeed = await clientSeedFor(
      t,
      who.operatorId,
      who.playerRef,
      100n,
      (s) => !playerHasBlackjack(s) && dealerHasBlackjack(s) && isTenValue(s.dealer[0]!),
    );
    const bet = await ok(start(t, sessionId, { clientSeed }));
    expect(bet.roundStatus).toBe('settled');
    expect(bet.bet).toMatchObject({ payout: 0, multiplier: 0, won: false });
    expect(bet.result.hands[0]).toMatchObject({ outcome: 'lose', status: 'stood' });
    expect((await ledger(bet.roundId)).map((l) => [l.key, l.amount])).toEqual([
      [':debit', 100],
      [':credit', 0],
    ]);
  });
});

describe('the player view while active', () => {
  it('shows the up card only, no hole card, no card stream; GET by id and GET active agree', async () => {
    const roundId = await scripted(t, sessionId, ['10S', '6D', '9H', 'KC', '5D']);
    const round = await ok(get(t, `/api/blackjack/rounds/${roundId}?sessionId=${sessionId}`));
    expect(round.roundStatus).toBe('active');
    expect(round.result.dealer).toEqual({ cards: ['9H'], value: 9, soft: false });
    expect(round.result.cards).toBeUndefined();
    expect(round.result.hands).toEqual([{ cards: ['10S', '6D'], value: 16, soft: false, bet: 1, doubled: false, status: 'playing' }]);
    expect(round.result.actions).toEqual(['hit', 'stand', 'double']);
    expect(round.result.activeHand).toBe(0);
    expect(round.bet).toMatchObject({ payout: 0, multiplier: 0, totalStaked: 1 });
    expect(JSON.stringify(round)).not.toContain('KC');
    const active = await ok(get(t, `/api/blackjack/rounds/active?sessionId=${sessionId}`));
    expect(active.round.roundId).toBe(roundId);
    expect(active.round.result).toEqual(round.result);
    expect(JSON.stringify(active)).not.toContain('KC');
    const publicView = await ok(get(t, `/api/bets/${roundId}`));
    expect(publicView.result).toEqual(round.result);

    const done = await ok(act(t, sessionId, roundId, 'hit'));
    expect(done.roundStatus).toBe('settled');
    expect(done.result.hands[0]).toMatchObject({ cards: ['10S', '6D', '5D'], value: 21, status: 'stood', outcome: 'win', payout: 2 });
    expect(done.result.dealer.cards).toEqual(['9H', 'KC']);
    expect(done.result.cards).toHaveLength(52);
    expect((await ok(get(t, `/api/blackjack/rounds/active?sessionId=${sessionId}`))).round).toBeNull();
  });
});

describe('rules on scripted decks', () => {
  it('bust: the dealer turns the hole card and draws nothing; one zero credit', async () => {
    const roundId = await scripted(t, sessionId, ['10S', '6D', '9H', '5C', 'KD']);
    const bet = await ok(act(t, sessionId, roundId, 'hit'));
    expect(bet.roundStatus).toBe('settled');
    expect(bet.result.hands[0]).toMatchObject({ value: 26, status: 'bust', outcome: 'lose', payout: 0 });
    expect(bet.result.dealer.cards).toEqual(['9H', '5C']);
    expect(bet.bet).toMatchObject({ payout: 0, multiplier: 0, won: false });
    expect((await ledger(roundId)).map((l) => [l.key, l.amount])).toEqual([
      [':debit', 100],
      [':credit', 0],
    ]);
  });

  it('push: equal totals return the stake', async () => {
    const roundId = await scripted(t, sessionId, ['10S', '8D', '10H', '8C']);
    const bet = await ok(act(t, sessionId, roundId, 'stand'));
    expect(bet.result.hands[0]).toMatchObject({ outcome: 'push', payout: 1 });
    expect(bet.bet).toMatchObject({ payout: 1, multiplier: 1, won: false });
    expect((await ledger(roundId)).map((l) => [l.key, l.amount])).toEqual([
      [':debit', 100],
      [':credit', 100],
    ]);
  });

  it('the dealer stands on soft 17', async () => {
    const roundId = await scripted(t, sessionId, ['10S', '8D', '6H', 'AC', '3D']);
    const bet = await ok(act(t, sessionId, roundId, 'stand'));
    expect(bet.result.dealer).toEqual({ cards: ['6H', 'AC'], value: 17, soft: true });
    expect(bet.result.hands[0]).toMatchObject({ outcome: 'win', payout: 2 });
  });

  it('double: one extra debit of the hand stake, one card, the hand stands', async () => {
    const roundId = await scripted(t, sessionId, ['5S', '6D', '9H', '7C', '10D', '2C']);
    const bet = await ok(act(t, sessionId, roundId, 'double'));
    expect(bet.roundStatus).toBe('settled');
    expect(bet.result.hands[0]).toMatchObject({ cards: ['5S', '6D', '10D'], value: 21, bet: 2, doubled: true, status: 'stood', outcome: 'win', payout: 4 });
    expect(bet.result.dealer.cards).toEqual(['9H', '7C', '2C']);
    expect(bet.bet).toMatchObject({ amount: 1, totalStaked: 2, payout: 4, multiplier: 2, won: true });
    expect(bet.casinoTransactions.extraDebits).toEqual([{ kind: 'double', id: expect.any(String) }]);
    expect(await ledger(roundId)).toEqual([
      { operation: 'debit', key: ':debit', amount: 100 },
      { operation: 'debit', key: ':double:0', amount: 100 },
      { operation: 'credit', key: ':credit', amount: 400 },
    ]);
  });

  it('double is only on the first two cards', async () => {
    const roundId = await scripted(t, sessionId, ['2S', '3D', '9H', '7C', '4D', '10C']);
    const hit = await ok(act(t, sessionId, roundId, 'hit'));
    expect(hit.result.actions).toEqual(['hit', 'stand']);
    const res = await act(t, sessionId, roundId, 'double');
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('ACTION_NOT_AVAILABLE');
    await ok(act(t, sessionId, roundId, 'stand'));
    expect((await ledger(roundId)).filter((l) => l.operation === 'debit')).toHaveLength(1);
  });

  it('split aces: one card each, they stand; A+10 after a split is 21, not blackjack', async () => {
    const roundId = await scripted(t, sessionId, ['AS', 'AD', '9H', '7C', 'KD', '5C', '2C']);
    const bet = await ok(act(t, sessionId, roundId, 'split'));
    expect(bet.roundStatus).toBe('settled');
    expect(bet.result.hands).toMatchObject([
      { cards: ['AS', 'KD'], value: 21, status: 'stood', outcome: 'win', payout: 2 },
      { cards: ['AD', '5C'], value: 16, soft: true, status: 'stood', outcome: 'lose', payout: 0 },
    ]);
    expect(bet.result.dealer.cards).toEqual(['9H', '7C', '2C']);
    expect(bet.bet).toMatchObject({ totalStaked: 2, payout: 2, multiplier: 1, won: false });
    expect((await ledger(roundId)).map((l) => [l.key, l.amount])).toEqual([
      [':debit', 100],
      [':split', 100],
      [':credit', 200],
    ]);
  });

  it('split tens with a double on each hand: four debits, one credit', async () => {
    const roundId = await scripted(t, sessionId, ['10S', '10D', '6H', '10C', '5C', '6D', '3H', '4S', '2D']);
    const split = await ok(act(t, sessionId, roundId, 'split'));
    expect(split.roundStatus).toBe('active');
    expect(split.result.hands).toMatchObject([
      { cards: ['10S', '5C'], status: 'playing' },
      { cards: ['10D'], status: 'playing' },
    ]);
    expect(split.result.activeHand).toBe(0);
    expect(split.result.actions).toEqual(['hit', 'stand', 'double']);
    expect(split.bet.totalStaked).toBe(2);
    const first = await ok(act(t, sessionId, roundId, 'double'));
    expect(first.result.activeHand).toBe(1);
    expect(first.result.hands[1].cards).toEqual(['10D', '3H']);
    expect(first.bet.totalStaked).toBe(3);
    const bet = await ok(act(t, sessionId, roundId, 'double'));
    expect(bet.roundStatus).toBe('settled');
    expect(bet.result.hands).toMatchObject([
      { cards: ['10S', '5C', '6D'], value: 21, bet: 2, doubled: true, outcome: 'win', payout: 4 },
      { cards: ['10D', '3H', '4S'], value: 17, bet: 2, doubled: true, outcome: 'lose', payout: 0 },
    ]);
    expect(bet.result.dealer).toMatchObject({ cards: ['6H', '10C', '2D'], value: 18 });
    expect(bet.bet).toMatchObject({ amount: 1, totalStaked: 4, payout: 4, multiplier: 1, won: false });
    expect(bet.casinoTransactions.extraDebits.map((d: { kind: string }) => d.kind)).toEqual(['split', 'double', 'double']);
    expect((await ledger(roundId)).map((l) => [l.key, l.amount])).toEqual([
      [':debit', 100],
      [':split', 100],
      [':double:0', 100],
      [':double:1', 100],
      [':credit', 400],
    ]);
  });

  it('only equal ranks split (K and Q do not)', async () => {
    const roundId = await scripted(t, sessionId, ['KS', 'QD', '9H', '7C']);
    const round = await ok(get(t, `/api/blackjack/rounds/${roundId}?sessionId=${sessionId}`));
    expect(round.result.actions).toEqual(['hit', 'stand', 'double']);
    const res = await act(t, sessionId, roundId, 'split');
    expect(res.json().code).toBe('ACTION_NOT_AVAILABLE');
    await ok(act(t, sessionId, roundId, 'stand'));
  });
});

describe('insurance', () => {
  it('is offered against an Ace; while offered only insurance is available', async () => {
    const roundId = await scripted(t, sessionId, ['10S', '9D', 'AH', '7C']);
    const round = await ok(get(t, `/api/blackjack/rounds/${roundId}?sessionId=${sessionId}`));
    expect(round.result.actions).toEqual(['insurance']);
    expect(round.result.insurance).toEqual({ offered: true, taken: null, amount: 0, payout: 0 });
    expect(round.result.dealer.cards).toEqual(['AH']);
    for (const action of ['hit', 'stand', 'double']) expect((await act(t, sessionId, roundId, action)).json().code).toBe('ACTION_NOT_AVAILABLE');
    const declined = await ok(insurance(t, sessionId, roundId, false));
    expect(declined.result.insurance).toEqual({ offered: true, taken: false, amount: 0, payout: 0 });
    expect(declined.result.actions).toEqual(['hit', 'stand', 'double']);
    expect((await insurance(t, sessionId, roundId, false)).json().code).toBe('ACTION_NOT_AVAILABLE');
    const bet = await ok(act(t, sessionId, roundId, 'stand'));
    expect(bet.result.hands[0].outcome).toBe('win');
    expect((await ledger(roundId)).map((l) => [l.key, l.amount])).toEqual([
      [':debit', 100],
      [':credit', 200],
    ]);
  });

  it('taken and won: half the bet, pays 2:1 when the dealer has blackjack; the hand loses', async () => {
    const roundId = await scripted(t, sessionId, ['10S', '9D', 'AH', 'KC']);
    const bet = await ok(insurance(t, sessionId, roundId, true));
    expect(bet.roundStatus).toBe('settled');
    expect(bet.result.insurance).toEqual({ offered: true, taken: true, amount: 0.5, payout: 1.5 });
    expect(bet.result.hands[0]).toMatchObject({ outcome: 'lose', payout: 0, status: 'stood' });
    expect(bet.bet).toMatchObject({ totalStaked: 1.5, payout: 1.5, multiplier: 1, won: false });
    expect(bet.casinoTransactions.extraDebits).toEqual([{ kind: 'insurance', id: expect.any(String) }]);
    expect((await ledger(roundId)).map((l) => [l.key, l.amount])).toEqual([
      [':debit', 100],
      [':insurance', 50],
      [':credit', 150],
    ]);
  });

  it('taken and lost: the round goes on; the total payout is credited once', async () => {
    const roundId = await scripted(t, sessionId, ['10S', '9D', 'AH', '7C']);
    const taken = await ok(insurance(t, sessionId, roundId, true));
    expect(taken.roundStatus).toBe('active');
    expect(taken.result.insurance).toEqual({ offered: true, taken: true, amount: 0.5, payout: 0 });
    expect(taken.bet.totalStaked).toBe(1.5);
    expect(taken.balance).toBeDefined();
    const bet = await ok(act(t, sessionId, roundId, 'stand'));
    expect(bet.result.insurance.payout).toBe(0);
    expect(bet.result.hands[0]).toMatchObject({ outcome: 'win', payout: 2 });
    expect(bet.result.dealer).toMatchObject({ cards: ['AH', '7C'], value: 18, soft: true });
    expect(bet.bet).toMatchObject({ totalStaked: 1.5, payout: 2, multiplier: 1.3333, won: true });
    expect((await ledger(roundId)).map((l) => [l.key, l.amount])).toEqual([
      [':debit', 100],
      [':insurance', 50],
      [':credit', 200],
    ]);
  });

  it('a natural against an Ace: declining, then the dealer natural: push', async () => {
    const roundId = await scripted(t, sessionId, ['AS', 'KD', 'AH', 'QC']);
    const bet = await ok(insurance(t, sessionId, roundId, false));
    expect(bet.roundStatus).toBe('settled');
    expect(bet.result.hands[0]).toMatchObject({ outcome: 'push', payout: 1 });
    expect(bet.bet).toMatchObject({ payout: 1, won: false });
  });

  it('a natural against an Ace without a dealer natural pays 3:2 after the decision', async () => {
    const roundId = await scripted(t, sessionId, ['AS', 'KD', 'AH', '6C']);
    const bet = await ok(insurance(t, sessionId, roundId, true));
    expect(bet.result.hands[0]).toMatchObject({ outcome: 'blackjack', payout: 2.5 });
    expect(bet.result.dealer.cards).toEqual(['AH', '6C']);
    expect(bet.bet).toMatchObject({ totalStaked: 1.5, payout: 2.5, multiplier: 1.6666, won: true });
  });
});

describe('requests and errors', () => {
  it('one active round per player: a second start is ACTIVE_ROUND_EXISTS before any debit, from any session', async () => {
    const roundId = await scripted(t, sessionId, ['10S', '6D', '9H', '7C']);
    const before = await t.services.db('demo_wallet_transactions').count<{ n: string }[]>({ n: '*' });
    const again = await start(t, sessionId);
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('ACTIVE_ROUND_EXISTS');
    const other = await demoSession(t, 'bj-rules');
    expect((await start(t, other)).json().code).toBe('ACTIVE_ROUND_EXISTS');
    const after = await t.services.db('demo_wallet_transactions').count<{ n: string }[]>({ n: '*' });
    expect(after[0]!.n).toBe(before[0]!.n);
    // the other session sees and continues the round; the seed cannot rotate meanwhile
    expect((await ok(get(t, `/api/blackjack/rounds/active?sessionId=${other}`))).round.roundId).toBe(roundId);
    expect((await post(t, '/api/fairness/rotate', { sessionId })).json().code).toBe('ACTIVE_ROUND_EXISTS');
    await ok(act(t, other, roundId, 'stand'));
  });

  it('a duplicate start or action returns the original answer; the same key with another action conflicts', async () => {
    let k = key('start');
    let first = await ok(start(t, sessionId, { idempotencyKey: k }));
    while (first.roundStatus !== 'active') first = await ok(start(t, sessionId, { idempotencyKey: (k = key('start')) }));
    const again = await ok(start(t, sessionId, { idempotencyKey: k }));
    expect(again).toEqual(first);
    expect((await start(t, sessionId, { idempotencyKey: k, amount: 2 })).json().code).toBe('IDEMPOTENCY_CONFLICT');
    expect((await demoLedger(t, first.roundId)).map((l) => l.key)).toEqual([':debit']);

    await script(t, first.roundId, ['2S', '3D', '9H', '7C', '4D', '5D']);
    const hk = key('hit');
    const hit = await ok(act(t, sessionId, first.roundId, 'hit', hk));
    expect(hit.result.hands[0].cards).toEqual(['2S', '3D', '4D']);
    const dup = await ok(act(t, sessionId, first.roundId, 'hit', hk));
    expect(dup).toEqual(hit);
    expect((await act(t, sessionId, first.roundId, 'stand', hk)).json().code).toBe('IDEMPOTENCY_CONFLICT');
    const next = await ok(act(t, sessionId, first.roundId, 'hit'));
    expect(next.result.hands[0].cards).toEqual(['2S', '3D', '4D', '5D']);
    await ok(act(t, sessionId, first.roundId, 'stand'));
  });

  it('validation: unknown action, missing key, wrong types; another player is ROUND_SESSION_MISMATCH; unknown round ROUND_NOT_FOUND', async () => {
    const id = await scripted(t, sessionId, ['10S', '6D', '9H', '7C']);
    expect((await act(t, sessionId, id, 'surrender')).json().code).toBe('VALIDATION_ERROR');
    expect((await post(t, `/api/blackjack/rounds/${id}/hit`, { sessionId })).json().code).toBe('IDEMPOTENCY_REQUIRED');
    expect((await post(t, `/api/blackjack/rounds/${id}/insurance`, { sessionId, idempotencyKey: key(), takeInsurance: 'yes' })).json().code).toBe(
      'VALIDATION_ERROR',
    );
    expect((await post(t, '/api/blackjack/rounds', { sessionId, amount: '1', idempotencyKey: key() })).json().code).toBe('VALIDATION_ERROR');
    expect((await post(t, '/api/blackjack/rounds', { sessionId, amount: 1 })).json().code).toBe('IDEMPOTENCY_REQUIRED');
    const stranger = await demoSession(t, 'bj-stranger');
    expect((await get(t, `/api/blackjack/rounds/${id}?sessionId=${stranger}`)).json().code).toBe('ROUND_SESSION_MISMATCH');
    expect((await act(t, stranger, id, 'stand')).json().code).toBe('ROUND_SESSION_MISMATCH');
    expect((await get(t, `/api/blackjack/rounds/nope?sessionId=${sessionId}`)).json().code).toBe('ROUND_NOT_FOUND');
    expect((await get(t, `/api/blackjack/rounds/active?sessionId=${stranger}`)).json()).toEqual({ round: null });
    expect((await ok(act(t, sessionId, id, 'stand'))).roundStatus).toBe('settled');
    expect((await act(t, sessionId, id, 'hit')).json().code).toBe('ROUND_NOT_ACTIVE');
  });

  it('blackjack is not accepted on POST /api/bets; limits are checked before any debit', async () => {
    expect((await post(t, '/api/bets', { sessionId, gameType: 'blackjack', amount: 1, idempotencyKey: key() })).json().code).toBe('VALIDATION_ERROR');
    expect((await start(t, sessionId, { amount: 100_001 })).json().code).toBe('BET_OUT_OF_RANGE');
    expect((await start(t, sessionId, { amount: 0.001 })).json().code).toBe('VALIDATION_ERROR');
  });
});

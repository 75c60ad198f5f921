/**
 * The browser verifier's core (issue 12): a stored round is recomputed with the server's own rules
 * and compared; Blackjack's actions are found again from the table; the steps show each HMAC
 * message, digest and float (CONTRACT.md §9 check value).
 */
import { describe, expect, it } from 'vitest';
import { blackjackActionsOf, checkRound, floatsOfRound, streamSteps } from '../src/fairness/round-check.js';
import { floats } from '../src/fairness/stream.js';
import { hashServerSeed } from '../src/fairness/seeds.js';
import { applyBlackjackAction, isFinal, legalActions, settlement, startBlackjack } from '../src/games/blackjack.js';
import { blackjackResultView } from '../src/games/blackjack-view.js';
import { verifyBet } from '../src/fairness/verify.js';

const serverSeed = '18e93f4a7b5b58d2569765766d1b6c3296bbd8430d6f20249044d72f14720159';
const common = { serverSeed, serverSeedHash: hashServerSeed(serverSeed), clientSeed: 'bb62964774', nonce: 1, amountMinor: 100n, currency: 'USD' };

describe('streamSteps', () => {
  it('shows the CONTRACT.md §9 check value: message, round-0 digest, first float', () => {
    const [first] = streamSteps(serverSeed, 'bb62964774', 1, 3);
    expect(first?.message).toBe('bb62964774:1:0');
    expect(first?.digestHex).toBe('c590d171e39b70404ee1fff2ce09c3e1090688e1320a9cd27f58b1ac3dfa8c92');
    expect(first?.floats[0]).toMatchObject({ index: 0, bytesHex: 'c590d171' });
    expect(first?.floats[0]?.value).toBeCloseTo(0.771740999306, 11);
    expect(first?.floats).toHaveLength(3);
  });
  it('takes a second digest past 8 floats', () => {
    const steps = streamSteps(serverSeed, 'x', 0, 10);
    expect(steps.map((s) => s.message)).toEqual(['x:0:0', 'x:0:1']);
    expect(steps.flatMap((s) => s.floats.map((f) => f.value))).toEqual(floats(serverSeed, 'x', 0, 10));
  });
  it('counts the floats each game takes', () => {
    expect(floatsOfRound('dice', { target: 50, direction: 'over' })).toBe(1);
    expect(floatsOfRound('plinko', { rows: 12 })).toBe(12);
    expect(floatsOfRound('keno', { picks: [1] })).toBe(10);
    expect(floatsOfRound('mines', {})).toBe(24);
    expect(floatsOfRound('blackjack', {})).toBe(52);
  });
});

describe('checkRound', () => {
  it('verifies the check value dice and limbo bets, and refuses a changed outcome or seed', () => {
    const dice = checkRound({ ...common, gameType: 'dice', params: { target: 50, direction: 'over' }, result: { roll: 77.18 }, payoutMinor: 198n });
    expect(dice).toMatchObject({ hashMatches: true, verified: true, problem: null });
    expect(dice.compared).toEqual([
      { what: 'roll', stored: '77.18', recomputed: '77.18' },
      { what: 'payout', stored: '198', recomputed: '198' },
    ]);
    expect(checkRound({ ...common, gameType: 'limbo', params: { target: 1.2 }, result: { result: 1.28 } }).verified).toBe(true);
    expect(checkRound({ ...common, gameType: 'dice', params: { target: 50, direction: 'over' }, result: { roll: 77.19 } }).verified).toBe(false);
    const wrongSeed = checkRound({
      ...common,
      serverSeedHash: 'a'.repeat(64),
      gameType: 'dice',
      params: { target: 50, direction: 'over' },
      result: { roll: 77.18 },
    });
    expect(wrongSeed).toMatchObject({ hashMatches: false, verified: false });
  });

  it('verifies a Mines round from its reveals', () => {
    const out = verifyBet({ ...common, gameType: 'mines', params: { mineCount: 3, revealed: [] } });
    const mines = (out.result as { mines: number[] }).mines;
    const safe = [0, 1, 2, 3, 4].filter((t) => !mines.includes(t)).slice(0, 2);
    const stored = verifyBet({ ...common, gameType: 'mines', params: { mineCount: 3, revealed: safe } });
    const check = checkRound({
      ...common,
      gameType: 'mines',
      params: { mineCount: 3 },
      result: stored.result as Record<string, unknown>,
      payoutMinor: stored.payoutMinor,
    });
    expect(check.verified).toBe(true);
  });

  it('finds the actions of played Blackjack rounds and recomputes their payout', () => {
    for (let nonce = 0; nonce < 60; nonce++) {
      const fl = floats(serverSeed, 'bj', nonce, 52);
      let s = startBlackjack(fl, 100n);
      let step = 0;
      while (!isFinal(s)) {
        const legal = legalActions(s);
        const action = legal[(nonce + step++) % legal.length]!;
        s = applyBlackjackAction(s, action).state;
      }
      const view = blackjackResultView(s, (m) => Number(m) / 100);
      const actions = blackjackActionsOf(fl, 100n, view);
      expect(actions, `nonce ${nonce}`).not.toBeNull();
      const check = checkRound({
        ...common,
        clientSeed: 'bj',
        nonce,
        gameType: 'blackjack',
        params: {},
        result: view as unknown as Record<string, unknown>,
        payoutMinor: settlement(s).totalPayout,
      });
      expect(check.verified, `nonce ${nonce}: ${check.problem}`).toBe(true);
    }
  });

  it('says so when no play of the cards gives the table', () => {
    const fl = floats(serverSeed, 'bj', 0, 52);
    expect(blackjackActionsOf(fl, 100n, { dealer: { cards: ['AS', 'KS'] }, hands: [{ cards: ['2D', '2H'] }] })).toBeNull();
  });
});

/** POST /api/verify as a pure function (CONTRACT.md §9, §12 "Verify"). */
import { code } from './helpers.js';
import { describe, it, expect } from 'vitest';
import { verifyBet } from '../src/fairness/verify.js';
import type { VerifyInput } from '../src/fairness/verify.js';
import { floats } from '../src/fairness/stream.js';
import { hashServerSeed } from '../src/fairness/seeds.js';
import { applyBlackjackAction, legalActions, settlement, startBlackjack } from '../src/games/blackjack.js';
import type { BlackjackAction } from '../src/games/blackjack.js';
import { cardFromFloat } from '../src/games/blackjack-cards.js';
import { minePositions } from '../src/games/mines.js';

const serverSeed = '18e93f4a7b5b58d2569765766d1b6c3296bbd8430d6f20249044d72f14720159';
const base: VerifyInput = {
  gameType: 'dice',
  serverSeed,
  serverSeedHash: hashServerSeed(serverSeed),
  clientSeed: 'bb62964774',
  nonce: 1,
  amountMinor: 100n,
  currency: 'USD',
  params: { target: 50, direction: 'over' },
};

describe('verifyBet', () => {
  it('recomputes the check value bets', () => {
    expect(verifyBet(base)).toEqual({
      gameType: 'dice',
      result: { roll: 77.18, target: 50, direction: 'over', winChance: 50 },
      multiplier4: 19_800n,
      payoutMinor: 198n,
      won: true,
      totalStakedMinor: 100n,
    });
    const limbo = verifyBet({ ...base, gameType: 'limbo', params: { target: 1.29 } });
    expect(limbo).toMatchObject({ result: { result: 1.28, target: 1.29 }, multiplier4: 0n, payoutMinor: 0n, won: false });
  });

  it('refuses a seed that does not match its hash, and bad inputs', () => {
    expect(code(() => verifyBet({ ...base, serverSeedHash: hashServerSeed('other') }))).toBe('VALIDATION_ERROR');
    expect(code(() => verifyBet({ ...base, serverSeed: '', serverSeedHash: hashServerSeed('') }))).toBe('VALIDATION_ERROR');
    const long = 'x'.repeat(257);
    expect(code(() => verifyBet({ ...base, serverSeed: long, serverSeedHash: hashServerSeed(long) }))).toBe('VALIDATION_ERROR');
    expect(code(() => verifyBet({ ...base, amountMinor: 0n }))).toBe('VALIDATION_ERROR');
    expect(code(() => verifyBet({ ...base, nonce: -1 }))).toBe('VALIDATION_ERROR');
    expect(code(() => verifyBet({ ...base, gameType: 'roulette' }))).toBe('VALIDATION_ERROR');
    expect(code(() => verifyBet({ ...base, currency: 'JPY' }))).toBe('UNSUPPORTED_CURRENCY');
    expect(code(() => verifyBet({ ...base, params: { target: 50 } }))).toBe('VALIDATION_ERROR');
    expect(code(() => verifyBet({ ...base, gameType: 'keno', params: { picks: [3, 3] } }))).toBe('VALIDATION_ERROR');
    expect(code(() => verifyBet({ ...base, params: { target: 99, direction: 'over' } }))).toBe('INVALID_GAME_PARAMS');
  });

  it('accepts any seed text of 1 to 256 characters and an uppercase hash', () => {
    const seed = 'Seed from another casino ✓ '.repeat(9).slice(0, 256);
    expect(verifyBet({ ...base, serverSeed: seed, serverSeedHash: hashServerSeed(seed).toUpperCase() }).gameType).toBe('dice');
  });

  it('Mines: result.mines from mineCount, multiplier from revealed', () => {
    const mines = minePositions(floats(serverSeed, 'bb62964774', 1, 24), 3);
    expect(mines).toEqual([7, 19, 22]);
    const none = verifyBet({ ...base, gameType: 'mines', params: { mineCount: 3 } });
    expect(none).toMatchObject({ result: { mineCount: 3, revealed: [], multiplier: 0, mines }, multiplier4: 0n, payoutMinor: 0n });
    const three = verifyBet({ ...base, gameType: 'mines', params: { mineCount: 3, revealed: [0, 1, 2] } });
    expect(three).toMatchObject({ multiplier4: 14_785n, payoutMinor: 147n, won: true, result: { revealed: [0, 1, 2], mines } });
    const bust = verifyBet({ ...base, gameType: 'mines', params: { mineCount: 3, revealed: [0, 19] } });
    expect(bust).toMatchObject({ multiplier4: 0n, payoutMinor: 0n, won: false, result: { revealed: [0, 19], multiplier: 0 } });
    expect(code(() => verifyBet({ ...base, gameType: 'mines', params: { mineCount: 3, revealed: [0, 19, 3] } }))).toBe('VALIDATION_ERROR');
    expect(code(() => verifyBet({ ...base, gameType: 'mines', params: { mineCount: 3, revealed: [0, 0] } }))).toBe('VALIDATION_ERROR');
    expect(code(() => verifyBet({ ...base, gameType: 'mines', params: { mineCount: 25 } }))).toBe('VALIDATION_ERROR');
  });

  it('Blackjack: the 52 cards, and the round played by params.actions', () => {
    const fl = floats(serverSeed, 'bb62964774', 1, 52);
    const r = verifyBet({ ...base, gameType: 'blackjack', params: {} });
    expect((r.result as { cards: string[] }).cards).toEqual(fl.map(cardFromFloat));
    // nonce 1 deals QD KS vs 6D: stand
    const stood = verifyBet({ ...base, gameType: 'blackjack', params: { actions: ['stand'] } });
    const direct = settlement(applyBlackjackAction(startBlackjack(fl, 100n), 'stand').state);
    expect(stood).toMatchObject({ payoutMinor: direct.totalPayout, multiplier4: direct.multiplier4, totalStakedMinor: 100n });
    expect((stood.result as { hands: unknown[]; activeHand: unknown }).activeHand).toBeNull();
    expect(code(() => verifyBet({ ...base, gameType: 'blackjack', params: { actions: ['split'] } }))).toBe('VALIDATION_ERROR');
    expect(code(() => verifyBet({ ...base, gameType: 'blackjack', params: { actions: ['stand', 'hit'] } }))).toBe('VALIDATION_ERROR');
    expect(code(() => verifyBet({ ...base, gameType: 'blackjack', params: { actions: ['decline_insurance'] } }))).toBe('VALIDATION_ERROR');
    expect(code(() => verifyBet({ ...base, gameType: 'blackjack', params: { actions: ['surrender'] } }))).toBe('VALIDATION_ERROR');
  });

  it('Blackjack: replays many rounds exactly like the engine, amounts in the currency decimals', () => {
    for (let nonce = 0; nonce < 200; nonce += 1) {
      const fl = floats(serverSeed, 'bb62964774', nonce, 52);
      let s = startBlackjack(fl, 150n);
      const actions: BlackjackAction[] = [];
      while (legalActions(s).length > 0) {
        const legal = legalActions(s);
        const a = legal[(nonce + actions.length) % legal.length]!;
        actions.push(a);
        s = applyBlackjackAction(s, a).state;
      }
      const st = settlement(s);
      const r = verifyBet({ ...base, nonce, gameType: 'blackjack', amountMinor: 150n, currency: 'EUR', params: { actions } });
      expect(r).toMatchObject({ payoutMinor: st.totalPayout, multiplier4: st.multiplier4, won: st.won, totalStakedMinor: st.totalStaked });
      const hands = (r.result as { hands: Array<{ bet: number }> }).hands;
      expect(hands.every((h) => h.bet === 1.5 || h.bet === 3)).toBe(true);
    }
  });
});

/** Blackjack engine (SPEC.md rule 7, CONTRACT.md §10, §12, §13) on scripted decks. */
import { describe, it, expect } from 'vitest';
import { applyBlackjackAction, availableActions, isFinal, legalActions, requiredDebit, settlement, startBlackjack } from '../src/games/blackjack.js';
import type { BlackjackAction, BlackjackState } from '../src/games/blackjack.js';
import { blackjackResultView } from '../src/games/blackjack-view.js';
import { CARDS, cardFromFloat, handValue } from '../src/games/blackjack-cards.js';
import { blackjackStateSchema } from '../src/games/state-schemas.js';
import { deck, floatForCard } from './helpers.js';

const view = (s: BlackjackState) => blackjackResultView(s, (m) => Number(m));

function play(cards: string[], bet: bigint, actions: BlackjackAction[]): BlackjackState {
  let s = startBlackjack(deck(cards), bet);
  for (const a of actions) s = applyBlackjackAction(s, a).state;
  return s;
}

function expectCode(fn: () => unknown, code: string): void {
  expect(fn).toThrow(expect.objectContaining({ code }));
}

describe('cards', () => {
  it('orders CARDS rank by rank, suits D H S C', () => {
    expect(CARDS.slice(0, 5)).toEqual(['2D', '2H', '2S', '2C', '3D']);
    expect(CARDS.slice(32, 36)).toEqual(['10D', '10H', '10S', '10C']);
    expect(CARDS.slice(-4)).toEqual(['AD', 'AH', 'AS', 'AC']);
    expect(CARDS).toHaveLength(52);
  });
  it('maps floats by floor(f × 52)', () => {
    expect(cardFromFloat(0)).toBe('2D');
    expect(cardFromFloat(1 / 52)).toBe('2H');
    expect(cardFromFloat(1 - 2 ** -32)).toBe('AC');
    expect(cardFromFloat(floatForCard('10H'))).toBe('10H');
  });
  it('values hands with soft aces', () => {
    expect(handValue(['AS', '6D'])).toEqual({ value: 17, soft: true });
    expect(handValue(['AS', '6D', '10C'])).toEqual({ value: 17, soft: false });
    expect(handValue(['AS', 'AD', '9C'])).toEqual({ value: 21, soft: true });
    expect(handValue(['KS', 'QD', '2C'])).toEqual({ value: 22, soft: false });
  });
});

describe('naturals and the peek', () => {
  it('player blackjack vs no dealer blackjack pays bet + floor(3·bet/2) at once, dealer draws nothing', () => {
    for (const [bet, payout] of [
      [100n, 250n],
      [101n, 252n],
      [1n, 2n],
    ] as const) {
      const s = startBlackjack(deck(['AS', 'KD', '9H', '7C', '5D']), bet);
      expect(isFinal(s)).toBe(true);
      const st = settlement(s);
      expect(st.hands).toEqual([{ outcome: 'blackjack', payout }]);
      expect(st.totalPayout).toBe(payout);
      expect(s.dealer).toEqual(['9H', '7C']);
      expect(view(s).hands[0]?.status).toBe('stood');
    }
  });

  it('player blackjack vs dealer blackjack (ten up) is a push', () => {
    const s = startBlackjack(deck(['AS', 'KD', 'QH', 'AC']), 100n);
    expect(isFinal(s)).toBe(true);
    expect(settlement(s).hands).toEqual([{ outcome: 'push', payout: 100n }]);
  });

  it('dealer blackjack with a ten up ends the round at once; the hand is stood and loses', () => {
    const s = startBlackjack(deck(['KS', 'QD', '10H', 'AD']), 100n);
    expect(isFinal(s)).toBe(true);
    expect(s.insurance.offered).toBe(false);
    const v = view(s);
    expect(v.hands[0]).toMatchObject({ status: 'stood', outcome: 'lose', payout: 0, value: 20 });
    expect(v.dealer).toEqual({ cards: ['10H', 'AD'], value: 21, soft: true });
    expect(v.cards).toHaveLength(52);
    expect(v.actions).toEqual([]);
  });

  it('peeks with a ten up: no blackjack, play goes on', () => {
    const s = startBlackjack(deck(['KS', '7D', 'JH', '9D']), 100n);
    expect(isFinal(s)).toBe(false);
    expect(availableActions(s)).toEqual(['hit', 'stand', 'double']);
  });

  it('no peek with a low up card', () => {
    const s = startBlackjack(deck(['KS', '7D', '5H', 'AD']), 100n);
    expect(s.phase).toBe('player');
  });
});

describe('insurance', () => {
  it('is offered on an Ace up; while offered only insurance is available', () => {
    const s = startBlackjack(deck(['KS', '7D', 'AH', 'KD']), 100n);
    expect(s.phase).toBe('insurance');
    expect(availableActions(s)).toEqual(['insurance']);
    expect(legalActions(s)).toEqual(['insurance', 'decline_insurance']);
    const v = view(s);
    expect(v.hands[0]?.status).toBe('playing');
    expect(v.activeHand).toBe(0);
    expect(v.insurance).toEqual({ offered: true, taken: null, amount: 0, payout: 0 });
    expect(v.dealer).toEqual({ cards: ['AH'], value: 11, soft: true });
    expect(v.cards).toBeUndefined();
    for (const a of ['hit', 'stand', 'double', 'split'] as const) expectCode(() => requiredDebit(s, a), 'ACTION_NOT_AVAILABLE');
  });

  it('taken and won: costs floor(bet/2), returns 3× its stake; the hand loses to the blackjack', () => {
    const s0 = startBlackjack(deck(['KS', '7D', 'AH', 'KD']), 101n);
    expect(requiredDebit(s0, 'insurance')).toEqual({ kind: 'insurance', amount: 50n });
    const { state: s, extraDebit } = applyBlackjackAction(s0, 'insurance');
    expect(extraDebit).toEqual({ kind: 'insurance', amount: 50n });
    expect(isFinal(s)).toBe(true);
    const st = settlement(s);
    expect(st.insurancePayout).toBe(150n);
    expect(st.hands).toEqual([{ outcome: 'lose', payout: 0n }]);
    expect(st.totalStaked).toBe(151n);
    expect(st.totalPayout).toBe(150n);
    expect(st.multiplier4).toBe(9933n);
    expect(st.won).toBe(false);
    expect(view(s).insurance).toEqual({ offered: true, taken: true, amount: 50, payout: 150 });
    expect(view(s).hands[0]?.status).toBe('stood');
  });

  it('declined against a dealer blackjack: the bet is lost', () => {
    const { state: s, extraDebit } = applyBlackjackAction(startBlackjack(deck(['KS', '7D', 'AH', 'KD']), 100n), 'decline_insurance');
    expect(extraDebit).toBeUndefined();
    expect(isFinal(s)).toBe(true);
    expect(settlement(s).totalPayout).toBe(0n);
    expect(view(s).insurance).toEqual({ offered: true, taken: false, amount: 0, payout: 0 });
  });

  it('taken and lost: the round goes on, insurance pays 0', () => {
    let s = startBlackjack(deck(['KS', '9D', 'AH', '7D']), 100n);
    s = applyBlackjackAction(s, 'insurance').state;
    expect(s.phase).toBe('player');
    s = applyBlackjackAction(s, 'stand').state; // 19 vs soft 18: dealer stands
    const st = settlement(s);
    expect(st.hands).toEqual([{ outcome: 'win', payout: 200n }]);
    expect(st.insurancePayout).toBe(0n);
    expect(st.totalStaked).toBe(150n);
    expect(st.multiplier4).toBe(13333n);
  });

  it('is offered against a player blackjack too: push + insurance, or blackjack − insurance', () => {
    const both = applyBlackjackAction(startBlackjack(deck(['AS', 'KD', 'AH', 'QC']), 100n), 'insurance').state;
    expect(settlement(both)).toMatchObject({ totalPayout: 250n, totalStaked: 150n, insurancePayout: 150n });
    expect(settlement(both).hands).toEqual([{ outcome: 'push', payout: 100n }]);
    const playerOnly = applyBlackjackAction(startBlackjack(deck(['AS', 'KD', 'AH', '5C']), 100n), 'insurance').state;
    expect(settlement(playerOnly)).toMatchObject({ totalPayout: 250n, totalStaked: 150n, insurancePayout: 0n });
    expect(playerOnly.dealer).toEqual(['AH', '5C']);
  });

  it('is not offered when half the bet is below one minor unit', () => {
    const s = startBlackjack(deck(['KS', '7D', 'AH', 'KD']), 1n);
    expect(s.insurance.offered).toBe(false);
    expect(isFinal(s)).toBe(true); // peeked: dealer blackjack
    expect(settlement(s).totalPayout).toBe(0n);
  });
});

describe('player actions', () => {
  it('double: stake doubled, one card, then the dealer', () => {
    const s0 = startBlackjack(deck(['6S', '5D', '6H', '10D', 'KC', '9S']), 100n);
    expect(requiredDebit(s0, 'double')).toEqual({ kind: 'double', hand: 0, amount: 100n });
    const { state: s, extraDebit } = applyBlackjackAction(s0, 'double');
    expect(extraDebit).toEqual({ kind: 'double', hand: 0, amount: 100n });
    expect(s.hands[0]).toMatchObject({ cards: ['6S', '5D', 'KC'], bet: '200', doubled: true, status: 'stood' });
    expect(s.dealer).toEqual(['6H', '10D', '9S']); // 16 draws, busts
    expect(settlement(s)).toMatchObject({ totalPayout: 400n, totalStaked: 200n, multiplier4: 20000n, won: true });
  });

  it('bust: the dealer turns the hole card and draws nothing', () => {
    const s = play(['10S', '6D', '7H', '9D', 'KC'], 100n, ['hit']);
    expect(s.hands[0]?.status).toBe('bust');
    expect(isFinal(s)).toBe(true);
    expect(s.dealer).toEqual(['7H', '9D']);
    expect(settlement(s).hands).toEqual([{ outcome: 'lose', payout: 0n }]);
  });

  it('a hand reaching 21 stands by itself', () => {
    const s = play(['5S', '6D', '7H', '10D', 'KC'], 100n, ['hit']);
    expect(s.hands[0]?.status).toBe('stood');
    expect(settlement(s).hands).toEqual([{ outcome: 'win', payout: 200n }]);
  });

  it('push returns the stake', () => {
    const s = play(['10S', '8D', '10H', '8C'], 100n, ['stand']);
    expect(settlement(s)).toMatchObject({ totalPayout: 100n, multiplier4: 10000n, won: false });
    expect(settlement(s).hands[0]?.outcome).toBe('push');
  });

  it('dealer stands on soft 17 and hits soft 16', () => {
    const s17 = play(['10S', '8D', '6H', 'AC', '2D'], 100n, ['stand']);
    expect(s17.dealer).toEqual(['6H', 'AC']);
    expect(settlement(s17).hands[0]?.outcome).toBe('win');
    const s16 = play(['10S', '8D', '5H', 'AC', '3D'], 100n, ['stand']);
    expect(s16.dealer).toEqual(['5H', 'AC', '3D']); // soft 16 draws → 19
    expect(settlement(s16).hands[0]?.outcome).toBe('lose');
  });

  it('no double after a hit; illegal actions are ACTION_NOT_AVAILABLE', () => {
    const s = play(['2S', '3D', '7H', '9D', '4C'], 100n, ['hit']);
    expect(availableActions(s)).toEqual(['hit', 'stand']);
    expectCode(() => applyBlackjackAction(s, 'double'), 'ACTION_NOT_AVAILABLE');
    expectCode(() => applyBlackjackAction(s, 'split'), 'ACTION_NOT_AVAILABLE');
    expectCode(() => applyBlackjackAction(s, 'insurance'), 'ACTION_NOT_AVAILABLE');
    const done = applyBlackjackAction(s, 'stand').state;
    expectCode(() => applyBlackjackAction(done, 'hit'), 'ACTION_NOT_AVAILABLE');
  });

  it('does not modify the state it is given', () => {
    const s = startBlackjack(deck(['8S', '8D', '7H', '9D']), 100n);
    const before = JSON.stringify(s);
    applyBlackjackAction(s, 'split');
    applyBlackjackAction(s, 'double');
    requiredDebit(s, 'hit');
    expect(JSON.stringify(s)).toBe(before);
  });
});

describe('split', () => {
  it('only equal ranks split: K+K yes, K+Q no', () => {
    expect(availableActions(startBlackjack(deck(['KS', 'KD', '7H', '9D']), 100n))).toContain('split');
    expect(availableActions(startBlackjack(deck(['KS', 'QD', '7H', '9D']), 100n))).not.toContain('split');
  });

  it('split aces: one card each, stand; A+10 is 21, not blackjack', () => {
    const s0 = startBlackjack(deck(['AS', 'AD', '6H', '10D', 'KC', '5S', '5D']), 100n);
    const { state: s, extraDebit } = applyBlackjackAction(s0, 'split');
    expect(extraDebit).toEqual({ kind: 'split', amount: 100n });
    expect(isFinal(s)).toBe(true);
    expect(s.hands.map((h) => [h.cards, h.status])).toEqual([
      [['AS', 'KC'], 'stood'],
      [['AD', '5S'], 'stood'],
    ]);
    expect(s.dealer).toEqual(['6H', '10D', '5D']); // 21
    const st = settlement(s);
    expect(st.hands).toEqual([
      { outcome: 'push', payout: 100n },
      { outcome: 'lose', payout: 0n },
    ]);
    expect(st.totalStaked).toBe(200n);
  });

  it('split tens with doubles on both hands; hand 2 takes its second card after hand 1 is played', () => {
    let s = startBlackjack(deck(['10S', '10D', '6H', '10C', '2C', '9S', '3D', '5H', '4S']), 100n);
    s = applyBlackjackAction(s, 'split').state;
    expect(s.hands.map((h) => h.cards)).toEqual([['10S', '2C'], ['10D']]);
    expect(s.activeHand).toBe(0);
    expect(availableActions(s)).toEqual(['hit', 'stand', 'double']); // split once only
    const d0 = applyBlackjackAction(s, 'double');
    expect(d0.extraDebit).toEqual({ kind: 'double', hand: 0, amount: 100n });
    s = d0.state;
    expect(s.hands.map((h) => h.cards)).toEqual([
      ['10S', '2C', '9S'],
      ['10D', '3D'],
    ]);
    expect(s.activeHand).toBe(1);
    const active = view(s);
    expect(active.dealer).toEqual({ cards: ['6H'], value: 6, soft: false });
    expect(active.hands[0]).not.toHaveProperty('outcome');
    const d1 = applyBlackjackAction(s, 'double');
    expect(d1.extraDebit).toEqual({ kind: 'double', hand: 1, amount: 100n });
    s = d1.state;
    expect(s.dealer).toEqual(['6H', '10C', '4S']); // 20
    const st = settlement(s);
    expect(st.hands).toEqual([
      { outcome: 'win', payout: 400n },
      { outcome: 'lose', payout: 0n },
    ]);
    expect(st).toMatchObject({ totalStaked: 400n, totalPayout: 400n, multiplier4: 10000n, won: false });
    const v = view(s);
    expect(v.hands.map((h) => [h.value, h.bet, h.doubled, h.status])).toEqual([
      [21, 200, true, 'stood'],
      [18, 200, true, 'stood'],
    ]);
    expect(v.activeHand).toBeNull();
  });

  it('a split hand reaching 21 on its second card stands by itself', () => {
    let s = startBlackjack(deck(['KS', 'KD', '7H', '10C', 'AC', '8S']), 100n);
    s = applyBlackjackAction(s, 'split').state;
    expect(s.hands[0]).toMatchObject({ cards: ['KS', 'AC'], status: 'stood' });
    expect(s.activeHand).toBe(1);
    expect(s.hands[1]?.cards).toEqual(['KD', '8S']);
    s = applyBlackjackAction(s, 'stand').state;
    expect(settlement(s).hands.map((h) => h.outcome)).toEqual(['win', 'win']); // 21 (not blackjack), 18 vs 17
  });

  it('when both split hands bust the dealer draws nothing', () => {
    const s = play(['8S', '8D', '7H', '10C', '5C', 'KS', '6D', 'QS'], 100n, ['split', 'hit', 'hit']);
    expect(s.hands.map((h) => h.status)).toEqual(['bust', 'bust']);
    expect(s.dealer).toEqual(['7H', '10C']);
    expect(settlement(s).totalPayout).toBe(0n);
  });
});

describe('state', () => {
  it('is plain JSON and reads back with its schema', () => {
    let s = startBlackjack(deck(['8S', '8D', '7H', '9D']), 100n);
    s = applyBlackjackAction(s, 'split').state;
    const back = blackjackStateSchema.parse(JSON.parse(JSON.stringify(s)));
    expect(back).toEqual(s);
    expect(applyBlackjackAction(back, 'stand').state).toEqual(applyBlackjackAction(s, 'stand').state);
  });
});

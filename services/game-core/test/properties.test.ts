/** Property tests (fast-check): outcomes depend only on their inputs and keep the rules' invariants. */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { floats } from '../src/fairness/stream.js';
import { hashServerSeed } from '../src/fairness/seeds.js';
import { verifyBet } from '../src/fairness/verify.js';
import { INSTANT_GAMES } from '../src/games/games.js';
import { diceMultiplier4, isValidWindow } from '../src/games/dice.js';
import { applyBlackjackAction, isFinal, legalActions, settlement, startBlackjack, totalStaked } from '../src/games/blackjack.js';
import type { BlackjackState } from '../src/games/blackjack.js';
import { blackjackResultView } from '../src/games/blackjack-view.js';
import { handValue } from '../src/games/blackjack-cards.js';
import { cashoutMultiplier, minesMultiplier4, revealTile, startMines } from '../src/games/mines.js';

const streamFloat = fc.integer({ min: 0, max: 2 ** 32 - 1 }).map((k) => k / 2 ** 32);
const floatsOf = (n: number) => fc.array(streamFloat, { minLength: n, maxLength: n });
const hundredths = (min: number, max: number) => fc.integer({ min, max }).map((h) => h / 100);
const diceParams = fc.record({ target: hundredths(0, 10_000), direction: fc.constantFrom('over' as const, 'under' as const) });
const kenoParams = fc.record({
  picks: fc.uniqueArray(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 10 }),
  risk: fc.constantFrom('classic' as const, 'low' as const, 'medium' as const, 'high' as const),
});
const plinkoParams = fc.record({
  rows: fc.integer({ min: 8, max: 16 }),
  risk: fc.constantFrom('low' as const, 'medium' as const, 'high' as const, 'expert' as const),
});

describe('the float stream', () => {
  it('is a deterministic function of (serverSeed, clientSeed, nonce); shorter streams are prefixes', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string(), fc.nat(), fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 40 }), (s, c, n, a, b) => {
        const long = floats(s, c, n, a + b);
        expect(floats(s, c, n, a)).toEqual(long.slice(0, a));
        expect(long.every((f) => f >= 0 && f < 1 && Number.isInteger(f * 2 ** 32))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('instant games', () => {
  it('dice: same inputs, same outcome; wins pay floor(99/winChance)', () => {
    fc.assert(
      fc.property(floatsOf(1), diceParams.filter(isValidWindow), (fl, p) => {
        const a = INSTANT_GAMES.dice.settle(fl, p);
        expect(INSTANT_GAMES.dice.settle([...fl], { ...p })).toEqual(a);
        expect(a.result.roll).toBeGreaterThanOrEqual(0);
        expect(a.result.roll).toBeLessThanOrEqual(100);
        const won = p.direction === 'over' ? a.result.roll > p.target : a.result.roll < p.target;
        expect(a.multiplier4).toBe(won ? diceMultiplier4(p) : 0n);
      }),
      { numRuns: 500 },
    );
  });
  it('limbo: result ≥ 1.00, win iff result ≥ target', () => {
    fc.assert(
      fc.property(floatsOf(1), hundredths(101, 100_000_000), (fl, target) => {
        const a = INSTANT_GAMES.limbo.settle(fl, { target });
        expect(INSTANT_GAMES.limbo.settle([...fl], { target })).toEqual(a);
        expect(a.result.result).toBeGreaterThanOrEqual(1);
        expect(a.multiplier4 > 0n).toBe(a.result.result >= target);
      }),
      { numRuns: 500 },
    );
  });
  it('plinko: bin is the number of rights, multiplier from the table', () => {
    fc.assert(
      fc.property(floatsOf(16), plinkoParams, (fl, p) => {
        const a = INSTANT_GAMES.plinko.settle(fl, p);
        expect(INSTANT_GAMES.plinko.settle([...fl], { ...p })).toEqual(a);
        expect(a.result.path).toHaveLength(p.rows);
        expect(a.result.bin).toBe(a.result.path.filter((x) => x === 1).length);
        expect(a.multiplier4 <= INSTANT_GAMES.plinko.maxMultiplier4(p)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
  it('keno: 10 distinct numbers drawn, hits = picks ∩ drawn ascending', () => {
    fc.assert(
      fc.property(floatsOf(10), kenoParams, (fl, p) => {
        const a = INSTANT_GAMES.keno.settle(fl, p);
        expect(INSTANT_GAMES.keno.settle([...fl], { ...p, picks: [...p.picks] })).toEqual(a);
        expect(new Set(a.result.drawn).size).toBe(10);
        expect(a.result.drawn.every((d) => d >= 1 && d <= 40)).toBe(true);
        expect(a.result.hits).toEqual(p.picks.filter((x) => a.result.drawn.includes(x)).sort((x, y) => x - y));
      }),
      { numRuns: 300 },
    );
  });
  it('verifyBet is a function of its inputs and agrees with settling the stream', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 80 }),
        fc.string({ minLength: 1, maxLength: 64 }),
        fc.nat(),
        diceParams.filter(isValidWindow),
        (s, c, nonce, params) => {
          const input = { gameType: 'dice', serverSeed: s, serverSeedHash: hashServerSeed(s), clientSeed: c, nonce, amountMinor: 1000n, params };
          const r = verifyBet(input);
          expect(verifyBet({ ...input })).toEqual(r);
          expect(r.multiplier4).toBe(INSTANT_GAMES.dice.settle(floats(s, c, nonce, 1), params).multiplier4);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('mines', () => {
  it('mines are mineCount distinct tiles; any reveal order ends consistently', () => {
    fc.assert(
      fc.property(floatsOf(24), fc.integer({ min: 1, max: 24 }), fc.shuffledSubarray([...Array(25).keys()]), (fl, m, order) => {
        let s = startMines(fl, m);
        expect(new Set(s.mines).size).toBe(m);
        expect(startMines([...fl], m)).toEqual(s);
        for (const tile of order) {
          if (s.status !== 'active') break;
          s = revealTile(s, tile).state;
        }
        const safe = s.revealed.filter((t) => !s.mines.includes(t)).length;
        if (s.status === 'busted') expect(cashoutMultiplier(s)).toBe(0n);
        else if (safe > 0) expect(cashoutMultiplier(s)).toBe(minesMultiplier4(safe, m));
        if (safe === 25 - m) expect(s.status).toBe('cashed_out');
      }),
      { numRuns: 300 },
    );
  });
});

describe('blackjack', () => {
  /** Plays with choices picked by `choices`; returns the states along the way. */
  function playOut(fl: number[], bet: bigint, choices: number[]): BlackjackState[] {
    const states = [startBlackjack(fl, bet)];
    for (let i = 0; i < 40; i += 1) {
      const s = states[states.length - 1]!;
      const legal = legalActions(s);
      if (legal.length === 0) return states;
      states.push(applyBlackjackAction(s, legal[(choices[i] ?? 0) % legal.length]!).state);
    }
    throw new Error('a round did not end in 40 actions');
  }

  it('every play ends; cards are dealt in deck order; stakes and payouts stay within the rules', () => {
    fc.assert(
      fc.property(floatsOf(52), fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.array(fc.nat(), { maxLength: 40 }), (fl, bet, choices) => {
        const states = playOut(fl, bet, choices);
        const last = states[states.length - 1]!;
        expect(isFinal(last)).toBe(true);
        // replaying the same inputs gives the same round; a JSON round trip changes nothing
        expect(playOut([...fl], bet, [...choices])).toEqual(states);
        for (const s of states) expect(JSON.parse(JSON.stringify(s))).toEqual(s);
        // every dealt card is the next card of the deck: player's (in hand order), then the dealer's draws
        const dealt = [...last.hands.flatMap((h) => h.cards), ...last.dealer];
        expect(dealt.sort()).toEqual(last.deck.slice(0, last.next).sort());
        expect(last.dealer.slice(2)).toEqual(last.deck.slice(last.next - (last.dealer.length - 2), last.next));
        const st = settlement(last);
        expect(st.totalStaked).toBe(totalStaked(last));
        expect(st.totalStaked <= 4n * bet + bet / 2n).toBe(true);
        expect(st.totalPayout <= 8n * bet).toBe(true);
        // the dealer draws only while below 17, and nothing when every hand busted or after a blackjack
        const dv = handValue(last.dealer);
        if (last.dealer.length > 2) expect(handValue(last.dealer.slice(0, -1)).value).toBeLessThan(17);
        if (last.hands.every((h) => h.status === 'bust')) expect(last.dealer).toHaveLength(2);
        expect(dv.value).toBeGreaterThanOrEqual(last.dealer.length > 2 ? 17 : 2);
        // the player view never leaks the hole card or the deck
        for (const s of states.slice(0, -1)) {
          const v = blackjackResultView(s, (m) => m.toString());
          expect(v.dealer.cards).toHaveLength(1);
          expect(v.cards).toBeUndefined();
        }
      }),
      { numRuns: 1000 },
    );
  });
});

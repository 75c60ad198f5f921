/** The prize drop's public rule (issue 30): checked against node:crypto, independently of @noble/hashes. */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dropDraw, dropTicket, dropTicketWins, drawPrizeDrop, verifyPrizeDrop } from '../src/fairness/prize-drop.js';

const SEED = '18e93f4a7b5b58d2569765766d1b6c3296bbd8430d6f20249044d72f14720159';
const hash = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');

describe('prize-drop-v1', () => {
  it('a ticket is the SHA-256 hex of the round id; its draw the first 4 HMAC bytes', () => {
    const ticket = dropTicket('5b0c8a7e-0000-4000-8000-000000000001');
    expect(ticket).toBe(hash('5b0c8a7e-0000-4000-8000-000000000001'));
    expect(dropDraw(SEED, ticket)).toBe(createHmac('sha256', SEED).update(ticket).digest().readUInt32BE(0));
  });

  it('wins exactly when u × oneIn < 2^32; oneIn 1 always wins', () => {
    for (let i = 0; i < 200; i++) {
      const t = dropTicket(`r-${i}`);
      const u = createHmac('sha256', SEED).update(t).digest().readUInt32BE(0);
      expect(dropTicketWins(SEED, t, 7)).toBe(u * 7 < 2 ** 32);
      expect(dropTicketWins(SEED, t, 1)).toBe(true);
    }
    expect(() => dropTicketWins(SEED, 'x', 0)).toThrow(RangeError);
  });

  it('awards the prizes in order to the winning tickets in seq order, and a verifier recomputes them', () => {
    const entries = Array.from({ length: 300 }, (_, i) => ({ seq: i + 1, ticket: dropTicket(`round-${i}`) }));
    const awards = drawPrizeDrop({ serverSeed: SEED, oneIn: 10, prizeCount: 5, entries });
    expect(awards.map((a) => a.prize)).toEqual([0, 1, 2, 3, 4]);
    for (let i = 1; i < awards.length; i++) expect(awards[i]!.seq).toBeGreaterThan(awards[i - 1]!.seq);
    // continuing a draw from where it stopped gives the same awards
    const cut = awards[1]!.seq;
    const first = drawPrizeDrop({ serverSeed: SEED, oneIn: 10, prizeCount: 5, entries: entries.slice(0, cut) });
    const rest = drawPrizeDrop({ serverSeed: SEED, oneIn: 10, prizeCount: 5, entries: entries.slice(cut), prizesAwardedBefore: first.length });
    expect([...first, ...rest]).toEqual(awards);
    const proof = { serverSeed: SEED, serverSeedHash: hash(SEED), oneIn: 10, prizeCount: 5, entries, awards };
    expect(verifyPrizeDrop(proof).ok).toBe(true);
    expect(verifyPrizeDrop({ ...proof, awards: awards.slice(1) }).ok).toBe(false);
    expect(verifyPrizeDrop({ ...proof, serverSeed: SEED.replace('1', '2') }).problems[0]).toMatch(/hash/);
  });
});

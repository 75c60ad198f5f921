/**
 * The short noisy-neighbour run (issue 23; the long one is part of `npm run chaos`): a calm and a
 * hostile casino on one provider process. The hostile wallet answers huge bodies or slowly, its
 * players bet at once, a flood opens sessions, wrong signatures arrive. The calm casino loses no
 * bet and no unit, /health never fails, and the hostile casino gets clear errors. Timings are
 * printed (docs/reliability.md), never asserted here.
 */
import { describe, expect, it } from 'vitest';
import { noisyVerdicts, runNoisyNeighbour } from '../src/noisy-neighbour.js';

describe('noisy neighbour (short)', () => {
  it("a hostile casino's wallet and players leave the calm casino's bets, money and /health alone", async () => {
    const lines: string[] = [];
    const r = await runNoisyNeighbour({
      slot: 'noisyTest',
      seconds: 4,
      calmPlayers: 4,
      hostileConcurrency: 8,
      hugeBytes: 8 * 1024 * 1024,
      processes: 1,
      print: (l) => lines.push(l),
    });
    const summary = [...lines, ...noisyVerdicts(r).map((v) => `${v.what}: ${v.value}`)].join('\n');
    console.log(summary);
    expect(r.baseline.bets, summary).toBeGreaterThan(0);
    expect(r.hostile.bets, summary).toBeGreaterThan(0);
    expect(r.baseline.errors + r.hostile.errors, summary).toBe(0);
    expect(r.moneyMismatches, summary).toEqual([]);
    expect(r.calmOpen, summary).toBe(0);
    expect(r.baseline.healthFailures + r.hostile.healthFailures, summary).toBe(0);
    // the hostile casino was really hostile, and was answered clearly
    expect(r.hostileAnswers.total(), summary).toBeGreaterThan(0);
    expect(
      [...r.hostileAnswers.counts.keys()].some((k) => k.startsWith('bet: 502')),
      summary,
    ).toBe(true);
    expect(r.unclear, summary).toBe(0);
  });
});

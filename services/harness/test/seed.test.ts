/**
 * `--seed` makes the harness's own choices repeat (issue 16 item 1): the kill and Redis-restart
 * schedule, which process each kill hits, and the players' draws (games, amounts, params) come from
 * generators seeded by it. The interleaving of concurrent requests cannot repeat (README).
 */
import { describe, expect, it } from 'vitest';
import { chaosSchedule } from '../src/chaos.js';
import { rng, settledParams } from '../src/strategies.js';

describe('--seed', () => {
  it('repeats the schedule of kills and Redis restarts, and the victims', () => {
    const a = chaosSchedule(rng(2026), 6, 1, 2);
    const b = chaosSchedule(rng(2026), 6, 1, 2);
    expect(a).toEqual(b);
    expect(a.events.filter((e) => e.kind === 'kill')).toHaveLength(6);
    expect(a.events.filter((e) => e.kind === 'redis')).toHaveLength(1);
    for (const e of a.events) {
      expect(e.at).toBeGreaterThan(0.05);
      expect(e.at).toBeLessThan(0.8);
    }
    expect(new Set(a.killOrder)).toEqual(new Set([0, 1])); // both processes are killed
    expect(chaosSchedule(rng(2027), 6, 1, 2)).not.toEqual(a);
  });

  it("repeats a player's draws", () => {
    const draws = (seed: number) => {
      const r = rng(seed);
      return Array.from({ length: 50 }, (_, i) => settledParams((['dice', 'limbo', 'plinko', 'keno'] as const)[i % 4]!, r, { invalidDiceShare: 0.05 }));
    };
    expect(draws(7)).toEqual(draws(7));
    expect(draws(7)).not.toEqual(draws(8));
  });
});

/**
 * The short chaos run (issue 16 item 1, the CI version of `npm run chaos`): players play all six
 * games against the reference casino in its own process while faults hit every wallet path,
 * both provider processes are killed with SIGKILL and restarted and Redis is restarted; after
 * the retry job drained everything, the bank check and the re-verification find nothing.
 * The long run is `npm run chaos -- --bets 100000 ...` (README).
 */
import { describe, expect, it } from 'vitest';
import { CHAOS_DEFAULTS, chaosSummary, runChaos } from '../src/chaos.js';

describe('chaos (short)', () => {
  it('money survives wallet faults, SIGKILLed provider processes and a Redis restart: zero discrepancies', async () => {
    const report = await runChaos({
      ...CHAOS_DEFAULTS,
      seed: 20261124,
      bets: 300,
      players: 12,
      processes: 2,
      kills: 2,
      redisRestarts: 1,
      faultRate: 0.15,
      slot: 'chaosTest',
      print: () => undefined,
    });
    const summary = chaosSummary(report).join('\n');
    expect(report.discrepancies, summary).toEqual([]);
    // what the run went through (so a quiet run cannot pass for a proof)
    expect(report.kills).toBe(2);
    expect(report.providerRestarts).toBe(2);
    expect(report.redisRestarts).toBe(1);
    expect(report.rounds, summary).toBeGreaterThan(300 / 2);
    expect(report.faultedWalletRequests, summary).toBeGreaterThan(0.05 * report.walletRequests);
    expect(report.duplicates.compared, summary).toBeGreaterThan(0);
    for (const status of ['settled', 'cancelled']) expect(report.byStatus[status] ?? 0, `${status}\n${summary}`).toBeGreaterThan(0);
    expect((report.byStatus.cashed_out ?? 0) + (report.byStatus.busted ?? 0), summary).toBeGreaterThan(0);
    expect(report.signedChecks, summary).toBe(10);
    expect(report.verified, summary).toBe((report.byStatus.settled ?? 0) + (report.byStatus.cashed_out ?? 0) + (report.byStatus.busted ?? 0));
  });
});

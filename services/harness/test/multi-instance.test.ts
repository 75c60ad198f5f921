/**
 * Multi-instance proof (issue 15 item 11): three provider processes share one PostgreSQL and one
 * Redis; players are spread across them; a share of the money requests is sent twice at once,
 * with the same idempotency key, to two different processes; one process is killed with SIGKILL
 * mid-load and stays dead (its players carry on against the others). The casino refuses a share
 * of credits and rollbacks (503); no cron call is made: the three processes' in-service retry
 * schedulers (issue 26) finish every pending round, and the casino's request log shows that no
 * callback was ever in its hands twice at once. After that,
 * nothing is pending and the casino ledger agrees with the rounds to the minor unit. The logs of
 * the run hold no secret (admin and cron tokens, the secret key, operator secrets, launch tokens,
 * session ids: chaos.ts scans every line).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHAOS_DEFAULTS, chaosSummary, runChaos } from '../src/chaos.js';

describe('three provider processes on one PostgreSQL and one Redis', () => {
  it('concurrent duplicates on different processes and a SIGKILL mid-load move no money twice', async () => {
    const report = await runChaos({
      ...CHAOS_DEFAULTS,
      seed: 3,
      bets: 200,
      players: 12,
      processes: 3,
      kills: 1,
      restartKilled: false,
      redisRestarts: 0,
      faultRate: 0,
      duplicateShare: 0.4,
      schedulerOnly: true,
      retryFaultRate: 0.15,
      slot: 'multiTest',
      print: () => undefined,
    });
    const summary = chaosSummary(report).join('\n');
    // the bank check: every round final, each debit closed once, no key applied twice, balances to the minor unit
    expect(report.discrepancies, summary).toEqual([]);
    expect(report.kills).toBe(1);
    // the schedulers alone retried: no cron call, and there was retry work (credits and rollbacks refused with 503)
    expect(report.cronCalls).toBe(0);
    expect(report.scheduledRetries, summary).toBeGreaterThan(0);
    expect(report.providerRestarts).toBe(0);
    expect(report.duplicates.concurrent, summary).toBeGreaterThan(0);
    expect(report.rounds, summary).toBeGreaterThan(200 / 2);
    expect(report.transactions, summary).toBeGreaterThanOrEqual(2 * (report.byStatus.settled ?? 0));
    // the logs of the three processes: JSON lines with request ids (the secrets scan above ran on them)
    const logs = readdirSync(report.logDir).filter((f) => /^provider-\d+\.log$/.test(f));
    expect(logs.length).toBe(3);
    for (const f of logs) expect(readFileSync(path.join(report.logDir, f), 'utf8')).toMatch(/"reqId":"[0-9a-f-]{36}"/);
  });
});

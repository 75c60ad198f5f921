/**
 * `npm run soak -- --minutes 10` (issue 14 item 4): dice bets at half of the measured peak for N
 * minutes against one provider process, printing per interval its RSS, the latency, the Redis
 * key count (DBSIZE of our own Redis), the database connections (pg_stat_activity) and the
 * idempotency_records row count, then a verdict: flat within 10% after the warm-up, or not.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { BENCH_OPERATOR, describeMachine, diceStep, runLoad, type BenchOptions } from './bench.js';
import { request } from './client.js';
import { countRows, PgStats, serverUrl } from './pg.js';
import { createPlayer, createPlayers } from './players.js';
import { cpuSeconds, memoryMiB } from './proc-stats.js';
import { fmt, Latencies, table } from './stats.js';
import { amountOf, newKey, rng, settledParams } from './strategies.js';
import { startWorld } from './world.js';

export interface SoakOptions {
  minutes: number;
  /** Bets per second; default half of the peak measured first. */
  rate?: number;
  players: number;
  intervalS: number;
  /** Intervals left out of the verdict (JIT, pools and caches warming up). */
  warmupIntervals: number;
  /** The provider's IDEMPOTENCY_RETENTION_HOURS in minutes; the cron pass runs every 30 s as the CronJob would (records of sessions begun since migration 20261129100000 go a week at a time: none within a soak). */
  retentionMinutes: number;
  logLevel: string;
  print: (line: string) => void;
}

export interface SoakSample {
  minute: number;
  bets: number;
  p50: number;
  p99: number;
  errors: number;
  /** VmRSS sampled every second of the interval: the lowest (after a GC) and the highest (before one). */
  rssLowMiB: number;
  rssHighMiB: number;
  cpuMsPerBet: number;
  redisKeys: number;
  dbConnections: number;
  idempotencyRecords: number;
}

export interface SoakVerdict {
  flat: boolean;
  lines: string[];
}

export async function runSoak(o: SoakOptions): Promise<{ samples: SoakSample[]; verdict: SoakVerdict; rate: number; peak: number | null }> {
  const print = o.print;
  const world = await startWorld({
    slot: 'soak',
    providers: 1,
    operators: [BENCH_OPERATOR],
    logLevel: o.logLevel,
    env: { IDEMPOTENCY_RETENTION_HOURS: String(o.retentionMinutes / 60) },
  });
  const pg = new PgStats(serverUrl(), world.db.name);
  const redis = new Redis(world.redis.url, { maxRetriesPerRequest: 2 });
  try {
    await pg.open();
    const provider = world.providers[0]!;
    print(`soak on ${describeMachine()}; logs in ${world.logDir}`);
    const players = await createPlayers(o.players, (i) =>
      createPlayer(world.casino, () => provider.url, { index: i, playerRef: `soak-${i}`, operator: BENCH_OPERATOR, balance: '100000000.00' }),
    );

    let peak: number | null = null;
    let rate = o.rate ?? 0;
    if (!o.rate) {
      const benchOpts: BenchOptions = { quick: true, scenarios: [], players: o.players, warmupS: 5, durationS: 15, logLevel: o.logLevel, print };
      const res = await runLoad(
        { world, pg, opts: benchOpts },
        {
          name: 'peak',
          what: 'dice',
          players: o.players,
          origins: [provider.url],
          serverPids: () => [provider.pid],
          metricsUrls: () => [provider.metricsUrl],
          step: diceStep(players),
        },
      );
      peak = res.bets / res.seconds;
      rate = peak / 2;
      print(`peak: ${fmt(peak)} bets/s with ${o.players} players → soak at ${fmt(rate)} bets/s`);
    }

    // an open loop: one bet every 1/rate seconds, taken by whichever player is free
    let stop = false;
    // the cron pass (retries, abandoned rounds, retention) every 30 s, as the CronJob would
    print(
      `idempotency records are kept ${o.retentionMinutes} min (IDEMPOTENCY_RETENTION_HOURS=${fmt(o.retentionMinutes / 60, 3)}); the cron pass runs every 30 s`,
    );
    const cron = (async () => {
      while (!stop) {
        for (let t = 0; t < 30 && !stop; t++) await sleep(1000);
        if (stop) break;
        await request(provider.url, 'GET', `/api/cron/wallet-retries?limit=100&operatorId=${BENCH_OPERATOR.operatorId}`, undefined, {
          authorization: `Bearer ${world.secrets.cronSecret}`,
        });
      }
    })();
    let nextSlot = performance.now();
    let lat = new Latencies();
    let bets = 0;
    let errors = 0;
    const workers = players.map(async (p, i) => {
      const r = rng(500 + i);
      while (!stop) {
        const slot = nextSlot;
        nextSlot = Math.max(nextSlot, performance.now()) + 1000 / rate;
        const wait = slot - performance.now();
        if (wait > 0) await sleep(wait);
        if (stop) break;
        const a = await request(provider.url, 'POST', '/api/bets', {
          sessionId: p.sessionId,
          gameType: 'dice',
          amount: amountOf(p, 100n),
          idempotencyKey: newKey('soak'),
          params: settledParams('dice', r),
        });
        lat.add(a.ms);
        if (a.status === 200) bets += 1;
        else errors += 1;
      }
    });

    const samples: SoakSample[] = [];
    const rows: string[][] = [
      ['interval', 'bets/s', 'p50 ms', 'p99 ms', 'errors', 'RSS MiB (low–high)', 'CPU ms/bet', 'Redis keys', 'DB conns', 'idempotency rows'],
    ];
    const intervals = Math.max(1, Math.round((o.minutes * 60) / o.intervalS));
    for (let k = 1; k <= intervals; k++) {
      const cpu0 = cpuSeconds(provider.pid);
      // A garbage-collected process's RSS is a sawtooth (the heap grows, a GC gives pages back):
      // one reading per interval lands anywhere on it, so the whole interval is sampled.
      let rssLow = Infinity;
      let rssHigh = 0;
      for (const until = Date.now() + o.intervalS * 1000; Date.now() < until;) {
        await sleep(Math.min(1000, Math.max(0, until - Date.now())));
        const rss = memoryMiB(provider.pid)?.rss;
        if (rss !== undefined) {
          rssLow = Math.min(rssLow, rss);
          rssHigh = Math.max(rssHigh, rss);
        }
      }
      const s = lat.summary();
      const sample: SoakSample = {
        minute: (k * o.intervalS) / 60,
        bets,
        p50: s.p50,
        p99: s.p99,
        errors,
        rssLowMiB: rssLow,
        rssHighMiB: rssHigh,
        cpuMsPerBet: bets ? ((cpuSeconds(provider.pid) - cpu0) * 1000) / bets : NaN,
        redisKeys: await redis.dbsize(),
        dbConnections: await pg.connections(),
        idempotencyRecords: await countRows(world.db.url, 'idempotency_records'),
      };
      samples.push(sample);
      lat = new Latencies();
      bets = 0;
      errors = 0;
      const row = [
        `${fmt(sample.minute, 1)} min`,
        fmt(sample.bets / o.intervalS),
        fmt(sample.p50),
        fmt(sample.p99),
        String(sample.errors),
        `${fmt(sample.rssLowMiB, 0)}–${fmt(sample.rssHighMiB, 0)}`,
        fmt(sample.cpuMsPerBet, 2),
        String(sample.redisKeys),
        String(sample.dbConnections),
        String(sample.idempotencyRecords),
      ];
      rows.push(row);
      print(`  ${row.join('  ')}`);
    }
    stop = true;
    await Promise.all([...workers, cron]);
    print(`\n${table(rows)}\n`);
    // Idempotency records go a week at a time since migration 20261129100000 (the week of sessions
    // that began more than SESSION_MAX_HOURS + the retention ago), never within a soak: no bound by
    // the retention is judged here (test/store/idempotency-partitions.test.ts shows the drop).
    const verdict = soakVerdict(samples, o.warmupIntervals, null);
    for (const l of verdict.lines) print(l);
    print(
      '• idempotency records are dropped a week at a time (the week of sessions that began more than SESSION_MAX_HOURS + IDEMPOTENCY_RETENTION_HOURS ago), so none go within a soak; test/store/idempotency-partitions.test.ts shows the drop',
    );
    // a last look: is the process still answering?
    const health = await request(provider.url, 'GET', '/health');
    if (health.status !== 200) verdict.lines.push(`/health answered ${health.status} after the soak`);
    return { samples, verdict, rate, peak };
  } finally {
    redis.disconnect();
    await pg.close();
    await world.stop();
  }
}

/**
 * Flat after the warm-up: memory, latency, Redis keys and database connections.
 *
 * Memory: a leak raises the sawtooth's floor and its peaks; a healthy process's RSS swings
 * within each interval (the heap grows until a GC gives pages back). So the verdict compares the
 * envelope: the intervals' peaks and their floors (RSS right after a GC), the second half's
 * median against the first half's, within 10%.
 * Latency: the median of the intervals' p50 (and p99) of the second half against the first half
 * (a median, so one interval disturbed by the machine's other work does not decide), within 10%
 * (p50) and 25% (p99, the tail of a 2-core machine shared with PostgreSQL and the client).
 */
export function soakVerdict(samples: SoakSample[], warmup: number, retention: { seconds: number; intervalS: number } | null = null): SoakVerdict {
  const after = samples.slice(Math.min(warmup, Math.max(0, samples.length - 2)));
  const lines: string[] = [];
  if (after.length < 2) return { flat: false, lines: ['VERDICT: not enough intervals after the warm-up to judge (run longer)'] };
  const half = Math.floor(after.length / 2);
  const median = (xs: number[]) => {
    const v = [...xs].sort((a, b) => a - b);
    return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
  };
  const growth = (pick: (s: SoakSample) => number) => median(after.slice(half).map(pick)) / median(after.slice(0, half).map(pick));
  const highs = after.map((s) => s.rssHighMiB);
  const lows = after.map((s) => s.rssLowMiB);
  const peakGrowth = growth((s) => s.rssHighMiB);
  const floorGrowth = growth((s) => s.rssLowMiB);
  const checks = [
    {
      name: 'memory (RSS)',
      flat: peakGrowth <= 1.1 && floorGrowth <= 1.1,
      say: `peaks ${highs.map((v) => fmt(v, 0)).join(', ')} MiB (second half ÷ first ${fmt(peakGrowth, 2)}, highest ${fmt(Math.max(...highs), 0)}); floors after GC ${lows.map((v) => fmt(v, 0)).join(', ')} MiB (second half ÷ first ${fmt(floorGrowth, 2)})`,
    },
    {
      name: 'latency',
      flat: growth((s) => s.p50) <= 1.1 && growth((s) => s.p99) <= 1.25,
      say: `median p50 of the intervals, second half ÷ first half: ${fmt(
        growth((s) => s.p50),
        2,
      )}; p99 ${fmt(
        growth((s) => s.p99),
        2,
      )}`,
    },
    {
      name: 'Redis keys',
      flat: Math.max(...after.map((s) => s.redisKeys)) <= after[0]!.redisKeys * 1.1 + 10,
      say: `DBSIZE ${after.map((s) => s.redisKeys).join(', ')}`,
    },
    {
      name: 'database connections',
      flat: Math.max(...after.map((s) => s.dbConnections)) <= after[0]!.dbConnections * 1.1 + 1,
      say: `pg_stat_activity ${after.map((s) => s.dbConnections).join(', ')}`,
    },
  ];
  for (const c of checks) lines.push(`${c.flat ? '✓' : '✗'} ${c.name}: ${c.say}`);
  const records = samples.map((s) => s.idempotencyRecords);
  const totalBets = samples.reduce((a, s) => a + s.bets, 0);
  const shrank = records.some((v, i) => i > 0 && v < records[i - 1]!);
  lines.push(
    `${shrank ? '✓' : '•'} idempotency_records: ${records[0]} → ${records.at(-1)} over ${totalBets} bets (${fmt((records.at(-1)! - records[0]!) / Math.max(1, totalBets - samples[0]!.bets), 2)} per bet); ${shrank ? 'a retention job removed some' : 'no row removed during the soak: bounded only by a retention job, if the provider has one'}`,
  );
  // Past the retention period (+ one cron pass) the records stop growing: at most the bets of the
  // last retention period + 30 s (the cron's period), whatever the soak's length.
  const settled = retention ? samples.slice(Math.ceil((retention.seconds + 30) / retention.intervalS) + 1) : [];
  if (retention && settled.length >= 2) {
    const rate = Math.max(...samples.map((s) => s.bets / retention.intervalS));
    const bound = rate * (retention.seconds + 30 + 5) * 1.25 + 50;
    const hi = Math.max(...settled.map((s) => s.idempotencyRecords));
    const ok = hi <= bound;
    checks.push({ name: 'idempotency records (retention)', flat: ok, say: '' });
    lines.push(
      `${ok ? '✓' : '✗'} idempotency records bounded by the retention (at most ${fmt(bound, 0)}: the bets of the retention period + one cron period): ${settled.map((s) => s.idempotencyRecords).join(', ')}`,
    );
  } else lines.push('• idempotency records: the soak is too short to see past the retention period');
  const flat = checks.every((c) => c.flat);
  lines.push(
    `VERDICT: ${
      flat
        ? 'flat within 10% after the warm-up'
        : `NOT flat (${checks
            .filter((c) => !c.flat)
            .map((c) => c.name)
            .join(', ')})`
    }`,
  );
  return { flat, lines };
}

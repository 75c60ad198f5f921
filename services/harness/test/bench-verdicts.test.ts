/**
 * How `npm run bench` judges issue 25's targets over interleaved pairs (the twelfth session): each
 * pair is dice ×n and the three-commit pipeline run one right after the other, and each target
 * takes the median over the pairs, so one pair caught by the machine's drift cannot decide a
 * verdict. Pure: results made here, no processes.
 */
import { describe, expect, it } from 'vitest';
import { median, pairLabel, targetPairs, verdictLines, verdicts, type BenchReport, type ScenarioResult } from '../src/bench.js';
import { Counter } from '../src/stats.js';

function result(name: string, o: { betsPerS: number; p99: number; cpu: number; pg: number; wal: number; errors?: number; players?: number }): ScenarioResult {
  const errors = new Counter();
  if (o.errors) errors.add('CASINO_NETWORK_ERROR', o.errors);
  return {
    name,
    what: name,
    players: o.players ?? 64,
    processes: 1,
    seconds: 20,
    bets: o.betsPerS * 20,
    requests: o.betsPerS * 20,
    latency: { p50: o.p99 / 2, p95: o.p99 * 0.9, p99: o.p99 },
    errors,
    cpuMsPerBet: o.cpu,
    cores: { server: [0.5], casino: 0.1, postgres: 0.5, redis: 0.01, client: 0.1, machine: 1.5 },
    rssPeakMiB: 180,
    hwmMiB: 180,
    hwmScenarioOnly: true,
    commitsPerBet: 3,
    statementsPerBet: 3,
    roundTripsPerBet: null,
    walRecordsPerBet: o.wal,
    postgresCpuMsPerBet: o.pg,
    functionCallsPerBet: null,
    allocatedKiBPerBet: null,
    notes: [],
  };
}

const report = (results: ScenarioResult[]): BenchReport => ({ machine: 'test', results, statementsNote: null, statementsSource: null });
const byWhat = (r: BenchReport, what: RegExp) => verdicts(r).find((v) => what.test(v.what))!;

describe('the targets over interleaved pairs', () => {
  const runs = [
    result('dice ×64', { betsPerS: 400, p99: 200, cpu: 1.2, pg: 1.1, wal: 26 }),
    result('pipeline3 ×64', { betsPerS: 1000, p99: 150, cpu: 0.5, pg: 0.5, wal: 13 }),
    result('mines ×64', { betsPerS: 100, p99: 300, cpu: 5, pg: 6, wal: 50 }),
    result('pipeline ×64', { betsPerS: 1500, p99: 60, cpu: 0.3, pg: 0.3, wal: 11 }),
    // pair 2: the machine slowed the pipeline only
    result(`dice ×64 ${pairLabel(2)}`, { betsPerS: 420, p99: 150, cpu: 0.9, pg: 0.95, wal: 25 }),
    result(`pipeline3 ×64 ${pairLabel(2)}`, { betsPerS: 500, p99: 140, cpu: 0.6, pg: 0.6, wal: 13.5 }),
    result(`dice ×64 ${pairLabel(3)}`, { betsPerS: 450, p99: 160, cpu: 1.0, pg: 1.0, wal: 27 }),
    result(`pipeline3 ×64 ${pairLabel(3)}`, { betsPerS: 900, p99: 100, cpu: 0.5, pg: 0.5, wal: 13 }),
  ];

  it('pairs each dice run with the pipeline run of its own pair, leaving other scenarios out', () => {
    const pairs = targetPairs(runs);
    expect(pairs.map((p) => [p.dice.name, p.safe.name])).toEqual([
      ['dice ×64', 'pipeline3 ×64'],
      [`dice ×64 ${pairLabel(2)}`, `pipeline3 ×64 ${pairLabel(2)}`],
      [`dice ×64 ${pairLabel(3)}`, `pipeline3 ×64 ${pairLabel(3)}`],
    ]);
    // the big scenario's control and dice on two processes are no pair's
    const more = [
      ...runs,
      result('pipeline3 ×64 after the big load', { betsPerS: 1, p99: 1, cpu: 1, pg: 1, wal: 1 }),
      result('dice ×64 on 2 processes', { betsPerS: 1, p99: 1, cpu: 1, pg: 1, wal: 1 }),
    ];
    expect(targetPairs(more)).toHaveLength(3);
  });

  it('takes the median of the pairs for every ratio and cost', () => {
    const r = report(runs);
    // ratios 0.40, 0.84, 0.50 → 0.50: one pair where only the pipeline slowed does not pass the target
    const throughput = byWhat(r, /bets\/s/);
    expect(throughput.value).toBe('0.50 (median of 3 interleaved pairs: 0.40, 0.84, 0.50)');
    expect(throughput.ok).toBe(false);
    // p99 ratios 1.33, 1.07, 1.60 → 1.33
    expect(byWhat(r, /p99/).value.startsWith('1.33 ')).toBe(true);
    expect(byWhat(r, /p99/).ok).toBe(true);
    // provider CPU 1.2, 0.9, 1.0 → 1.00 ms: met (≤ 1 ms)
    expect(byWhat(r, /provider CPU/)).toMatchObject({ ok: true });
    expect(byWhat(r, /provider CPU/).value).toMatch(/^1\.00 \(median of 3 interleaved pairs: 1\.20, 0\.90, 1\.00\) ms \(pipeline 0\.50 ms\)$/);
    expect(byWhat(r, /PostgreSQL CPU/).value.startsWith('1.00 ')).toBe(true);
    // WAL ratios 2.00, 1.85, 2.08 → 2.00: met
    expect(byWhat(r, /WAL/)).toMatchObject({ ok: true });
    expect(byWhat(r, /^dice errors/)).toMatchObject({ value: '0', ok: true });
  });

  it('counts the errors of every pair', () => {
    const withErrors = runs.map((x) =>
      x.name === `dice ×64 ${pairLabel(3)}` ? result(x.name, { betsPerS: 450, p99: 160, cpu: 1, pg: 1, wal: 27, errors: 2 }) : x,
    );
    expect(byWhat(report(withErrors), /^dice errors/)).toMatchObject({ value: '2', ok: false });
  });

  it('judges a run of one pair on that pair alone, as before', () => {
    const r = report(runs.slice(0, 4));
    expect(byWhat(r, /bets\/s/).value).toBe('0.40');
    expect(byWhat(r, /p99/).value).toBe('1.33 (200.0 ms vs 150.0 ms)');
    expect(byWhat(r, /WAL/).value).toBe('2.00 (26.0 vs 13.0)');
    expect(verdictLines(r).some((l) => l.startsWith('✗ dice bets/s'))).toBe(true);
  });

  it('leaves a target unmeasured without a pair', () => {
    const r = report([runs[0]!]);
    expect(byWhat(r, /bets\/s/).ok).toBeNull();
    expect(byWhat(r, /provider CPU/)).toMatchObject({ ok: false }); // dice alone still gives its CPU: 1.2 ms
  });

  it('median: the middle value, the mean of the middle two, NaN for none', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([null, NaN, 5])).toBe(5);
    expect(median([])).toBeNaN();
  });
});

#!/usr/bin/env node
/**
 * npm run chaos [-- --bets 3000 --players 24 --fault-rate 0.12 --kills 5 --processes 2 --redis-restarts 1
 *                  --seed 1 --timeout-ms 300 --duplicates 0.1 --log-level info]
 * The long run of issue 16 (README): npm run chaos -- --bets 100000 --players 32 --kills 6 --redis-restarts 1 --fault-rate 0.13 --seed 2026
 * PostgreSQL: TEST_DATABASE_URL (a fresh database, dropped at the end). Exit code 1 on any discrepancy.
 */
import { parseArgs } from 'node:util';
import { CHAOS_DEFAULTS, chaosMarkdown, chaosSummary, runChaos } from './chaos.js';
import { exitOnSignals } from './processes.js';
import { NOISY_DEFAULTS, noisyMarkdown, noisyVerdicts, runNoisyNeighbour } from './noisy-neighbour.js';

exitOnSignals();
const d = CHAOS_DEFAULTS;
const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: String(d.seed) },
    bets: { type: 'string', default: String(d.bets) },
    players: { type: 'string', default: String(d.players) },
    'fault-rate': { type: 'string', default: String(d.faultRate) },
    kills: { type: 'string', default: String(d.kills) },
    processes: { type: 'string', default: String(d.processes) },
    'redis-restarts': { type: 'string', default: String(d.redisRestarts) },
    'timeout-ms': { type: 'string', default: String(d.callbackTimeoutMs) },
    duplicates: { type: 'string', default: String(d.duplicateShare) },
    'log-level': { type: 'string', default: d.logLevel },
    'log-dir': { type: 'string' },
    /** The noisy-neighbour run (issue 23) after the chaos run: seconds per phase, or skip it, or run only it. */
    'noisy-seconds': { type: 'string', default: String(NOISY_DEFAULTS.seconds) },
    'noisy-bytes': { type: 'string', default: String(NOISY_DEFAULTS.hugeBytes) },
    'skip-noisy': { type: 'boolean', default: false },
    'only-noisy': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(
    'npm run chaos -- [--bets N] [--players N] [--fault-rate 0..1] [--kills N] [--processes N] [--redis-restarts N] [--seed N] [--timeout-ms MS] [--duplicates 0..1] [--log-level info] [--log-dir DIR] [--noisy-seconds S] [--noisy-bytes N] [--skip-noisy] [--only-noisy]',
  );
  process.exit(0);
}
let failed = false;
if (!values['only-noisy']) {
  const report = await runChaos({
    seed: Number(values.seed),
    bets: Number(values.bets),
    players: Number(values.players),
    faultRate: Number(values['fault-rate']),
    kills: Number(values.kills),
    processes: Number(values.processes),
    redisRestarts: Number(values['redis-restarts']),
    callbackTimeoutMs: Number(values['timeout-ms']),
    duplicateShare: Number(values.duplicates),
    logLevel: values['log-level'],
    slot: 'chaos',
    ...(values['log-dir'] ? { logDir: values['log-dir'] } : {}),
    print: (line) => console.log(line),
  });
  console.log('\n== chaos run ==');
  for (const line of chaosSummary(report)) console.log(line);
  for (const x of report.discrepancies.slice(0, 50)) console.log(`  ✗ ${x}`);
  if (report.discrepancies.length > 50) console.log(`  … and ${report.discrepancies.length - 50} more`);
  console.log('\n== for docs/reliability.md ==');
  for (const line of chaosMarkdown(report, `npm run chaos -- ${process.argv.slice(2).join(' ')}`.trim())) console.log(line);
  console.log(report.discrepancies.length ? 'RESULT: DISCREPANCIES FOUND' : 'RESULT: zero discrepancies');
  console.log(`logs: ${report.logDir}`);
  failed ||= report.discrepancies.length > 0;
}
if (!values['skip-noisy']) {
  console.log('\n== noisy neighbour ==');
  const noisy = await runNoisyNeighbour({
    ...NOISY_DEFAULTS,
    slot: 'noisy',
    seconds: Number(values['noisy-seconds']),
    hugeBytes: Number(values['noisy-bytes']),
    print: (line) => console.log(line),
  });
  const verdicts = noisyVerdicts(noisy);
  for (const v of verdicts) console.log(`  ${v.ok ? '✓' : '✗'} ${v.what}: ${v.value} (target ${v.target})`);
  console.log('\n== for docs/reliability.md ==');
  for (const line of noisyMarkdown(noisy, `npm run chaos -- ${process.argv.slice(2).join(' ')}`.trim())) console.log(line);
  const missed = verdicts.filter((v) => !v.ok).length;
  console.log(missed ? `RESULT: ${missed} noisy-neighbour target(s) missed` : 'RESULT: every noisy-neighbour target met');
  failed ||= missed > 0;
}
process.exit(failed ? 1 : 0);

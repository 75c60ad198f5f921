#!/usr/bin/env node
/**
 * npm run bench [-- --quick] [--scenarios dice-1,dice-64,mixed,mines,blackjack,retries,pipeline,floor,scale,big,first-start] [--big-rounds 10000000] [--big-settle 90]
 *               [--pairs 3]  (interleaved dice ×n / three-commit pipeline pairs the targets take the median of; 1 with --quick)
 *               [--players 64] [--duration 20] [--warmup 5] [--log-level info] [--cpu-prof DIR] [--markdown FILE]
 * PostgreSQL: TEST_DATABASE_URL (a fresh database is made and dropped). Ports: HARNESS_PORT_BASE
 * (default 3400: casino 3400, providers 3401+, pipeline 3405), Redis HARNESS_REDIS_PORT_BASE (6394).
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { comparisons, DEFAULT_SCENARIOS, resultRows, runBench, SCENARIOS, verdictLines, type ScenarioName } from './bench.js';
import { exitOnSignals } from './processes.js';
import { markdownTable, table } from './stats.js';

exitOnSignals();
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    scenarios: { type: 'string' },
    players: { type: 'string', default: '64' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    'log-level': { type: 'string', default: 'info' },
    'cpu-prof': { type: 'string' },
    markdown: { type: 'string' },
    'big-rounds': { type: 'string', default: '10000000' },
    'big-settle': { type: 'string', default: '90' },
    pairs: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(
    `npm run bench -- [--quick] [--scenarios ${SCENARIOS.join(',')}] [--players 64] [--duration S] [--warmup S] [--log-level info] [--cpu-prof DIR] [--markdown FILE] [--big-rounds N] [--big-settle S] [--pairs N]` +
      '\n(big is run only when named: it loads --big-rounds settled rounds first)' +
      '\n(--pairs: how many interleaved dice ×n / three-commit pipeline pairs the targets take the median of; 3, or 1 with --quick)',
  );
  process.exit(0);
}
const scenarios = (values.scenarios ? values.scenarios.split(',') : [...DEFAULT_SCENARIOS]) as ScenarioName[];
for (const s of scenarios) if (!SCENARIOS.includes(s)) throw new Error(`unknown scenario ${s} (known: ${SCENARIOS.join(', ')})`);
if (values.pairs !== undefined && !(Number.isInteger(Number(values.pairs)) && Number(values.pairs) >= 1))
  throw new Error(`--pairs must be a whole number ≥ 1, not ${values.pairs}`);

const report = await runBench({
  quick: values.quick,
  scenarios,
  players: Number(values.players),
  durationS: Number(values.duration ?? (values.quick ? 5 : 20)),
  warmupS: Number(values.warmup ?? (values.quick ? 2 : 5)),
  logLevel: values['log-level'],
  bigRounds: Number(values['big-rounds']),
  bigSettleS: Number(values['big-settle']),
  ...(values.pairs !== undefined ? { pairs: Number(values.pairs) } : {}),
  ...(values['cpu-prof'] ? { cpuProf: values['cpu-prof'] } : {}),
  print: (line) => console.log(line),
});

console.log(`\n== results (${report.machine}) ==\n`);
console.log(table(resultRows(report.results)));
for (const r of report.results) for (const n of r.notes) console.log(`${r.name}: ${n}`);
console.log('');
for (const line of comparisons(report)) console.log(`• ${line}`);
console.log('\n== issue 25 targets (ratios to the pipeline of the same run) ==');
for (const line of verdictLines(report)) console.log(line);
if (report.statementsNote) console.log(`• statements per bet: n/a (${report.statementsNote})`);
if (report.statementsSource) console.log(`• statements per bet counted by ${report.statementsSource}; commits per bet from pg_stat_database`);
console.log(
  "• WAL records per bet from pg_stat_wal, which counts the whole cluster: other databases' writes during the run count too (docs/performance.md: a private cluster for this figure)",
);
if (values.markdown) {
  const source = report.statementsSource ? [`statements per bet counted by ${report.statementsSource}; commits per bet from pg_stat_database`] : [];
  writeFileSync(
    values.markdown,
    `${markdownTable(resultRows(report.results))}\n\n${[...comparisons(report), ...source].map((l) => `- ${l}`).join('\n')}\n\n${verdictLines(report)
      .map((l) => `- ${l}`)
      .join('\n')}\n`,
  );
  console.log(`\nMarkdown written to ${values.markdown}`);
}
process.exit(0);

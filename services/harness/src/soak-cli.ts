#!/usr/bin/env node
/**
 * npm run soak -- --minutes 10 [--rate BETS_PER_S] [--players 64] [--interval 60] [--warmup 1] [--retention-minutes 3] [--log-level info]
 * Without --rate, the peak is measured first (15 s of dice at --players) and the soak runs at half of it.
 * Exit code 1 when the verdict is "not flat".
 */
import { parseArgs } from 'node:util';
import { exitOnSignals } from './processes.js';
import { runSoak } from './soak.js';

exitOnSignals();
const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string' },
    players: { type: 'string', default: '64' },
    interval: { type: 'string', default: '60' },
    warmup: { type: 'string', default: '1' },
    'retention-minutes': { type: 'string', default: '3' },
    'log-level': { type: 'string', default: 'info' },
  },
});
const res = await runSoak({
  minutes: Number(values.minutes),
  ...(values.rate ? { rate: Number(values.rate) } : {}),
  players: Number(values.players),
  intervalS: Number(values.interval),
  warmupIntervals: Number(values.warmup),
  retentionMinutes: Number(values['retention-minutes']),
  logLevel: values['log-level'],
  print: (l) => console.log(l),
});
process.exit(res.verdict.flat ? 0 : 1);

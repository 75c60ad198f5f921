/**
 * Performance against the callback timeout (SPEC.md Limits: 3 s by default, one retry): the
 * latency of each operation on its own, then p50/p99 of balance, debit and credit with a small
 * concurrent load (by default 20 requests in flight for 10 s; every debit is credited back).
 * These checks report figures; they fail only when answers are missing, refused, or slower
 * than the timeout (the provider would have given up on them).
 */
import { CheckFailure, describe, is2xx, type CheckContext } from '../context.js';
import type { Exchange } from '../http.js';
import { check, type CheckOutcome } from './types.js';

export interface LatencyFigures {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles, in ms with one decimal. */
export function latencyFigures(ms: number[]): LatencyFigures {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
  const r = (x: number) => Math.round(x * 10) / 10;
  return { n: sorted.length, p50: r(at(50)), p99: r(at(99)), max: r(sorted[sorted.length - 1] ?? 0) };
}

/** Measures `samples` answers of one operation; all must be 2xx and within the timeout. */
async function sampled(ctx: CheckContext, what: string, measure: () => Promise<Exchange>): Promise<CheckOutcome> {
  const timings: number[] = [];
  const failures: string[] = [];
  for (let i = 0; i < ctx.options.samples; i++) {
    const ex = await measure();
    timings.push(ex.ms);
    if (!is2xx(ex)) failures.push(describe(ex));
  }
  const f = latencyFigures(timings);
  const figures = { [`${what} ms`]: { p50: f.p50, max: f.max, n: f.n } };
  const message = `p50 ${f.p50} ms, max ${f.max} ms over ${f.n} (timeout ${ctx.options.timeoutMs} ms)`;
  if (failures.length) throw new CheckFailure(`${failures.length} of ${f.n} ${what} requests failed: ${failures[0]}`, figures);
  if (f.max > ctx.options.timeoutMs) throw new CheckFailure(`${message}: slower than the callback timeout, the provider would give up and retry`, figures);
  return { message, figures };
}

export const performanceChecks = [
  check({
    id: 'performance.validate-session',
    category: 'performance',
    title: 'validate-session answers within the callback timeout',
    clause: 'SPEC.md Limits (callback timeout 3 seconds)',
    run: (ctx) => sampled(ctx, 'validate-session', () => ctx.send('/wallet/validate-session', ctx.validateBody(), { label: 'validate-session' })),
  }),
  check({
    id: 'performance.balance',
    category: 'performance',
    title: 'balance answers within the callback timeout',
    clause: 'SPEC.md Limits (callback timeout 3 seconds)',
    run: (ctx) => sampled(ctx, 'balance', () => ctx.send('/wallet/balance', ctx.balanceBody(), { label: 'balance' })),
  }),
  check({
    id: 'performance.debit',
    category: 'performance',
    title: 'debit answers within the callback timeout',
    clause: 'SPEC.md Limits (callback timeout 3 seconds); CONTRACT.md §11 (a late debit is rolled back)',
    run: (ctx) =>
      sampled(ctx, 'debit', async () => {
        const d = await ctx.debit({});
        await ctx.rollback({ roundId: d.roundId, debitKey: d.key, amount: d.amount });
        return d.ex;
      }),
  }),
  check({
    id: 'performance.credit',
    category: 'performance',
    title: 'credit answers within the callback timeout',
    clause: 'SPEC.md Limits (callback timeout 3 seconds); SPEC.md States (credit_pending)',
    run: (ctx) =>
      sampled(ctx, 'credit', async () => {
        const d = await ctx.debit({});
        return ctx.credit({ roundId: d.roundId, amount: d.amount, closes: d.key });
      }),
  }),
  check({
    id: 'performance.rollback',
    category: 'performance',
    title: 'rollback answers within the callback timeout',
    clause: 'SPEC.md Limits (callback timeout 3 seconds); SPEC.md States (rollback_pending)',
    run: (ctx) =>
      sampled(ctx, 'rollback', async () => {
        const d = await ctx.debit({});
        return ctx.rollback({ roundId: d.roundId, debitKey: d.key, amount: d.amount });
      }),
  }),
  check({
    id: 'performance.load',
    category: 'performance',
    title: 'under a small concurrent load (balance, debit, credit) every request is answered and p99 stays within the callback timeout',
    clause: 'SPEC.md Limits (callback timeout 3 seconds, 1 retry)',
    async run(ctx) {
      const { loadSeconds, loadConcurrency, timeoutMs } = ctx.options;
      const timings: Record<'balance' | 'debit' | 'credit', number[]> = { balance: [], debit: [], credit: [] };
      const failures: string[] = [];
      const failed: Exchange[] = [];
      const slowest: Partial<Record<keyof typeof timings, Exchange>> = {};
      let rounds = 0;
      const note = (op: keyof typeof timings, ex: Exchange): boolean => {
        timings[op].push(ex.ms);
        if ((slowest[op]?.ms ?? -1) < ex.ms) slowest[op] = ex;
        if (is2xx(ex)) return true;
        failures.push(`${op}: ${describe(ex)}`);
        if (failed.length < 3) failed.push(ex);
        return false;
      };
      const started = Date.now();
      const deadline = started + loadSeconds * 1000;
      const worker = async () => {
        while (Date.now() < deadline) {
          note('balance', await ctx.sendQuiet('/wallet/balance', ctx.balanceBody(), { label: 'balance (load)' }));
          const roundId = ctx.newRound();
          const key = `${roundId}:debit`;
          ctx.trackDebit(key, roundId, ctx.unit);
          const debit = await ctx.sendQuiet('/wallet/debit', ctx.moneyBody({ roundId, amount: ctx.unit }), { label: 'debit (load)', idempotencyKey: key });
          ctx.noteDebitAnswer(key, debit);
          if (!note('debit', debit)) continue;
          const credit = await ctx.sendQuiet('/wallet/credit', ctx.moneyBody({ roundId, amount: ctx.unit }), {
            label: 'credit (load)',
            idempotencyKey: `${roundId}:credit`,
          });
          if (note('credit', credit)) {
            ctx.markReversed(key);
            rounds += 1;
          }
        }
      };
      await Promise.all(Array.from({ length: loadConcurrency }, worker));
      // the report shows the first failed requests and the slowest of each operation
      ctx.exchanges.push(
        ...failed.map((ex) => ({ ...ex, label: `failed ${ex.label}` })),
        ...Object.values(slowest).map((ex) => ({ ...ex, label: `slowest ${ex.label}` })),
      );
      const seconds = (Date.now() - started) / 1000;
      const per = Object.fromEntries(Object.entries(timings).map(([op, ms]) => [op, latencyFigures(ms)])) as Record<keyof typeof timings, LatencyFigures>;
      const figures = {
        inFlight: loadConcurrency,
        seconds: Math.round(seconds * 10) / 10,
        roundsPerSecond: Math.round((rounds / seconds) * 10) / 10,
        failures: failures.length,
        ...Object.fromEntries(Object.entries(per).map(([op, f]) => [`${op} ms`, { n: f.n, p50: f.p50, p99: f.p99, max: f.max }])),
      };
      const summary = Object.entries(per)
        .map(([op, f]) => `${op} p50 ${f.p50} / p99 ${f.p99} ms`)
        .join(', ');
      const message = `${loadConcurrency} in flight for ${figures.seconds} s: ${rounds} rounds (${figures.roundsPerSecond}/s); ${summary}`;
      if (failures.length) throw new CheckFailure(`${failures.length} requests failed under load (first: ${failures[0]}); ${message}`, figures);
      const slow = Object.entries(per).filter(([, f]) => f.p99 > timeoutMs);
      if (slow.length) throw new CheckFailure(`p99 above the ${timeoutMs} ms callback timeout for ${slow.map(([op]) => op).join(', ')}; ${message}`, figures);
      return { message, figures };
    },
  }),
];

/**
 * Checks over the whole run: every refusal carried a JSON code, and the player's balance ends
 * where it began (every debit of the run reversed, nothing credited twice).
 */
import { codeOf, describe, fail } from '../context.js';
import { check } from './types.js';

export const runChecks = [
  check({
    id: 'run.refusal-bodies',
    category: 'run',
    title: 'every non-2xx answer of the run was a JSON object with a code',
    clause: 'CONTRACT.md §11 (a casino refuses with a non-2xx JSON body {"code": "..."})',
    async run(ctx) {
      const refusals = ctx.allExchanges.filter((ex) => ex.response.status !== null && ex.response.status >= 300);
      const bad = refusals.filter((ex) => codeOf(ex) === undefined);
      if (bad.length) {
        ctx.exchanges.push(...bad.slice(0, 3));
        fail(`${bad.length} of ${refusals.length} refusals had no JSON "code", e.g. ${bad[0]!.label}: ${describe(bad[0]!)}`);
      }
      return { message: `${refusals.length} refusals, each with a code` };
    },
  }),
  check({
    id: 'run.balance-restored',
    category: 'run',
    title: "the player's balance ends where it began: each debit of the run was reversed once, nothing was credited twice",
    clause: 'SPEC.md Wallet interface rules 4–5; no request, retry or duplicate moves money twice',
    async run(ctx) {
      void ctx.s; // needs the session
      const start = ctx.startBalance;
      if (start === undefined) fail('the start balance is unknown (see session.balance)');
      const left = await ctx.reverseOutstanding();
      const end = await ctx.balance('balance at the end');
      const figures = { start: ctx.fmt(start), end: ctx.fmt(end) };
      if (end === start) return { message: `${ctx.fmt(end)}, as at the start`, figures };
      let note = '';
      if (end < start) {
        // the wallet kept money it should have given back: return it, so the test player is whole again
        const roundId = ctx.newRound();
        const back = await ctx.credit({ roundId, amount: start - end, label: 'compensation credit' });
        note = back.response.status === 200 ? ` (the checker credited ${ctx.fmt(start - end)} back)` : ' (the compensation credit failed)';
      }
      fail(
        `balance ${ctx.fmt(end)} at the end, ${ctx.fmt(start)} at the start (${ctx.fmtDelta(end - start)})${left.length ? `; ${left.length} debits could not be rolled back` : ''}${note}`,
      );
    },
  }),
];

/**
 * Idempotency (SPEC.md Wallet interface rule 5, Authentication 4, CONTRACT.md §11): a repeated
 * key returns the original answer without a second transaction, another body under a used key
 * is 409 IDEMPOTENCY_CONFLICT, and concurrent duplicates move the money once.
 */
import { describe, expectRefusal, fail, is2xx, type CheckContext } from '../context.js';
import type { Exchange } from '../http.js';
import { check } from './types.js';

const DUPLICATES = 10;

function sameTransaction(ctx: CheckContext, first: Exchange, again: Exchange, what: string): void {
  const a = ctx.moneyAnswer(first, `${what} (first)`);
  const b = ctx.moneyAnswer(again, `${what} (repeated)`);
  if (a.casinoTransactionId !== b.casinoTransactionId) {
    fail(`the repeated ${what} answered casinoTransactionId ${b.casinoTransactionId}, the first ${a.casinoTransactionId}: a second transaction`);
  }
}

/** Sends `send` DUPLICATES times at once; the 2xx answers must all name one transaction. */
async function concurrently(ctx: CheckContext, what: string, send: (i: number) => Promise<Exchange>): Promise<{ statuses: Record<string, number> }> {
  const answers = await Promise.all(Array.from({ length: DUPLICATES }, (_, i) => send(i)));
  const statuses: Record<string, number> = {};
  for (const ex of answers) statuses[String(ex.response.status ?? 'none')] = (statuses[String(ex.response.status ?? 'none')] ?? 0) + 1;
  const ok = answers.filter(is2xx);
  if (ok.length === 0) fail(`none of ${DUPLICATES} concurrent ${what}s was answered 2xx: ${describe(answers[0]!)}`);
  const ids = new Set(ok.map((ex) => ctx.moneyAnswer(ex, what).casinoTransactionId));
  if (ids.size > 1) fail(`${DUPLICATES} concurrent ${what}s with one key got ${ids.size} different casinoTransactionIds: more than one transaction`);
  for (const ex of answers) {
    const st = ex.response.status;
    if (!is2xx(ex) && st !== 409 && st !== 429 && (st === null || st < 500)) fail(`a concurrent duplicate ${what} was refused: ${describe(ex)}`);
  }
  return { statuses };
}

export const idempotencyChecks = [
  check({
    id: 'idempotency.key-required',
    category: 'idempotency',
    title: 'a debit without X-Idempotency-Key is refused (400 IDEMPOTENCY_REQUIRED) and debits nothing',
    clause: 'SPEC.md Authentication 2 (X-Idempotency-Key on money requests); SPEC.md Errors',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const { ex } = await ctx.debit({ label: 'debit without X-Idempotency-Key', send: { omit: ['x-idempotency-key'] } });
      expectRefusal(ex, 'debit without X-Idempotency-Key', { status: 400 });
      await ctx.expectBalance(before, 'after a debit without a key');
    },
  }),
  check({
    id: 'idempotency.debit-repeat',
    category: 'idempotency',
    title: 'a repeated debit (same key, same body, new nonce) returns the original answer and debits once',
    clause: 'SPEC.md Wallet interface rule 5; CONTRACT.md §11 (a retry sends the identical body)',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const d = await ctx.debit({});
      const again = await ctx.debit({ roundId: d.roundId, key: d.key, body: d.ex.request.body, label: 'the same debit again' });
      sameTransaction(ctx, d.ex, again.ex, 'debit');
      await ctx.expectBalance(before - ctx.unit, 'after a debit sent twice');
      await ctx.rollback({ roundId: d.roundId, debitKey: d.key, amount: d.amount });
    },
  }),
  check({
    id: 'idempotency.credit-repeat',
    category: 'idempotency',
    title: 'a repeated credit returns the original answer and credits once',
    clause: 'SPEC.md Wallet interface rule 5; SPEC.md States (the same credit key is retried until it succeeds)',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const d = await ctx.debit({});
      ctx.moneyAnswer(d.ex, 'debit');
      const c1 = await ctx.credit({ roundId: d.roundId, amount: d.amount, closes: d.key });
      const c2 = await ctx.credit({ roundId: d.roundId, amount: d.amount, label: 'the same credit again' });
      sameTransaction(ctx, c1, c2, 'credit');
      await ctx.expectBalance(before, 'after a debit and a credit sent twice');
    },
  }),
  check({
    id: 'idempotency.rollback-repeat',
    category: 'idempotency',
    title: 'a repeated rollback returns the original answer and refunds once',
    clause: 'SPEC.md Wallet interface rules 4–5; SPEC.md States (the same rollback key is retried until it succeeds)',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const d = await ctx.debit({});
      ctx.moneyAnswer(d.ex, 'debit');
      const r1 = await ctx.rollback({ roundId: d.roundId, debitKey: d.key, amount: d.amount });
      const r2 = await ctx.rollback({ roundId: d.roundId, debitKey: d.key, amount: d.amount, label: 'the same rollback again' });
      sameTransaction(ctx, r1, r2, 'rollback');
      await ctx.expectBalance(before, 'after a debit and a rollback sent twice');
    },
  }),
  check({
    id: 'idempotency.debit-conflict',
    category: 'idempotency',
    title: 'the key of a debit sent again with another amount is refused with 409 IDEMPOTENCY_CONFLICT',
    clause: 'SPEC.md Authentication 4 (idempotency keys conflict); CONTRACT.md §11 (409 IDEMPOTENCY_CONFLICT)',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const d = await ctx.debit({});
      ctx.moneyAnswer(d.ex, 'debit');
      const other = await ctx.send('/wallet/debit', ctx.moneyBody({ roundId: d.roundId, amount: ctx.unit * 2n }), {
        label: 'same key, twice the amount',
        idempotencyKey: d.key,
      });
      expectRefusal(other, 'same debit key with another amount', { status: 409, codes: ['IDEMPOTENCY_CONFLICT'] });
      await ctx.expectBalance(before - ctx.unit, 'after the conflicting debit');
      await ctx.rollback({ roundId: d.roundId, debitKey: d.key, amount: d.amount });
    },
  }),
  check({
    id: 'idempotency.credit-conflict',
    category: 'idempotency',
    title: 'the key of a credit sent again with another amount is refused with 409 IDEMPOTENCY_CONFLICT',
    clause: 'SPEC.md Authentication 4; CONTRACT.md §11 (409 IDEMPOTENCY_CONFLICT)',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const d = await ctx.debit({});
      ctx.moneyAnswer(d.ex, 'debit');
      ctx.moneyAnswer(await ctx.credit({ roundId: d.roundId, amount: d.amount, closes: d.key }), 'credit');
      const other = await ctx.credit({ roundId: d.roundId, amount: ctx.unit * 3n, label: 'same key, three times the amount' });
      expectRefusal(other, 'same credit key with another amount', { status: 409, codes: ['IDEMPOTENCY_CONFLICT'] });
      await ctx.expectBalance(before, 'after the conflicting credit');
    },
  }),
  check({
    id: 'idempotency.concurrent-debits',
    category: 'idempotency',
    title: `the same debit sent ${DUPLICATES} times at once debits once (one casinoTransactionId)`,
    clause: 'SPEC.md Wallet interface rule 5; concurrent duplicates never move money twice',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const roundId = ctx.newRound();
      const key = `${roundId}:debit`;
      const body = ctx.moneyBody({ roundId, amount: ctx.unit });
      const { statuses } = await concurrently(ctx, 'debit', (i) => ctx.debit({ roundId, key, body, label: `debit #${i + 1}` }).then((r) => r.ex));
      await ctx.expectBalance(before - ctx.unit, `after ${DUPLICATES} concurrent duplicates of one debit`);
      await ctx.rollback({ roundId, debitKey: key, amount: ctx.unit });
      return { figures: { answers: statuses } };
    },
  }),
  check({
    id: 'idempotency.concurrent-credits',
    category: 'idempotency',
    title: `the same credit sent ${DUPLICATES} times at once credits once`,
    clause: 'SPEC.md Wallet interface rule 5; concurrent duplicates never move money twice',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const d = await ctx.debit({});
      ctx.moneyAnswer(d.ex, 'debit');
      const body = ctx.moneyBody({ roundId: d.roundId, amount: d.amount });
      const { statuses } = await concurrently(ctx, 'credit', (i) =>
        ctx.credit({ roundId: d.roundId, amount: d.amount, body, closes: d.key, label: `credit #${i + 1}` }),
      );
      await ctx.expectBalance(before, `after ${DUPLICATES} concurrent duplicates of one credit`);
      return { figures: { answers: statuses } };
    },
  }),
  check({
    id: 'idempotency.debit-after-rollback',
    category: 'idempotency',
    title: 'a debit repeated after its rollback returns the original answer (or is refused) and does not debit again',
    clause: 'SPEC.md Wallet interface rule 5; CONTRACT.md §11',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const d = await ctx.debit({});
      ctx.moneyAnswer(d.ex, 'debit');
      ctx.moneyAnswer(await ctx.rollback({ roundId: d.roundId, debitKey: d.key, amount: d.amount }), 'rollback');
      const again = await ctx.send('/wallet/debit', d.ex.request.body, { label: 'the debit again, after its rollback', idempotencyKey: d.key });
      if (is2xx(again)) sameTransaction(ctx, d.ex, again, 'debit');
      else expectRefusal(again, 'the debit again, after its rollback');
      await ctx.expectBalance(before, 'after debit, rollback and the debit again');
    },
  }),
];

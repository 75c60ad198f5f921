/**
 * Rollback (SPEC.md Wallet interface rule 4, CONTRACT.md §11): it restores the balance once, a
 * rollback of a debit never received succeeds, and that debit is refused if it arrives late.
 */
import { expectRefusal, fail, is2xx } from '../context.js';
import { check } from './types.js';

export const rollbackChecks = [
  check({
    id: 'rollback.restores',
    category: 'rollback',
    title: 'a rollback of a debit restores the balance exactly, with a transaction of its own',
    clause: 'SPEC.md Wallet interface (/wallet/rollback), rule 4',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const d = await ctx.debit({});
      const debit = ctx.moneyAnswer(d.ex, 'debit');
      const r = ctx.moneyAnswer(await ctx.rollback({ roundId: d.roundId, debitKey: d.key, amount: d.amount, reason: 'debit ambiguous' }), 'rollback');
      if (r.casinoTransactionId === debit.casinoTransactionId) fail("the rollback answered the debit's casinoTransactionId");
      if (r.balance !== before) fail(`rollback answered balance ${ctx.fmt(r.balance)}, expected ${ctx.fmt(before)}`);
      await ctx.expectBalance(before, 'after a debit and its rollback');
    },
  }),
  check({
    id: 'rollback.unknown-debit',
    category: 'rollback',
    title: 'a rollback of a debit the wallet never received succeeds (200) and moves nothing',
    clause: 'CONTRACT.md §11 (a rollback of a debit the casino never received must succeed)',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const roundId = ctx.newRound();
      const r = await ctx.rollback({ roundId, debitKey: `${roundId}:debit`, amount: ctx.unit, reason: 'debit timed out' });
      const a = ctx.moneyAnswer(r, 'rollback of an unknown debit');
      if (a.balance !== before) fail(`rollback of an unknown debit answered balance ${ctx.fmt(a.balance)}, expected ${ctx.fmt(before)}`);
      await ctx.expectBalance(before, 'after a rollback of an unknown debit');
    },
  }),
  check({
    id: 'rollback.late-debit',
    category: 'rollback',
    title: 'a debit arriving after its rollback is refused and debits nothing',
    clause: 'CONTRACT.md §11 (the casino must then refuse that debit if it arrives late)',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const roundId = ctx.newRound();
      const debitKey = `${roundId}:debit`;
      const r = await ctx.rollback({ roundId, debitKey, amount: ctx.unit, reason: 'debit timed out' });
      if (!is2xx(r)) fail('the rollback of a debit not received yet was refused (see rollback.unknown-debit)');
      const late = await ctx.debit({ roundId, key: debitKey, label: 'the debit, arriving late' });
      expectRefusal(late.ex, 'late debit');
      await ctx.expectBalance(before, 'after a rollback and the late debit');
    },
  }),
  check({
    id: 'rollback.second-rollback',
    category: 'rollback',
    title: 'a second rollback of the same debit under another key does not refund it again',
    clause: 'SPEC.md Wallet interface rules 4–5 (no second transaction); CONTRACT.md §11',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const d = await ctx.debit({});
      ctx.moneyAnswer(d.ex, 'debit');
      ctx.moneyAnswer(await ctx.rollback({ roundId: d.roundId, debitKey: d.key, amount: d.amount }), 'rollback');
      const second = await ctx.send('/wallet/rollback', ctx.rollbackBody({ roundId: d.roundId, debitKey: d.key, amount: d.amount }), {
        label: 'another rollback key for the same debit',
        idempotencyKey: `${d.key}:rollback:2`,
      });
      if (!is2xx(second)) expectRefusal(second, 'second rollback');
      await ctx.expectBalance(before, 'after two rollbacks of one debit');
    },
  }),
  check({
    id: 'rollback.amount-mismatch',
    category: 'rollback',
    title: "a rollback naming another amount than its debit is refused, or refunds only the debit's amount",
    clause: 'CONTRACT.md §11 (a rollback undoes its debit); SPEC.md Wallet interface rule 4',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const d = await ctx.debit({});
      ctx.moneyAnswer(d.ex, 'debit');
      const odd = await ctx.send('/wallet/rollback', ctx.rollbackBody({ roundId: d.roundId, debitKey: d.key, amount: ctx.unit * 5n }), {
        label: 'rollback of 5 × the debited amount',
        idempotencyKey: `${d.key}:rollback:amount`,
      });
      if (is2xx(odd)) {
        ctx.markReversed(d.key);
        await ctx.expectBalance(before, 'after a rollback naming 5 × the debit');
        return { message: 'accepted, refunded the debit amount' };
      }
      expectRefusal(odd, 'rollback with another amount');
      await ctx.expectBalance(before - ctx.unit, 'after the refused rollback');
      ctx.moneyAnswer(await ctx.rollback({ roundId: d.roundId, debitKey: d.key, amount: d.amount }), 'rollback');
      return { message: 'refused' };
    },
  }),
];

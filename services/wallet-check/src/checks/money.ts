/**
 * Debit and credit (SPEC.md "Wallet interface", CONTRACT.md §3 and §11): the answer fields, the
 * balance moved by exactly the amount, a credit of 0, exact decimals, and the business refusals
 * that must move nothing.
 */
import { randomBytes } from 'node:crypto';
import { expectRefusal, fail, type CheckContext } from '../context.js';
import { fullDecimals } from '../money.js';
import { check } from './types.js';

/** A debit that must be refused with a 4xx and this code; the balance must not change. */
export async function refusedDebit(
  ctx: CheckContext,
  label: string,
  o: Parameters<CheckContext['debit']>[0],
  refusal: { status?: number; codes?: string[] },
): Promise<void> {
  const before = await ctx.balance('balance before');
  const { ex } = await ctx.debit({ label, ...o });
  expectRefusal(ex, label, refusal);
  await ctx.expectBalance(before, `after the refused ${label}`);
}

export const moneyChecks = [
  check({
    id: 'money.debit',
    category: 'money',
    title: 'a debit answers casinoTransactionId, balance and currency, and lowers the balance by exactly the amount',
    clause: 'SPEC.md Wallet interface (/wallet/debit); CONTRACT.md §3',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const d = await ctx.debit({});
      const a = ctx.moneyAnswer(d.ex, 'debit');
      if (a.balance !== before - ctx.unit) fail(`debit answered balance ${ctx.fmt(a.balance)}, expected ${ctx.fmt(before - ctx.unit)}`);
      await ctx.expectBalance(before - ctx.unit, 'after the debit');
      await ctx.rollback({ roundId: d.roundId, debitKey: d.key, amount: d.amount });
      return { message: `debited ${ctx.fmt(ctx.unit)} (transaction ${a.casinoTransactionId}), rolled back` };
    },
  }),
  check({
    id: 'money.credit',
    category: 'money',
    title: 'a credit closing a round raises the balance by exactly the amount, with a transaction of its own',
    clause: 'SPEC.md Wallet interface (/wallet/credit), rule 3',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const d = await ctx.debit({});
      const debit = ctx.moneyAnswer(d.ex, 'debit');
      const c = await ctx.credit({ roundId: d.roundId, amount: d.amount, closes: d.key });
      const credit = ctx.moneyAnswer(c, 'credit');
      if (credit.casinoTransactionId === debit.casinoTransactionId) fail("the credit answered the debit's casinoTransactionId");
      if (credit.balance !== before) fail(`credit answered balance ${ctx.fmt(credit.balance)}, expected ${ctx.fmt(before)}`);
      await ctx.expectBalance(before, 'after a debit and a credit of the same amount');
    },
  }),
  check({
    id: 'money.zero-credit',
    category: 'money',
    title: 'a credit of 0 (a lost round) is accepted and moves nothing',
    clause: 'SPEC.md Wallet interface rule 3 (a losing result uses amount 0)',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const lost = await ctx.debit({ label: 'debit (round 1)' });
      ctx.moneyAnswer(lost.ex, 'debit');
      const zero = await ctx.credit({ roundId: lost.roundId, amount: 0n, label: 'credit 0 (round 1 lost)' });
      // round 1 is closed as lost; round 2 pays the stake of both back, so the run ends where it began
      const a = ctx.moneyAnswer(zero, 'credit of 0');
      if (a.balance !== before - ctx.unit) fail(`credit of 0 answered balance ${ctx.fmt(a.balance)}, expected ${ctx.fmt(before - ctx.unit)}`);
      await ctx.expectBalance(before - ctx.unit, 'after a credit of 0');
      const won = await ctx.debit({ label: 'debit (round 2)' });
      ctx.moneyAnswer(won.ex, 'debit');
      ctx.moneyAnswer(
        await ctx.credit({ roundId: won.roundId, amount: ctx.unit * 2n, closes: won.key, label: 'credit 2 × the stake (round 2 won)' }),
        'credit',
      );
      ctx.markReversed(lost.key); // round 2 paid round 1's stake back
      await ctx.expectBalance(before, 'after a lost and a won round');
    },
  }),
  check({
    id: 'money.exact-decimals',
    category: 'money',
    title: 'amounts written with every decimal of the currency (e.g. 0.07, 0.00000007) move the balance exactly',
    clause: 'SPEC.md currency precision table; CONTRACT.md §3 (exact, never floats)',
    async run(ctx) {
      const d = ctx.s.decimals;
      const amount = 7n;
      const text = fullDecimals(amount, d);
      const before = await ctx.balance('balance before');
      const debit = await ctx.debit({ amount: { raw: text }, label: `debit ${text}` });
      const a = ctx.moneyAnswer(debit.ex, `debit ${text}`);
      if (a.balance !== before - amount) fail(`debit of ${text} answered balance ${ctx.fmt(a.balance)}, expected ${ctx.fmt(before - amount)}`);
      const credit = await ctx.credit({ roundId: debit.roundId, amount: { raw: text }, closes: debit.key, label: `credit ${text}` });
      const c = ctx.moneyAnswer(credit, `credit ${text}`);
      if (c.balance !== before) fail(`credit of ${text} answered balance ${ctx.fmt(c.balance)}, expected ${ctx.fmt(before)}`);
      await ctx.expectBalance(before, `after debit and credit of ${text}`);
      return { message: `${text} ${ctx.s.currency} debited and credited exactly` };
    },
  }),
  check({
    id: 'money.insufficient-funds',
    category: 'money',
    title: 'a debit larger than the balance is refused with 400 INSUFFICIENT_FUNDS and debits nothing',
    clause: 'CONTRACT.md §11 (the casino decides; INSUFFICIENT_FUNDS passes through)',
    async run(ctx) {
      const balance = await ctx.balance('balance');
      await refusedDebit(ctx, 'debit of the balance + 1 minor unit', { amount: balance + 1n }, { status: 400, codes: ['INSUFFICIENT_FUNDS'] });
    },
  }),
  check({
    id: 'money.currency-mismatch',
    category: 'money',
    title: 'a debit in another currency is refused with 400 CURRENCY_MISMATCH and debits nothing',
    clause: 'SPEC.md Wallet interface rules 1–2 (one currency per profile); CONTRACT.md §11',
    async run(ctx) {
      const roundId = ctx.newRound();
      const other = ctx.s.currency === 'EUR' ? 'USD' : 'EUR';
      await refusedDebit(
        ctx,
        `debit in ${other}`,
        { roundId, body: ctx.moneyBody({ roundId, amount: ctx.unit, currency: other }) },
        { status: 400, codes: ['CURRENCY_MISMATCH'] },
      );
    },
  }),
  check({
    id: 'money.invalid-token',
    category: 'money',
    title: 'a debit with a launch token the casino did not issue is refused with 400 INVALID_SESSION',
    clause: 'SPEC.md Wallet interface (debit carries launchToken); CONTRACT.md §11',
    async run(ctx) {
      const roundId = ctx.newRound();
      const body = ctx.moneyBody({ roundId, amount: ctx.unit, launchToken: `lt_wallet_check_unknown_${randomBytes(12).toString('hex')}` });
      await refusedDebit(ctx, 'debit with an unknown launch token', { roundId, body }, { status: 400, codes: ['INVALID_SESSION'] });
    },
  }),
];

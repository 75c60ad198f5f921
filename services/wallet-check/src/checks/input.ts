/**
 * Hostile and edge input: amounts that must be refused (negative, zero, over-precise, strings,
 * absurd), unknown players, a body naming another operator, unicode and very long strings,
 * bodies that are too large or not JSON. A wallet refuses with a 4xx (never a 5xx, never
 * silence) and moves nothing; strings it accepts are handled byte-exactly (UTF-8 is signed).
 */
import { randomBytes } from 'node:crypto';
import { describe, expectRefusal, fail, is2xx, type CheckContext } from '../context.js';
import type { Exchange } from '../http.js';
import { fullDecimals } from '../money.js';
import { refusedDebit } from './money.js';
import { check } from './types.js';

/** Accepted (then reversed) or refused with a 4xx; never a 401 (UTF-8 signed wrong), a 5xx or no answer. */
async function acceptedOrRefused(ctx: CheckContext, ex: Exchange, what: string, before: bigint, reverse: () => Promise<Exchange>): Promise<string> {
  const st = ex.response.status;
  if (st === 401) fail(`${what} was refused as badly signed (${describe(ex)}): the signature must be checked over the exact UTF-8 bytes received`);
  if (is2xx(ex)) {
    ctx.moneyAnswer(ex, what);
    await ctx.expectBalance(before - ctx.unit, `after the ${what}`);
    ctx.moneyAnswer(await reverse(), 'rollback');
    await ctx.expectBalance(before, `after the rollback of the ${what}`);
    return 'accepted and rolled back';
  }
  expectRefusal(ex, what);
  await ctx.expectBalance(before, `after the refused ${what}`);
  return `refused (${describe(ex).slice(0, 80)})`;
}

const UNICODE = 'ünïcødé — 取消 — עברית — 🎲🂡';

export const inputChecks = [
  check({
    id: 'input.negative-debit',
    category: 'input',
    title: 'a debit of a negative amount is refused (400) and credits nothing',
    clause: 'CONTRACT.md §3 (zero or negative is VALIDATION_ERROR); SPEC.md Wallet interface',
    async run(ctx) {
      const text = `-${fullDecimals(ctx.unit, ctx.s.decimals)}`;
      await refusedDebit(ctx, `debit of ${text}`, { amount: { raw: text } }, { status: 400 });
    },
  }),
  check({
    id: 'input.negative-credit',
    category: 'input',
    title: 'a credit of a negative amount is refused (400) and debits nothing',
    clause: 'CONTRACT.md §3; SPEC.md Wallet interface (/wallet/credit)',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const text = `-${fullDecimals(ctx.unit, ctx.s.decimals)}`;
      const ex = await ctx.credit({ roundId: ctx.newRound(), amount: { raw: text }, label: `credit of ${text}` });
      expectRefusal(ex, `credit of ${text}`, { status: 400 });
      await ctx.expectBalance(before, 'after the refused negative credit');
    },
  }),
  check({
    id: 'input.zero-debit',
    category: 'input',
    title: 'a debit of 0 is refused (400)',
    clause: 'CONTRACT.md §3 (zero is VALIDATION_ERROR)',
    async run(ctx) {
      await refusedDebit(ctx, 'debit of 0', { amount: 0n }, { status: 400 });
    },
  }),
  check({
    id: 'input.over-precise',
    category: 'input',
    title: 'a debit with more decimals than the currency has (e.g. 0.011 USD) is refused (400), not rounded',
    clause: 'CONTRACT.md §3 (more decimals than the currency allows is VALIDATION_ERROR); SPEC.md currency precision table',
    async run(ctx) {
      const text = `${fullDecimals(ctx.unit, ctx.s.decimals)}${ctx.s.decimals === 0 ? '.' : ''}1`;
      await refusedDebit(ctx, `debit of ${text}`, { amount: { raw: text } }, { status: 400 });
    },
  }),
  check({
    id: 'input.amount-as-string',
    category: 'input',
    title: 'a debit whose amount is a JSON string is refused (400)',
    clause: 'SPEC.md Wallet interface (amount is a number); CONTRACT.md §3',
    async run(ctx) {
      const text = fullDecimals(ctx.unit, ctx.s.decimals);
      await refusedDebit(ctx, `debit of "${text}"`, { amount: { string: text } }, { status: 400 });
    },
  }),
  check({
    id: 'input.huge-amount',
    category: 'input',
    title: 'a debit of 10^30 is refused (4xx, not a 5xx) and debits nothing',
    clause: 'CONTRACT.md §3 (exact amounts); CONTRACT.md §11',
    async run(ctx) {
      await refusedDebit(ctx, 'debit of 1e30', { amount: { raw: '1000000000000000000000000000000' } }, {});
    },
  }),
  check({
    id: 'input.unknown-player',
    category: 'input',
    title: 'a debit for an unknown playerRef is refused (4xx) and debits nothing',
    clause: 'CONTRACT.md §11 (INVALID_SESSION)',
    async run(ctx) {
      const roundId = ctx.newRound();
      const body = ctx.moneyBody({ roundId, amount: ctx.unit, playerRef: `wallet-check-unknown-${randomBytes(8).toString('hex')}` });
      await refusedDebit(ctx, 'debit for an unknown player', { roundId, body }, {});
    },
  }),
  check({
    id: 'input.operator-mismatch',
    category: 'input',
    title: 'a debit whose body names another operator than X-Operator-Id is refused (4xx)',
    clause: "SPEC.md Authentication 1–2 (signed with the operator's secret); CONTRACT.md §6",
    async run(ctx) {
      const roundId = ctx.newRound();
      const body = ctx.moneyBody({ roundId, amount: ctx.unit, operatorId: `${ctx.s.operatorId}-other` });
      await refusedDebit(ctx, 'debit naming another operator', { roundId, body }, {});
    },
  }),
  check({
    id: 'input.missing-field',
    category: 'input',
    title: 'a debit without roundId is refused (400) and debits nothing',
    clause: 'SPEC.md Wallet interface (request fields)',
    async run(ctx) {
      const roundId = ctx.newRound();
      await refusedDebit(ctx, 'debit without roundId', { roundId, body: ctx.moneyBody({ roundId, amount: ctx.unit, omit: ['roundId'] }) }, { status: 400 });
    },
  }),
  check({
    id: 'input.not-json',
    category: 'input',
    title: 'a signed debit whose body is not JSON is refused (400), not a 5xx',
    clause: 'CONTRACT.md §11 (400 for refusals)',
    async run(ctx) {
      await refusedDebit(ctx, 'debit with a body that is not JSON', { body: '{"operatorId": "this is not json' }, { status: 400 });
    },
  }),
  check({
    id: 'input.oversized-body',
    category: 'input',
    title: 'a 100 KiB debit body is refused (4xx) or handled, never a 5xx or a dropped connection',
    clause: 'CONTRACT.md §11 (non-2xx answers carry a JSON code)',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const roundId = ctx.newRound();
      const body = ctx.moneyBody({ roundId, amount: ctx.unit, extra: { padding: 'x'.repeat(100 * 1024) } });
      const d = await ctx.debit({ roundId, body, label: 'debit with a 100 KiB body' });
      return {
        message: await acceptedOrRefused(ctx, d.ex, 'debit with a 100 KiB body', before, () => ctx.rollback({ roundId, debitKey: d.key, amount: d.amount })),
      };
    },
  }),
  check({
    id: 'input.unicode-reason',
    category: 'input',
    title: 'a rollback whose reason is unicode text is accepted: the signature covers the UTF-8 bytes as sent',
    clause: 'SPEC.md Authentication 3 (raw JSON body); CONTRACT.md §6 (RAW_BODY is the exact bytes)',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const d = await ctx.debit({});
      ctx.moneyAnswer(d.ex, 'debit');
      const r = await ctx.rollback({ roundId: d.roundId, debitKey: d.key, amount: d.amount, reason: `rolled back: ${UNICODE}` });
      if (r.response.status === 401)
        fail(`the unicode rollback was refused as badly signed (${describe(r)}): the signature must be checked over the exact UTF-8 bytes`);
      ctx.moneyAnswer(r, 'rollback with a unicode reason');
      await ctx.expectBalance(before, 'after the rollback');
    },
  }),
  check({
    id: 'input.unicode-round',
    category: 'input',
    title: 'a debit with a unicode roundId is accepted or refused with a 4xx, never a 401, a 5xx or silence',
    clause: 'SPEC.md Authentication 3; CONTRACT.md §6 and §11',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const roundId = `wallet-check-${UNICODE}-${randomBytes(4).toString('hex')}`;
      const d = await ctx.debit({ roundId, key: `${ctx.newRound()}:debit`, label: 'debit with a unicode roundId' });
      return {
        message: await acceptedOrRefused(ctx, d.ex, 'debit with a unicode roundId', before, () => ctx.rollback({ roundId, debitKey: d.key, amount: d.amount })),
      };
    },
  }),
  check({
    id: 'input.long-strings',
    category: 'input',
    title: 'a debit with a 4,000-character roundId and gameType is accepted or refused with a 4xx, never a 5xx',
    clause: 'CONTRACT.md §11 (refusals are 4xx with a code)',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const roundId = `wallet-check-${'r'.repeat(4000)}-${randomBytes(4).toString('hex')}`;
      const body = ctx.moneyBody({ roundId, amount: ctx.unit, gameType: 'g'.repeat(4000) });
      const d = await ctx.debit({ roundId, key: `${ctx.newRound()}:debit`, body, label: 'debit with 4,000-character strings' });
      return {
        message: await acceptedOrRefused(ctx, d.ex, 'debit with 4,000-character strings', before, () =>
          ctx.rollback({ roundId, debitKey: d.key, amount: d.amount }),
        ),
      };
    },
  }),
];

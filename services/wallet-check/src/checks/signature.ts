/**
 * Signatures (SPEC.md "Authentication", CONTRACT.md §6): the wallet accepts a correct one and
 * refuses, with 401 and a SIGNATURE_* code, a missing header, a wrong signature, a stale or
 * future timestamp and a reused nonce. Refused money requests move nothing (balance checked).
 */
import { randomBytes } from 'node:crypto';
import { codeOf, expectRefusal, expectStatus, type CheckContext } from '../context.js';
import { check } from './types.js';

const SIGNATURE_CODES = ['SIGNATURE_REQUIRED', 'SIGNATURE_INVALID', 'SIGNATURE_STALE', 'SIGNATURE_REPLAYED'];
const nowSeconds = () => Math.floor(Date.now() / 1000);
const nonce = () => randomBytes(18).toString('base64url');

function missingHeader(header: string, name: string) {
  return check({
    id: `signature.missing-${name}`,
    category: 'signature',
    title: `a request without ${header} is refused with 401 SIGNATURE_REQUIRED`,
    clause: 'SPEC.md Authentication 2; SPEC.md Errors (SIGNATURE_REQUIRED); CONTRACT.md §11',
    async run(ctx) {
      const ex = await ctx.send('/wallet/balance', ctx.balanceBody(), { label: `balance without ${header}`, omit: [header] });
      expectRefusal(ex, `balance without ${header}`, { status: 401, codes: ['SIGNATURE_REQUIRED'] });
    },
  });
}

/** A debit that must be refused before anything moves; the balance must not change. */
async function refusedDebit(ctx: CheckContext, label: string, send: Parameters<CheckContext['debit']>[0], code: string[]): Promise<void> {
  const before = await ctx.balance('balance before');
  const { ex } = await ctx.debit({ label, ...send });
  expectRefusal(ex, label, { status: 401, codes: code });
  await ctx.expectBalance(before, `after a refused ${label}`);
}

function timestampCheck(id: string, title: string, clause: string, timestamp: () => number | string) {
  return check({
    id,
    category: 'signature',
    title,
    clause,
    async run(ctx) {
      const ts = timestamp();
      const ex = await ctx.send('/wallet/balance', ctx.balanceBody(), { label: `balance with X-Timestamp ${ts}`, timestamp: ts });
      expectRefusal(ex, `balance with X-Timestamp ${ts}`, { status: 401, codes: ['SIGNATURE_STALE'] });
    },
  });
}

export const signatureChecks = [
  check({
    id: 'signature.accepted',
    category: 'signature',
    title: 'a request signed as CONTRACT.md §6 says (PATH the interface path, RAW_BODY the exact bytes) is accepted',
    clause: 'SPEC.md Authentication 1–3; CONTRACT.md §6',
    async run(ctx) {
      const ex = await ctx.send('/wallet/balance', ctx.balanceBody(), { label: 'balance' });
      expectStatus(ex, 200);
      const prefix = new URL(ctx.http.baseUrl).pathname.replace(/\/$/, '');
      return { message: prefix ? `signed /wallet/balance, sent to ${prefix}/wallet/balance` : 'signed /wallet/balance' };
    },
  }),
  missingHeader('X-Signature', 'signature'),
  missingHeader('X-Timestamp', 'timestamp'),
  missingHeader('X-Nonce', 'nonce'),
  missingHeader('X-Operator-Id', 'operator'),
  check({
    id: 'signature.wrong-secret',
    category: 'signature',
    title: 'a debit signed with another secret is refused with 401 SIGNATURE_INVALID and debits nothing',
    clause: 'SPEC.md Authentication 1, 3–4; CONTRACT.md §11',
    async run(ctx) {
      await refusedDebit(ctx, 'debit signed with a wrong secret', { send: { secret: `not-the-secret-${randomBytes(8).toString('hex')}` } }, [
        'SIGNATURE_INVALID',
      ]);
    },
  }),
  check({
    id: 'signature.wrong-path',
    category: 'signature',
    title: 'a debit carrying the signature of /wallet/balance is refused with 401 SIGNATURE_INVALID (PATH is signed)',
    clause: 'SPEC.md Authentication 3; CONTRACT.md §6',
    async run(ctx) {
      await refusedDebit(ctx, 'debit signed for /wallet/balance', { send: { signedPath: '/wallet/balance' } }, ['SIGNATURE_INVALID']);
    },
  }),
  check({
    id: 'signature.tampered-body',
    category: 'signature',
    title: 'a debit whose body was changed after signing (100 × the amount) is refused with 401 SIGNATURE_INVALID and debits nothing',
    clause: 'SPEC.md Authentication 3–4 (RAW_BODY is signed); CONTRACT.md §6',
    async run(ctx) {
      const roundId = ctx.newRound();
      const signedBody = ctx.moneyBody({ roundId, amount: ctx.unit });
      const sent = ctx.moneyBody({ roundId, amount: ctx.unit * 100n });
      await refusedDebit(ctx, 'tampered debit', { roundId, amount: ctx.unit * 100n, body: sent, send: { signedBody } }, ['SIGNATURE_INVALID']);
    },
  }),
  timestampCheck(
    'signature.stale-timestamp',
    'a request signed 10 minutes ago is refused with 401 SIGNATURE_STALE',
    'SPEC.md Authentication 4 (skew 5 minutes); CONTRACT.md §6',
    () => nowSeconds() - 600,
  ),
  timestampCheck(
    'signature.future-timestamp',
    'a request dated 10 minutes ahead is refused with 401 SIGNATURE_STALE',
    'SPEC.md Authentication 4 (skew 5 minutes); CONTRACT.md §6',
    () => nowSeconds() + 600,
  ),
  timestampCheck(
    'signature.millisecond-timestamp',
    'X-Timestamp in milliseconds is refused with 401 SIGNATURE_STALE (it is whole seconds)',
    'CONTRACT.md §6 (Unix time in whole seconds)',
    () => Date.now(),
  ),
  check({
    id: 'signature.within-skew',
    category: 'signature',
    title: 'a request signed 2 minutes ago (inside the 5-minute skew) is accepted',
    clause: 'SPEC.md Authentication 4; SPEC.md Limits (allowed clock skew 5 minutes)',
    async run(ctx) {
      const ex = await ctx.send('/wallet/balance', ctx.balanceBody(), { label: 'balance signed 120 s ago', timestamp: nowSeconds() - 120 });
      expectStatus(ex, 200);
    },
  }),
  check({
    id: 'signature.replayed-request',
    category: 'signature',
    title: 'an exact replay of a signed debit (same nonce) is refused with 401 SIGNATURE_REPLAYED and debits nothing more',
    clause: 'SPEC.md Authentication 4 (a reused nonce is rejected); CONTRACT.md §6',
    async run(ctx) {
      const before = await ctx.balance('balance before');
      const d = await ctx.debit({ label: 'debit' });
      ctx.moneyAnswer(d.ex);
      const replay = await ctx.resend(d.ex, 'the same request again (same nonce, same signature)');
      ctx.noteDebitAnswer(d.key, replay);
      expectRefusal(replay, 'replayed debit', { status: 401, codes: ['SIGNATURE_REPLAYED'] });
      await ctx.expectBalance(before - ctx.unit, 'after a debit and its replay');
      await ctx.rollback({ roundId: d.roundId, debitKey: d.key, amount: d.amount });
    },
  }),
  check({
    id: 'signature.reused-nonce',
    category: 'signature',
    title: 'a new request (other path, other body, valid signature) that reuses a nonce is refused with 401 SIGNATURE_REPLAYED',
    clause: 'SPEC.md Authentication 4; CONTRACT.md §6 (a new nonce for every attempt)',
    async run(ctx) {
      const n = nonce();
      const first = await ctx.send('/wallet/balance', ctx.balanceBody(), { label: 'balance', nonce: n });
      expectStatus(first, 200);
      const second = await ctx.send('/wallet/validate-session', ctx.validateBody(), { label: 'validate-session with the same nonce', nonce: n });
      expectRefusal(second, 'validate-session with a used nonce', { status: 401, codes: ['SIGNATURE_REPLAYED'] });
    },
  }),
  check({
    id: 'signature.unknown-operator',
    category: 'signature',
    title: 'a request of an unknown X-Operator-Id is refused with 401 (SIGNATURE_INVALID)',
    clause: 'SPEC.md Authentication 1 (the operator secret); CONTRACT.md §11',
    async run(ctx) {
      const other = `wallet-check-unknown-${randomBytes(6).toString('hex')}`;
      const ex = await ctx.send('/wallet/balance', ctx.balanceBody({ operatorId: other }), { label: 'balance of an unknown operator', operatorId: other });
      expectRefusal(ex, 'balance of an unknown operator', { status: 401, codes: SIGNATURE_CODES });
      return { message: `refused with ${codeOf(ex)}` };
    },
  }),
  check({
    id: 'signature.malformed-nonce',
    category: 'signature',
    title: 'a nonce outside 16–128 characters of [A-Za-z0-9_-] is refused with 401',
    clause: 'CONTRACT.md §6 (X-Nonce format)',
    async run(ctx) {
      const ex = await ctx.send('/wallet/balance', ctx.balanceBody(), { label: 'balance with nonce "abc"', nonce: 'abc' });
      expectRefusal(ex, 'balance with a short nonce', { status: 401, codes: SIGNATURE_CODES });
    },
  }),
];

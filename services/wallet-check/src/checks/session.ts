/** validate-session and balance answer the SPEC.md fields, in the operator's currency and decimals. */
import { randomBytes } from 'node:crypto';
import { codeOf, describe, expectRefusal, expectStatus, fail, objectBody, show } from '../context.js';
import { SPEC_DECIMALS } from '../money.js';
import { check } from './types.js';

const otherCurrency = (c: string) => (c === 'EUR' ? 'USD' : 'EUR');
/** Debits the run makes at most at once (the load's rounds in flight and a margin). */
export const fundsNeededUnits = (loadConcurrency: number) => BigInt(loadConcurrency * 2 + 20);

export const sessionChecks = [
  check({
    id: 'session.validate',
    category: 'session',
    title: 'validate-session accepts the launch token: valid true, playerRef, displayName, currency',
    clause: 'SPEC.md Wallet interface (/wallet/validate-session)',
    async run(ctx) {
      const ex = await ctx.send('/wallet/validate-session', ctx.validateBody(), { label: 'validate-session' });
      expectStatus(ex, 200);
      const b = objectBody(ex);
      if (b['valid'] !== true) fail(`valid must be true for the launch token, got ${show(b['valid'])}`);
      const playerRef = b['playerRef'];
      if (typeof playerRef !== 'string' || playerRef === '') fail(`playerRef must be a non-empty string, got ${show(playerRef)}`);
      if (typeof b['displayName'] !== 'string') fail(`displayName must be a string, got ${show(b['displayName'])}`);
      const currency = b['currency'];
      if (typeof currency !== 'string' || currency === '') fail(`currency must be a currency code, got ${show(currency)}`);
      const o = ctx.options;
      if (o.playerRef !== undefined && playerRef !== o.playerRef) fail(`playerRef is ${show(playerRef)}, expected --player ${o.playerRef}`);
      const decimals = o.decimals ?? SPEC_DECIMALS[currency];
      if (decimals === undefined) fail(`currency ${currency} is not in SPEC.md's table (pass --decimals to check it anyway)`);
      ctx.session = {
        operatorId: o.operatorId,
        playerRef,
        displayName: b['displayName'] as string,
        launchToken: o.launchToken,
        currency,
        decimals,
        gameType: o.gameType,
      };
      return { message: `player ${playerRef}, ${currency} (${decimals} decimals)` };
    },
  }),
  check({
    id: 'session.currency',
    category: 'session',
    title: "validate-session names a supported currency: the operator's (--currency) with SPEC.md's decimals",
    clause: 'SPEC.md Wallet interface rule 1; supported currency codes; currency precision table',
    async run(ctx) {
      const s = ctx.s;
      if (!(s.currency in SPEC_DECIMALS)) fail(`${s.currency} is not a supported currency code (${Object.keys(SPEC_DECIMALS).join(', ')})`);
      if (ctx.options.currency !== undefined && s.currency !== ctx.options.currency) {
        fail(
          `validate-session answered ${s.currency}, the operator's currency is ${ctx.options.currency} (the provider refuses the session with CURRENCY_MISMATCH)`,
        );
      }
      return { message: ctx.options.currency ? `${s.currency} as configured` : `${s.currency} (pass --currency to compare with the operator's)` };
    },
  }),
  check({
    id: 'session.unknown-token',
    category: 'session',
    title: 'an unknown launch token is not valid: 200 {"valid": false} or 400 INVALID_SESSION',
    clause: 'CONTRACT.md §11 (validate-session may answer {"valid": false})',
    async run(ctx) {
      const ex = await ctx.send('/wallet/validate-session', ctx.validateBody({ launchToken: `lt_wallet_check_unknown_${randomBytes(12).toString('hex')}` }), {
        label: 'validate-session (unknown token)',
      });
      if (ex.response.status === 200) {
        const b = objectBody(ex);
        if (b['valid'] !== false) fail(`an unknown token must not be valid, got ${describe(ex)}`);
        return;
      }
      expectRefusal(ex, 'validate-session (unknown token)', { status: 400, codes: ['INVALID_SESSION'] });
    },
  }),
  check({
    id: 'session.balance',
    category: 'session',
    title: "balance answers balance (a JSON number, at most the currency's decimals, not negative) and the session currency",
    clause: 'SPEC.md Wallet interface rule 2; currency precision table; CONTRACT.md §3',
    async run(ctx) {
      const balance = await ctx.balance();
      if (balance < 0n) fail(`balance is negative: ${ctx.fmt(balance)}`);
      ctx.startBalance = balance;
      const needed = ctx.unit * fundsNeededUnits(ctx.options.loadConcurrency);
      if (balance < needed) fail(`the test player holds ${ctx.fmt(balance)}; the run needs at least ${ctx.fmt(needed)} (top up the test player)`);
      return { message: ctx.fmt(balance) };
    },
  }),
  check({
    id: 'session.balance-other-currency',
    category: 'session',
    title: 'balance asked in another currency is refused with 400 CURRENCY_MISMATCH',
    clause: 'SPEC.md Wallet interface rules 1–2; CONTRACT.md §11',
    async run(ctx) {
      const ex = await ctx.send('/wallet/balance', ctx.balanceBody({ currency: otherCurrency(ctx.s.currency) }), { label: 'balance (other currency)' });
      expectRefusal(ex, 'balance (other currency)', { status: 400, codes: ['CURRENCY_MISMATCH'] });
    },
  }),
  check({
    id: 'session.balance-unknown-player',
    category: 'session',
    title: "balance of an unknown player is refused with a 4xx business refusal (INVALID_SESSION or the casino's own code)",
    clause: "CONTRACT.md §11 (business refusals: the casino's own codes are allowed)",
    async run(ctx) {
      const ex = await ctx.send('/wallet/balance', ctx.balanceBody({ playerRef: `wallet-check-unknown-${randomBytes(8).toString('hex')}` }), {
        label: 'balance (unknown player)',
      });
      const st = ex.response.status;
      const code = codeOf(ex);
      // A business refusal: a 4xx with a {"code"} body. Not one of the refusals that say something
      // else: 401 (our signature), 409 (an idempotency conflict), 429 (try again later).
      const business = st !== null && st >= 400 && st < 500 && ![401, 409, 429].includes(st) && code !== undefined && !code.startsWith('SIGNATURE_');
      if (!business)
        fail(`balance (unknown player): expected a 4xx business refusal with a {"code"} body (INVALID_SESSION, PLAYER_NOT_FOUND, …), got ${describe(ex)}`);
      return {
        message: `refused with HTTP ${st} ${code}${code === 'INVALID_SESSION' ? '' : " (the casino's own code; the provider passes it on as CASINO_HTTP_ERROR with casinoCode)"}`,
      };
    },
  }),
];

/**
 * The wallet interface a casino implements (SPEC.md "Wallet interface" and "Authentication",
 * CONTRACT.md §6 and §11), as zod schemas: the request bodies the service sends, the answers it
 * reads, the signed headers, and the refusals. `GET /wallet-openapi.json`
 * (http/routes/wallet-openapi.ts) is generated from them, so a casino can generate a server stub.
 */
import { z } from 'zod';
import { CURRENCY_CODES } from '@gp/game-core/money';
import { GAME_TYPES } from '@gp/game-core/games';

/** What validate-session and balance carry as gameType for a lobby session (sessions/sessions.ts). */
const LOBBY = 'lobby';

export const WALLET_PATHS = ['/wallet/validate-session', '/wallet/balance', '/wallet/debit', '/wallet/credit', '/wallet/rollback'] as const;
export type WalletInterfacePath = (typeof WALLET_PATHS)[number];
export const MONEY_PATHS: readonly WalletInterfacePath[] = ['/wallet/debit', '/wallet/credit', '/wallet/rollback'];

export const SIGNATURE_RECIPE = [
  'Every callback is a POST with a JSON body, signed with HMAC-SHA256 and the shared operator secret:',
  '',
  '    X-Signature = lowercase hex HMAC-SHA256(secret, METHOD + "\\n" + PATH + "\\n" + X-Timestamp + "\\n" + X-Nonce + "\\n" + RAW_BODY)',
  '',
  '- METHOD is `POST`; PATH is the interface path (`/wallet/debit`), whatever path prefix the callback base carries;',
  '  RAW_BODY is the exact bytes received (UTF-8): verify before parsing, never over re-serialised JSON.',
  '- X-Timestamp is Unix time in whole seconds; refuse it outside the allowed clock skew (default 300 s) with 401 `SIGNATURE_STALE`.',
  '- X-Nonce is 16 to 128 characters of `[A-Za-z0-9_-]`, new for every attempt (a retry reuses the idempotency key, never the nonce);',
  '  remember nonces at least for the skew window and refuse a reused one with 401 `SIGNATURE_REPLAYED`.',
  '- Compare signatures in constant time; a mismatch, an unknown operator or a malformed header is 401 `SIGNATURE_INVALID`;',
  '  a missing header is 401 `SIGNATURE_REQUIRED`.',
  '',
  'Worked example (docs/integration.md): secret `s3cr3t`, X-Timestamp `1700000000`, X-Nonce `n0nce-0123456789abcdef`, PATH `/wallet/credit`: `0f983cfb36e778c2f85158a389e4e604d1a9fee74bd8e9e47e2fb0420e079077`.',
].join('\n');

export const IDEMPOTENCY_RULES = [
  'debit, credit and rollback carry X-Idempotency-Key: `<roundId>:debit`, `<roundId>:credit`, Blackjack extra debits',
  "`<roundId>:insurance`, `<roundId>:double:<hand>`, `<roundId>:split`, and the rollback of a debit that debit's key plus `:rollback`.",
  'A repeated request with the same key and body must return the original answer (the same casinoTransactionId) without a second',
  'transaction; the same key with another body is 409 `IDEMPOTENCY_CONFLICT`. Store the key, a fingerprint of the request and the',
  'answer, in the same database transaction as the balance change, and make concurrent duplicates wait for or replay the first.',
].join('\n');

// ---------------------------------------------------------------- fields

const operatorId = z.string().min(1).max(64).meta({ description: 'the operator-currency profile; equals X-Operator-Id' });
const playerRef = z.string().min(1).meta({ description: "the casino's player reference, as validate-session answered it" });
const launchToken = z.string().min(1).meta({ description: 'the launch token the casino issued; a secret: never log it' });
const currency = z.enum(CURRENCY_CODES).meta({ description: "the profile's one currency (SPEC.md currency table)" });
const gameOrLobby = z.enum([...GAME_TYPES, LOBBY]).meta({ description: 'the game, or `lobby` for a lobby session' });
const gameType = z.enum(GAME_TYPES);
const roundId = z
  .string()
  .min(1)
  .meta({ description: "the service's round id (a UUID); one round has one debit (plus Blackjack extra debits) and one credit" });
const amountText = (rule: string) =>
  z.number().meta({
    description: `JSON number, exact, with at most the currency's decimals (USD 2, BTC 8, ...). ${rule} Parse it losslessly: never through a binary float.`,
  });
const balance = z.number().meta({ description: "the player's playable balance after the operation, a JSON number in the currency's decimals" });
const casinoTransactionId = z.string().min(1).meta({ description: "the casino's id of the transaction; a replay answers the original one" });

// ---------------------------------------------------------------- requests

export const validateSessionRequest = z.object({ operatorId, launchToken, gameType: gameOrLobby }).meta({ id: 'ValidateSessionRequest' });
export const balanceRequest = z.object({ operatorId, playerRef, gameType: gameOrLobby, currency }).meta({ id: 'BalanceRequest' });
export const debitRequest = z
  .object({ operatorId, playerRef, launchToken, gameType, roundId, amount: amountText('Above 0.'), currency })
  .meta({ id: 'DebitRequest' });
export const roundCreditRequest = z
  .object({
    operatorId,
    playerRef,
    launchToken,
    gameType,
    roundId,
    amount: amountText('0 or more: a lost round is closed by a credit of 0.'),
    currency,
    freeBet: z.literal(true).optional().meta({
      description:
        'Free-bet extension (docs/free-bets.md): present (true) only on the credit of a free bet. No debit was sent for its round: pay the amount out of the campaign, ledger it as a free-bet payout.',
    }),
    campaignId: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'With `freeBet`: the free-bet campaign (as created through POST /api/free-bet-campaigns) that funded the round.' }),
  })
  .meta({
    id: 'RoundCreditRequest',
    description:
      "Sent for every closed round; also after the session ended (do not refuse it for an expired launch token). A free bet's credit also carries `freeBet: true` and `campaignId`.",
  });
/** A promotion's prize (issue 30, docs/promotions.md): no round, no debit, no launch token. */
export const promoCreditRequest = z
  .object({
    operatorId,
    playerRef,
    amount: amountText('Above 0.'),
    currency,
    promo: z.literal(true).meta({
      description:
        'Promotions extension (docs/promotions.md): a prize of a tournament or a prize drop. No round, no debit: pay it out of the promotion, ledger it as a promo payout.',
    }),
    promoId: z.string().min(1).meta({ description: 'the tournament or prize drop (as created through POST /api/promotions)' }),
    promoType: z.enum(['tournament', 'prize_drop']),
    prize: z
      .number()
      .int()
      .min(0)
      .meta({ description: "a tournament's rank (from 1) or a prize drop's prize index (from 0); the key is `<promoId>:prize:<prize>`" }),
    sourceRoundId: roundId.optional().meta({ description: "a prize drop's winning bet" }),
  })
  .meta({
    id: 'PromoCreditRequest',
    description:
      'A promotion prize: one credit per prize, key `<promoId>:prize:<rank or index>`, retried with that key until answered 2xx, never sent twice for one prize.',
  });
export const creditRequest = z
  .union([roundCreditRequest, promoCreditRequest])
  .meta({ id: 'CreditRequest', description: "A round's credit, or a promotion's prize (`promo: true`)." });
export const rollbackRequest = z
  .object({
    operatorId,
    playerRef,
    gameType,
    roundId,
    debitIdempotencyKey: z.string().min(1).max(128).meta({ description: 'X-Idempotency-Key of the debit to undo' }),
    amount: amountText("The debit's amount."),
    currency,
    reason: z.string().meta({ description: 'why the debit is undone (free text, may be unicode)' }),
  })
  .meta({
    id: 'RollbackRequest',
    description:
      'Undoes a debit. A debit never received must still be answered 200 (nothing to undo), and that debit must then be refused if it arrives late. A second rollback of one debit refunds nothing more.',
  });

// ---------------------------------------------------------------- answers

export const validateSessionAnswer = z
  .union([
    z.looseObject({
      valid: z.literal(true),
      playerRef,
      displayName: z.string(),
      currency: z.string().meta({ description: "must be the profile's currency, else the service refuses the session (CURRENCY_MISMATCH)" }),
    }),
    z.looseObject({ valid: z.literal(false) }),
  ])
  .meta({ id: 'ValidateSessionAnswer', description: '`{"valid": false}` (or 400 INVALID_SESSION) for a token the casino does not know.' });
export const balanceAnswer = z.looseObject({ balance, currency: z.string().meta({ description: 'the requested currency' }) }).meta({ id: 'BalanceAnswer' });
export const moneyAnswer = z
  .looseObject({ casinoTransactionId, balance, currency: z.string().meta({ description: 'the requested currency' }) })
  .meta({ id: 'TransactionAnswer' });

// ---------------------------------------------------------------- refusals

export const BUSINESS_REFUSAL_CODES = [
  'VALIDATION_ERROR',
  'INVALID_SESSION',
  'INSUFFICIENT_FUNDS',
  'CURRENCY_MISMATCH',
  'IDEMPOTENCY_REQUIRED',
  'DEBIT_ROLLED_BACK',
] as const;
export const SIGNATURE_CODES = ['SIGNATURE_REQUIRED', 'SIGNATURE_INVALID', 'SIGNATURE_STALE', 'SIGNATURE_REPLAYED'] as const;

export const walletError = z
  .looseObject({
    code: z
      .string()
      .min(1)
      .meta({
        description: "a code of CONTRACT.md §2/§11, or the casino's own (passed on as casinoCode)",
        examples: [...BUSINESS_REFUSAL_CODES, ...SIGNATURE_CODES, 'IDEMPOTENCY_CONFLICT'],
      }),
    message: z.string().optional(),
  })
  .meta({ id: 'WalletError' });

// ---------------------------------------------------------------- headers

export const signedHeaders = z.object({
  'X-Operator-Id': z.string().min(1).max(64).meta({ description: 'the operator profile whose secret signed the request' }),
  'X-Timestamp': z
    .string()
    .regex(/^\d{1,15}$/)
    .meta({ description: 'Unix time in whole seconds, decimal' }),
  'X-Nonce': z
    .string()
    .regex(/^[A-Za-z0-9_-]{16,128}$/)
    .meta({ description: 'new for every attempt' }),
  'X-Signature': z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .meta({ description: 'lowercase hex HMAC-SHA256 (see the recipe)' }),
});
export const idempotencyHeader = z.object({
  'X-Idempotency-Key': z
    .string()
    .regex(/^[\x20-\x7e]{1,128}$/)
    .meta({ description: 'debit, credit and rollback: the same for every retry of the callback' }),
});
export const traceHeader = z.object({
  traceparent: z.string().optional().meta({ description: 'W3C trace context, when tracing is on' }),
});

export interface WalletOperation {
  path: WalletInterfacePath;
  summary: string;
  description: string;
  request: z.ZodType;
  answer: z.ZodType;
}

export const WALLET_OPERATIONS: readonly WalletOperation[] = [
  {
    path: '/wallet/validate-session',
    summary: 'Validate a launch token',
    description: 'Called each time a session is created with a launch token (the token is not consumed). The service then asks for the balance.',
    request: validateSessionRequest,
    answer: validateSessionAnswer,
  },
  {
    path: '/wallet/balance',
    summary: "The player's balance",
    description: 'The playable balance in the session currency; the answer currency must be the requested one.',
    request: balanceRequest,
    answer: balanceAnswer,
  },
  {
    path: '/wallet/debit',
    summary: 'Take a stake',
    description:
      'At round start (and Blackjack insurance, double, split). A 4xx other than 409 is a refusal: nothing was debited, no rollback follows. No answer, 429 or 5xx (after one retry with the same key) or 409 make the debit ambiguous: the service rolls it back.',
    request: debitRequest,
    answer: moneyAnswer,
  },
  {
    path: '/wallet/credit',
    summary: 'Pay a round out',
    description:
      "Once per closed round with the total payout (0 for a loss). The round stays credit_pending and the same request is retried (cron, next session) until it is answered 2xx; credits are never rolled back. A free bet (docs/free-bets.md) has no debit: its one credit carries `freeBet: true` and `campaignId`; accept it without a matching debit, pay it as the campaign says, and keep it apart from paid rounds in your books. A promotion's prize (docs/promotions.md) is a credit with `promo: true`, `promoId`, `promoType` and `prize`, and no round, launch token or game: accept it without a debit, and ledger it as a promo payout.",
    request: creditRequest,
    answer: moneyAnswer,
  },
  {
    path: '/wallet/rollback',
    summary: 'Undo a debit',
    description: 'After an ambiguous debit or a failure after a debit. Retried with the same key until answered 2xx (round rollback_pending → cancelled).',
    request: rollbackRequest,
    answer: moneyAnswer,
  },
];

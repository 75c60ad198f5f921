/**
 * The money path (this folder) is the only code that sends a money callback or writes a money
 * state (SPEC.md "States and transitions", CONTRACT.md §4 and §11). Every callback is recorded
 * before it is attempted, so a crash at any line leaves a row that says what to do next, and the
 * retry job (wallet-retry-job.ts) finishes it:
 *
 *   debit_requested ──debit confirmed──▶ (settle) ──▶ credit_pending ──credit confirmed──▶ settled | cashed_out | busted
 *        │          └──▶ active (Mines, Blackjack) ──┘        ▲
 *        │                                  └─settlement fails─┐
 *        ├──debit refused (4xx, 1st try)──▶ error              ▼
 *        └──debit ambiguous (timeout, network, 5xx, 409)──▶ rollback_pending ──rollback confirmed──▶ cancelled
 *
 * One file a flow: opening.ts (a round opened, paid or free), settled-bet.ts (debit → settle →
 * credit), active-round.ts (Mines and Blackjack: playable, closed), extra-debits.ts (Blackjack's
 * insurance, double, split), pending-retries.ts (credits and rollbacks repeated, rounds rolled
 * back), promo-credits.ts (a promotion's prizes: credits with no round and no debit, issue 30). This file holds what they share: the idempotency keys (CONTRACT.md §11), one builder per
 * callback body (debit, credit, rollback) for every game, and recording and sending a callback —
 * the one `wallet.call` of the money path. Credits are never rolled back; credits and rollbacks
 * are retried with their original idempotency keys (and the identical body bytes) until the
 * casino confirms them.
 */
import { amountJson } from '@gp/game-core/money';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { parseJson } from '../../infra/json.js';
import type { Metrics } from '../../infra/metrics.js';
import type { SecretBox } from '../../infra/secret-box.js';
import type { OperatorWithSecret } from '../../operators/operator-schema.js';
import type { OperatorStore } from '../../operators/operator-store.js';
import { readCasinoBalance } from '../../sessions/sessions.js';
import { type Db, type Queryable, storableText } from '../../store/db.js';
import { isKeyViolation, KeyTaken } from '../idempotency.js';
import type { WalletClient, WalletOutcome, WalletPath } from '../../wallet/wallet-client.js';
import { insertCallback, recordCallbackResult } from '../round-store/callback-writes.js';
import type { BalanceReport, Callback, CallbackResult, CallbackStatus, NewCallback, Round } from '../round-store/rows.js';
import { bodyAtRest, exactBody } from './callback-bytes.js';

export interface MoneyDeps {
  db: Db;
  box: SecretBox;
  operators: OperatorStore;
  wallet: WalletClient;
  config: Config;
  /** Metrics hook: a round reached a status. */
  onStatus?: (round: Round) => void;
  /** Replays and lock waits (infra/metrics.ts); absent in tests that build the parts by hand. */
  metrics?: Pick<Metrics, 'idempotentReplay' | 'lockWait'>;
}

/* ------------------------------------------------------------- idempotency keys (CONTRACT.md §11) */
export type ExtraDebitKind = 'insurance' | 'split' | 'double';
export const debitKey = (roundId: string) => `${roundId}:debit`;
export const creditKey = (roundId: string) => `${roundId}:credit`;
export const extraDebitKey = (roundId: string, kind: ExtraDebitKind, hand?: number) =>
  kind === 'double' ? `${roundId}:double:${hand ?? 0}` : `${roundId}:${kind}`;
export const rollbackKey = (debitIdempotencyKey: string) => `${debitIdempotencyKey}:rollback`;

/** How long a worker may hold a round before the retry job may take it over. */
export function leaseMs(config: Config): number {
  return 8 * config.callbackTimeoutMs + 10_000;
}
export const leaseUntil = (config: Config) => new Date(Date.now() + leaseMs(config));

/** The round was no longer where the caller expected it: another request or the retry job got there first. */
export class RoundBusyError extends Error {}

/* --------------------------------------------------------------- the callback bodies (SPEC.md) */

type RoundRef = Pick<Round, 'roundId' | 'operatorId' | 'playerRef' | 'gameType' | 'currency'>;

/** /wallet/debit: the opening stake, or a Blackjack extra debit (same fields). */
export function debitBody(round: RoundRef, amount: bigint, launchToken: string) {
  return {
    operatorId: round.operatorId,
    playerRef: round.playerRef,
    launchToken,
    gameType: round.gameType,
    roundId: round.roundId,
    amount: amountJson(amount, round.currency),
    currency: round.currency,
  };
}

/**
 * /wallet/credit: the round's one credit, its total payout (0 for a loss). A free bet's credit
 * also carries `freeBet: true` and its `campaignId` (issue 17; no debit was sent for it).
 */
export function creditBody(round: RoundRef & Pick<Round, 'freeBetCampaignId'>, amount: bigint, launchToken: string) {
  const body = debitBody(round, amount, launchToken);
  return round.freeBetCampaignId ? { ...body, freeBet: true, campaignId: round.freeBetCampaignId } : body;
}

/** /wallet/rollback of the debit recorded under `debitIdempotencyKey`. */
export function rollbackBody(round: RoundRef, debitIdempotencyKey: string, amount: bigint, reason: string) {
  return {
    operatorId: round.operatorId,
    playerRef: round.playerRef,
    gameType: round.gameType,
    roundId: round.roundId,
    debitIdempotencyKey,
    amount: amountJson(amount, round.currency),
    currency: round.currency,
    reason,
  };
}

/* -------------------------------------------------------------- recording and sending callbacks */

interface CallbackRecord {
  operation: 'debit' | 'credit' | 'rollback';
  /** bet, win, or the extra debit's kind */
  purpose: string;
  key: string;
  debitKey?: string;
  amount: bigint;
  body: Record<string, unknown>;
}

/** A callback as it is recorded: a masked copy of its body for the audit, and what gives a retry the exact bytes again (callback-bytes.ts). */
export function newCallback(deps: MoneyDeps, operator: OperatorWithSecret, round: RoundRef, c: CallbackRecord): NewCallback {
  const path: WalletPath = `/wallet/${c.operation}`;
  return {
    roundId: round.roundId,
    operatorId: round.operatorId,
    playerRef: round.playerRef,
    operation: c.operation,
    purpose: c.purpose,
    idempotencyKey: c.key,
    debitIdempotencyKey: c.debitKey ?? null,
    amount: c.amount,
    currency: round.currency,
    path,
    url: `${operator.callbackBaseUrl}${path}`,
    ...bodyAtRest(deps.box, c.body),
  };
}

/** Records a callback before it is sent. An existing key answers the existing row. */
export async function recordCallback(db: Queryable, deps: MoneyDeps, operator: OperatorWithSecret, round: Round, c: CallbackRecord): Promise<Callback> {
  return insertCallback(db, newCallback(deps, operator, round, c));
}

/** One attempt at a recorded callback (with its one retry): what came back, as it will be stored. */
export interface Attempt {
  outcome: WalletOutcome;
  status: CallbackStatus;
  result: CallbackResult;
  balance: BalanceReport | null;
}

/**
 * Sends a recorded callback (again) with its original key and body bytes, and classifies what
 * came back (as text it can be stored: a hostile answer cannot fail the money path). Debits are
 * not retried after the call: without a positive answer they are rolled back.
 */
export async function attempt(
  deps: MoneyDeps,
  operator: OperatorWithSecret,
  cb: Pick<Callback, 'path' | 'requestBody' | 'requestBodyEnc' | 'idempotencyKey' | 'operation' | 'operatorId' | 'playerRef' | 'currency'>,
): Promise<Attempt> {
  const outcome = await deps.wallet.call(operator, cb.path as WalletPath, exactBody(deps.box, cb), cb.idempotencyKey);
  const status: CallbackStatus = outcome.kind === 'confirmed' ? 'succeeded' : cb.operation === 'debit' ? 'failed' : 'pending';
  const balance = balanceFrom(outcome, cb);
  const txId = outcome.response?.casinoTransactionId;
  return {
    outcome,
    status,
    balance: balance === null ? null : { operatorId: cb.operatorId, playerRef: cb.playerRef, currency: cb.currency, balance },
    result: {
      status,
      attempts: outcome.attempts,
      statusCode: outcome.statusCode,
      responseBody: outcome.responseText === null ? null : storableText(outcome.responseText),
      errorCode: outcome.errorCode,
      errorMessage: outcome.errorMessage === null ? null : storableText(outcome.errorMessage, 500),
      casinoTransactionId: typeof txId === 'string' || typeof txId === 'number' ? storableText(String(txId), 200) : null,
    },
  };
}

/** The callback as stored once an attempt's result is (the in-memory copy of what the statement wrote). */
export const afterAttempt = (cb: Callback, a: Attempt): Callback =>
  cb.callbackStatus !== 'pending' ? cb : { ...cb, ...a.result, callbackStatus: a.status, attemptCount: cb.attemptCount + a.result.attempts };

/** Sends a recorded callback and stores its result (and the player's balance) in one statement. */
export async function sendCallback(
  deps: MoneyDeps,
  operator: OperatorWithSecret,
  cb: Callback,
): Promise<{ outcome: WalletOutcome; status: CallbackStatus; balance: bigint | null; callback: Callback }> {
  const a = await attempt(deps, operator, cb);
  await recordCallbackResult(deps.db, cb, a.result, a.balance);
  return { outcome: a.outcome, status: a.status, balance: a.balance?.balance ?? null, callback: afterAttempt(cb, a) };
}

/** The latest casino balance from a confirmed answer (null when it cannot be read). */
function balanceFrom(outcome: WalletOutcome, round: Pick<Round, 'currency'>): bigint | null {
  try {
    return outcome.kind === 'confirmed' ? readCasinoBalance(outcome.response, round.currency) : null;
  } catch {
    return null;
  }
}

/**
 * The balance a settled bet's request answered with, read back from its callbacks as stored: the
 * credit's confirmed answer, else the bet's debit's (settled-bet.ts: the credit's balance, else the
 * debit's). Read the way `balanceFrom` read the live answer: the stored text is the answer's text
 * (`storableText` only replaces control characters JSON cannot hold, and cuts beyond 100,000
 * characters: a settled bet whose answer this does not rebuild stores its answer instead).
 */
export function answeredBalance(callbacks: readonly Callback[], currency: Round['currency']): bigint | null {
  const read = (c: Callback | undefined): bigint | null => {
    if (!c || c.callbackStatus !== 'succeeded' || c.responseBody === null) return null;
    try {
      const v = parseJson(c.responseBody);
      return v && typeof v === 'object' && !Array.isArray(v) ? readCasinoBalance(v as Record<string, unknown>, currency) : null;
    } catch {
      return null;
    }
  };
  return read(callbacks.find((c) => c.operation === 'credit')) ?? read(callbacks.find((c) => c.operation === 'debit' && c.purpose === 'bet'));
}

/** A statement that claims a request's key failed on that key: another request holds it (the caller replays). */
export function keyTakenOr(err: unknown): unknown {
  return isKeyViolation(err) ? new KeyTaken() : err;
}

export async function operatorFor(deps: MoneyDeps, operatorId: string): Promise<OperatorWithSecret> {
  const operator = await deps.operators.getWithSecret(deps.db, operatorId);
  if (!operator) throw new AppError('INVALID_SESSION', 'unknown operator');
  return operator;
}

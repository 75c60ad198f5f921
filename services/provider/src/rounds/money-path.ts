/**
 * The money path: the only code that moves money (SPEC.md "States and transitions",
 * CONTRACT.md §4 and §11). Every callback is recorded before it is attempted, so a crash at any
 * line leaves a row that says what to do next, and the retry job (retries.ts) finishes it:
 *
 *   debit_requested ──debit confirmed──▶ (settle) ──▶ credit_pending ──credit confirmed──▶ settled | cashed_out | busted
 *        │                                  └─settlement fails─┐
 *        ├──debit refused (4xx, 1st try)──▶ error              ▼
 *        └──debit ambiguous (timeout, network, 5xx, 409)──▶ rollback_pending ──rollback confirmed──▶ cancelled
 *
 * Mines and Blackjack rounds sit in `active` between their debit and their close. Credits are
 * never rolled back; credits and rollbacks are retried with their original idempotency keys
 * (and the identical body bytes) until the casino confirms them.
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.js';
import { amountJson } from '@gp/game-core/money';
import type { GameType } from '@gp/game-core/games';
import { AppError, type ErrorCode } from '../errors.js';
import { stringifyJson } from '../infra/json.js';
import type { SecretBox } from '../infra/secret-box.js';
import type { OperatorWithSecret } from '../operators/operator-schema.js';
import type { OperatorStore } from '../operators/operator-store.js';
import { readCasinoBalance, type SessionWithToken } from '../sessions/sessions.js';
import { storableText, type Db, type Tx } from '../store/db.js';
import { reserveNonce } from '../store/seed-pairs.js';
import { rememberBalance } from '../sessions/player-balances.js';
import { isCleanRefusal, outcomeError, type WalletClient, type WalletOutcome, type WalletPath } from '../wallet/wallet-client.js';
import { getCallback, getRound, insertCallback, recordCallbackResult, roundFromRow, updateRound, type Callback, type CallbackStatus, type CloseStatus, type Round, type RoundStatus } from './round-store.js';

export interface MoneyDeps {
  db: Db;
  box: SecretBox;
  operators: OperatorStore;
  wallet: WalletClient;
  config: Config;
  /** Metrics hook: a round reached a status. */
  onStatus?: (round: Round) => void;
}

/* ------------------------------------------------------------- idempotency keys (CONTRACT.md §11) */
export const debitKey = (roundId: string) => `${roundId}:debit`;
export const creditKey = (roundId: string) => `${roundId}:credit`;
export const extraDebitKey = (roundId: string, kind: 'insurance' | 'split' | 'double', hand?: number) =>
  kind === 'double' ? `${roundId}:double:${hand ?? 0}` : `${roundId}:${kind}`;
export const rollbackKey = (debitIdempotencyKey: string) => `${debitIdempotencyKey}:rollback`;

/** How long a worker may hold a round before the retry job may take it over. */
export function leaseMs(config: Config): number {
  return 8 * config.callbackTimeoutMs + 10_000;
}
const leaseUntil = (config: Config) => new Date(Date.now() + leaseMs(config));

export class RoundBusyError extends Error {}

const masked = (body: Record<string, unknown>) => stringifyJson('launchToken' in body ? { ...body, launchToken: '[redacted]' } : body);


/** Records a callback (its exact body sealed, a masked copy for the audit) before it is sent. */
export async function recordCallback(
  db: Db | Tx,
  deps: MoneyDeps,
  operator: OperatorWithSecret,
  round: Round,
  c: { operation: 'debit' | 'credit' | 'rollback'; purpose: string; key: string; debitKey?: string; amount: bigint; body: Record<string, unknown> },
): Promise<Callback> {
  const path: WalletPath = `/wallet/${c.operation}`;
  const exact = stringifyJson(c.body);
  return insertCallback(db, {
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
    requestBody: masked(c.body),
    requestBodyEnc: deps.box.seal(exact),
  });
}

/**
 * Sends a recorded callback (again) with its original key and body, and stores what came back.
 * Debits are not retried after the call: without a positive answer they are rolled back.
 */
export async function sendCallback(deps: MoneyDeps, operator: OperatorWithSecret, cb: Callback): Promise<{ outcome: WalletOutcome; status: CallbackStatus }> {
  const outcome = await deps.wallet.call(operator, cb.path as WalletPath, deps.box.open(cb.requestBodyEnc), cb.idempotencyKey);
  const status: CallbackStatus = outcome.kind === 'confirmed' ? 'succeeded' : cb.operation === 'debit' ? 'failed' : 'pending';
  const balance = balanceFrom(outcome, cb);
  if (balance !== null) await rememberBalance(deps.db, { operatorId: cb.operatorId, playerRef: cb.playerRef, currency: cb.currency, balance });
  const txId = outcome.response?.casinoTransactionId;
  // What the casino sent is stored as text it can be (a hostile or broken answer cannot fail the money path).
  await recordCallbackResult(deps.db, cb.id, {
    status,
    attempts: outcome.attempts,
    statusCode: outcome.statusCode,
    responseBody: outcome.responseText === null ? null : storableText(outcome.responseText),
    errorCode: outcome.errorCode,
    errorMessage: outcome.errorMessage === null ? null : storableText(outcome.errorMessage, 500),
    casinoTransactionId: typeof txId === 'string' || typeof txId === 'number' ? storableText(String(txId), 200) : null,
  });
  return { outcome, status };
}

/** The latest casino balance from a confirmed answer (null when it cannot be read). */
export function balanceFrom(outcome: WalletOutcome, round: Pick<Round, 'currency'>): bigint | null {
  try {
    return outcome.kind === 'confirmed' ? readCasinoBalance(outcome.response, round.currency) : null;
  } catch {
    return null;
  }
}

/* ------------------------------------------------------------------------ opening a round */

export interface OpenRoundInput {
  session: SessionWithToken;
  operator: OperatorWithSecret;
  gameType: GameType;
  amount: bigint;
  params: Record<string, unknown>;
  clientSeed: string | undefined;
  state?: unknown;
}

export interface OpenedRound {
  round: Round;
  debit: Callback;
  serverSeed: string;
}

/**
 * Inside the caller's transaction (which also claims the request's idempotency key): takes the
 * nonce, inserts the round as `debit_requested` and records its debit.
 */
export async function insertRoundWithDebit(tx: Tx, deps: MoneyDeps, input: OpenRoundInput): Promise<OpenedRound> {
  const { session, operator } = input;
  const roundId = randomUUID();
  const pair = await reserveNonce(tx, session.operatorId, session.playerRef, input.clientSeed);
  const [row] = await tx('rounds')
    .insert({
      round_id: roundId,
      operator_id: session.operatorId,
      player_ref: session.playerRef,
      session_id: session.sessionId,
      game_type: input.gameType,
      currency: session.currency,
      amount: input.amount.toString(),
      total_staked: input.amount.toString(),
      params: JSON.stringify(input.params),
      seed_pair_id: pair.id,
      nonce: pair.nonce.toString(),
      client_seed: pair.clientSeed,
      status: 'debit_requested',
      state: input.state === undefined ? null : JSON.stringify(input.state),
      lease_until: leaseUntil(deps.config),
    })
    .returning('*');
  const round = roundFromRow(row);
  const debit = await recordCallback(tx, deps, operator, round, {
    operation: 'debit',
    purpose: 'bet',
    key: debitKey(roundId),
    amount: input.amount,
    body: {
      operatorId: round.operatorId,
      playerRef: round.playerRef,
      launchToken: session.launchToken,
      gameType: round.gameType,
      roundId,
      amount: amountJson(input.amount, round.currency),
      currency: round.currency,
    },
  });
  return { round, debit, serverSeed: pair.serverSeed };
}

/**
 * Sends the opening debit. Confirmed: answers the casino balance (the round stays
 * `debit_requested` for the caller to move on). Refused at the first attempt: the round ends
 * `error` and the refusal is thrown. Ambiguous, or refused only at the retry (the unanswered
 * first attempt may still land): the debit is rolled back and the error thrown with the round's status.
 */
export async function debitOpenedRound(deps: MoneyDeps, operator: OperatorWithSecret, opened: OpenedRound): Promise<bigint | null> {
  const { round, debit } = opened;
  const { outcome } = await sendCallback(deps, operator, debit);
  if (outcome.kind === 'confirmed') return balanceFrom(outcome, round);
  const error = outcomeError(outcome);
  if (isCleanRefusal(outcome)) {
    const ended = await updateRound(deps.db, round.roundId, 'debit_requested', {
      status: 'error',
      errorCode: error.code,
      errorMessage: error.message,
      leaseUntil: null,
      settled: true,
    });
    if (ended) deps.onStatus?.(ended);
    throw error.withRound(round.roundId, 'error');
  }
  const status = await rollbackRound(deps, operator, round, ['debit_requested'], 'debit not confirmed', error);
  throw error.withRound(round.roundId, status);
}

/* --------------------------------------------------------------------------------- rollback */

/**
 * Moves the round to `rollback_pending`, records the rollback of its debit and sends it.
 * Answers the status the round is left in: `cancelled`, or `rollback_pending` to be retried.
 */
export async function rollbackRound(
  deps: MoneyDeps,
  operator: OperatorWithSecret,
  round: Round,
  from: RoundStatus[],
  reason: string,
  error: { code: ErrorCode | string; message: string },
): Promise<RoundStatus> {
  await deps.db.transaction(async (tx) => {
    const moved = await updateRound(tx, round.roundId, from, { status: 'rollback_pending', errorCode: error.code, errorMessage: error.message });
    if (!moved) throw new RoundBusyError(`round ${round.roundId} is no longer in ${from.join('/')}`);
    const dk = debitKey(round.roundId);
    await recordCallback(tx, deps, operator, round, {
      operation: 'rollback',
      purpose: 'bet',
      key: rollbackKey(dk),
      debitKey: dk,
      amount: round.amount,
      body: {
        operatorId: round.operatorId,
        playerRef: round.playerRef,
        gameType: round.gameType,
        roundId: round.roundId,
        debitIdempotencyKey: dk,
        amount: amountJson(round.amount, round.currency),
        currency: round.currency,
        reason,
      },
    });
  });
  return sendPendingRollback(deps, operator, round.roundId);
}

/** (Re)sends the round's recorded rollback; confirmed → `cancelled`. */
export async function sendPendingRollback(deps: MoneyDeps, operator: OperatorWithSecret, roundId: string): Promise<RoundStatus> {
  const cb = await getCallback(deps.db, rollbackKey(debitKey(roundId)));
  if (!cb) throw new Error(`round ${roundId} has no rollback recorded`);
  const status = cb.callbackStatus === 'succeeded' ? 'succeeded' : (await sendCallback(deps, operator, cb)).status;
  if (status !== 'succeeded') {
    await updateRound(deps.db, roundId, 'rollback_pending', { leaseUntil: null });
    return 'rollback_pending';
  }
  const done = await updateRound(deps.db, roundId, 'rollback_pending', { status: 'cancelled', leaseUntil: null, settled: true });
  if (done) deps.onStatus?.(done);
  return (done ?? (await getRound(deps.db, roundId)))?.status ?? 'cancelled';
}

/* ----------------------------------------------------------------------------------- credit */

export interface CloseInput {
  from: RoundStatus[];
  /** Optimistic concurrency for active rounds: the version the caller read. */
  version?: number;
  result: unknown;
  state?: unknown;
  multiplier4: bigint;
  payout: bigint;
  closeStatus: CloseStatus;
  totalStaked?: bigint;
  launchToken: string;
  /** More writes in the same transaction (an action's idempotency key). */
  inTx?: (tx: Tx) => Promise<void>;
}

/**
 * Fixes the round's result and records its one credit (amount 0 for a loss) in one
 * transaction, then sends the credit. Answers the round: final when the casino confirmed,
 * `credit_pending` otherwise (never rolled back; the retry job repeats the same credit).
 * Throws RoundBusyError when the round was no longer in `from` (another request got there first).
 */
export async function closeRound(deps: MoneyDeps, operator: OperatorWithSecret, round: Round, close: CloseInput): Promise<{ round: Round; balance: bigint | null }> {
  await deps.db.transaction(async (tx) => {
    const moved = await updateRound(
      tx,
      round.roundId,
      close.from,
      {
        status: 'credit_pending',
        result: close.result,
        state: close.state,
        multiplier4: close.multiplier4,
        payout: close.payout,
        closeStatus: close.closeStatus,
        totalStaked: close.totalStaked,
        bumpVersion: true,
        leaseUntil: leaseUntil(deps.config),
      },
      close.version,
    );
    if (!moved) throw new RoundBusyError(`round ${round.roundId} changed while it was being closed`);
    await close.inTx?.(tx);
    await recordCallback(tx, deps, operator, round, {
      operation: 'credit',
      purpose: 'win',
      key: creditKey(round.roundId),
      amount: close.payout,
      body: {
        operatorId: round.operatorId,
        playerRef: round.playerRef,
        launchToken: close.launchToken,
        gameType: round.gameType,
        roundId: round.roundId,
        amount: amountJson(close.payout, round.currency),
        currency: round.currency,
      },
    });
  });
  return sendPendingCredit(deps, operator, round.roundId);
}

/** (Re)sends the round's recorded credit; confirmed → the round's close status. */
export async function sendPendingCredit(deps: MoneyDeps, operator: OperatorWithSecret, roundId: string): Promise<{ round: Round; balance: bigint | null }> {
  const cb = await getCallback(deps.db, creditKey(roundId));
  if (!cb) throw new Error(`round ${roundId} has no credit recorded`);
  let balance: bigint | null = null;
  let status: CallbackStatus = cb.callbackStatus;
  if (status !== 'succeeded') {
    const sent = await sendCallback(deps, operator, cb);
    status = sent.status;
    balance = balanceFrom(sent.outcome, cb);
  }
  const current = await getRound(deps.db, roundId);
  if (!current) throw new Error(`round ${roundId} vanished`);
  if (status === 'succeeded' && current.status === 'credit_pending') {
    const done = await updateRound(deps.db, roundId, 'credit_pending', { status: current.closeStatus ?? 'settled', leaseUntil: null, settled: true });
    if (done) {
      deps.onStatus?.(done);
      return { round: done, balance };
    }
  } else if (current.status === 'credit_pending') {
    const left = await updateRound(deps.db, roundId, 'credit_pending', { leaseUntil: null });
    if (left) deps.onStatus?.(left);
  }
  return { round: (await getRound(deps.db, roundId)) ?? current, balance };
}

/** Ends the lease of a round a request was working on (it stays where it is). */
export async function releaseRound(deps: MoneyDeps, round: Round): Promise<void> {
  await updateRound(deps.db, round.roundId, round.status, { leaseUntil: null });
}

export async function operatorFor(deps: MoneyDeps, operatorId: string): Promise<OperatorWithSecret> {
  const operator = await deps.operators.getWithSecret(deps.db, operatorId);
  if (!operator) throw new AppError('INVALID_SESSION', 'unknown operator');
  return operator;
}

/**
 * The money path: the only code that sends a money callback or writes a money state (SPEC.md
 * "States and transitions", CONTRACT.md §4 and §11). Every callback is recorded before it is
 * attempted, so a crash at any line leaves a row that says what to do next, and the retry job
 * (wallet-retry-job.ts) finishes it:
 *
 *   debit_requested ──debit confirmed──▶ (settle) ──▶ credit_pending ──credit confirmed──▶ settled | cashed_out | busted
 *        │          └──▶ active (Mines, Blackjack) ──┘        ▲
 *        │                                  └─settlement fails─┐
 *        ├──debit refused (4xx, 1st try)──▶ error              ▼
 *        └──debit ambiguous (timeout, network, 5xx, 409)──▶ rollback_pending ──rollback confirmed──▶ cancelled
 *
 * An active Blackjack round may take extra debits (insurance, double, split): each is recorded
 * with the round leased, then sent; confirmed, the action applies; refused, or ambiguous and
 * rolled back with its own key, the action is refused and withdrawn. Credits are never rolled
 * back; credits and rollbacks are retried with their original idempotency keys (and the
 * identical body bytes) until the casino confirms them.
 *
 * One builder per callback body (debit, credit, rollback) serves every game.
 */
import { randomUUID } from 'node:crypto';
import { amountJson } from '@gp/game-core/money';
import type { GameType } from '@gp/game-core/games';
import type { Config } from '../config.js';
import { AppError, asAppError, type ErrorCode } from '../errors.js';
import { stringifyJson } from '../infra/json.js';
import type { Metrics } from '../infra/metrics.js';
import { annotateRound } from '../infra/tracing.js';
import type { SecretBox } from '../infra/secret-box.js';
import type { OperatorWithSecret } from '../operators/operator-schema.js';
import type { OperatorStore } from '../operators/operator-store.js';
import { readCasinoBalance, type SessionWithToken } from '../sessions/sessions.js';
import { isUniqueViolation, storableText, type Db, type Queryable, type Tx } from '../store/db.js';
import { currentSeedPair } from '../store/seed-pairs.js';
import { KeyTaken, type IdempotencyScope } from './idempotency.js';
import { useFreeBet } from './free-bet-store.js';
import { isCleanRefusal, outcomeError, type WalletClient, type WalletOutcome, type WalletPath } from '../wallet/wallet-client.js';
import {
  closeRoundWithCredit,
  getCallback,
  getRound,
  insertCallback,
  openRoundWithDebit,
  openFreeBetRound as insertFreeBetRound,
  storeCreditAndFinish,
  storeDebitAndClose,
  storeDebitAndActivate,
  leaseActiveRound,
  markCallbackUnanswered,
  recordCallbackResult,
  updateRound,
  type BalanceReport,
  type Callback,
  type CallbackResult,
  type NewCallback,
  type CallbackStatus,
  type Round,
} from './round-store.js';
import type { CloseStatus, RoundStatus } from './round-status.js';

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
export const extraDebitKey = (roundId: string, kind: ExtraDebitKind, hand?: number) => (kind === 'double' ? `${roundId}:double:${hand ?? 0}` : `${roundId}:${kind}`);
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

const masked = (body: Record<string, unknown>) => stringifyJson('launchToken' in body ? { ...body, launchToken: '[redacted]' } : body);

interface CallbackRecord {
  operation: 'debit' | 'credit' | 'rollback';
  /** bet, win, or the extra debit's kind */
  purpose: string;
  key: string;
  debitKey?: string;
  amount: bigint;
  body: Record<string, unknown>;
}

/** A callback as it is recorded: its exact body sealed (a retry sends these bytes again), a masked copy for the audit. */
function newCallback(deps: MoneyDeps, operator: OperatorWithSecret, round: RoundRef, c: CallbackRecord): NewCallback {
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
    requestBody: masked(c.body),
    requestBodyEnc: deps.box.seal(stringifyJson(c.body)),
  };
}

/** Records a callback before it is sent. An existing key answers the existing row. */
async function recordCallback(db: Queryable, deps: MoneyDeps, operator: OperatorWithSecret, round: Round, c: CallbackRecord): Promise<Callback> {
  return insertCallback(db, newCallback(deps, operator, round, c));
}

/** One attempt at a recorded callback (with its one retry): what came back, as it will be stored. */
interface Attempt {
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
async function attempt(deps: MoneyDeps, operator: OperatorWithSecret, cb: Callback): Promise<Attempt> {
  const outcome = await deps.wallet.call(operator, cb.path as WalletPath, deps.box.open(cb.requestBodyEnc), cb.idempotencyKey);
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
const afterAttempt = (cb: Callback, a: Attempt): Callback =>
  cb.callbackStatus !== 'pending'
    ? cb
    : { ...cb, ...a.result, callbackStatus: a.status, attemptCount: cb.attemptCount + a.result.attempts };

/** Sends a recorded callback and stores its result (and the player's balance) in one statement. */
async function sendCallback(deps: MoneyDeps, operator: OperatorWithSecret, cb: Callback): Promise<{ outcome: WalletOutcome; status: CallbackStatus; balance: bigint | null; callback: Callback }> {
  const a = await attempt(deps, operator, cb);
  await recordCallbackResult(deps.db, cb.id, a.result, a.balance);
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

/* ------------------------------------------------------------------------ opening a round */

export interface OpenRoundInput {
  session: SessionWithToken;
  operator: OperatorWithSecret;
  gameType: GameType;
  amount: bigint;
  params: Record<string, unknown>;
  clientSeed: string | undefined;
}

export interface OpenedRound {
  round: Round;
  debit: Callback;
  serverSeed: string;
  serverSeedHash: string;
}

/**
 * Opens a round in one statement (round-store.ts `openRoundWithDebit`): the nonce of the
 * player's seed pair, the round as `debit_requested`, its debit recorded and the request's key
 * claimed. A Mines or Blackjack round deals its state from the committed seed at that nonce first
 * (`deal`), and the statement applies only if the nonce is still the next one (else it deals again).
 */
export async function openRound(
  deps: MoneyDeps,
  input: OpenRoundInput,
  opts: { claim: IdempotencyScope | null; deal?: (pair: { serverSeed: string; clientSeed: string; nonce: bigint }) => unknown },
): Promise<OpenedRound> {
  const { session, operator } = input;
  const roundId = randomUUID();
  annotateRound(roundId);
  const ref = { roundId, operatorId: session.operatorId, playerRef: session.playerRef, gameType: input.gameType, currency: session.currency };
  const debit = newCallback(deps, operator, ref, {
    operation: 'debit',
    purpose: 'bet',
    key: debitKey(roundId),
    amount: input.amount,
    body: debitBody(ref, input.amount, session.launchToken),
  });
  for (let attempt = 0; attempt < 5; attempt++) {
    let dealt: { state: unknown; expect: { seedPairId: string; nonce: bigint } } | undefined;
    if (opts.deal) {
      const pair = await currentSeedPair(deps.db, session.operatorId, session.playerRef);
      const clientSeed = input.clientSeed ?? pair.clientSeed;
      dealt = { state: opts.deal({ serverSeed: pair.serverSeed, clientSeed, nonce: pair.nextNonce }), expect: { seedPairId: pair.id, nonce: pair.nextNonce } };
    }
    const opened = await openRoundWithDebit(deps.db, {
      round: { ...ref, sessionId: session.sessionId, amount: input.amount, params: input.params, leaseUntil: leaseUntil(deps.config), ...(dealt ? { state: dealt.state } : {}) },
      debit,
      clientSeed: input.clientSeed,
      claim: opts.claim,
      ...(dealt ? { expect: dealt.expect } : {}),
    });
    if (opened) {
      if (opts.claim) opts.claim.claimed = true;
      return { round: opened.round, debit: opened.debit, serverSeed: opened.serverSeed, serverSeedHash: opened.serverSeedHash };
    }
    // No current seed pair yet (a first bet), or the nonce moved on (another bet of the player): again.
    if (!opts.deal) await currentSeedPair(deps.db, session.operatorId, session.playerRef);
  }
  throw new Error(`round ${roundId} could not take a nonce`);
}

/**
 * Sends the opening debit. Confirmed: answers the casino balance (the round stays
 * `debit_requested` for the caller to move on). Refused at the first attempt: the round ends
 * `error` and the refusal is thrown. Ambiguous, or refused only at the retry (the unanswered
 * first attempt may still land): the debit is rolled back and the error thrown with the round's status.
 */
export async function debitOpenedRound(deps: MoneyDeps, operator: OperatorWithSecret, opened: OpenedRound): Promise<bigint | null> {
  const { outcome, balance } = await sendCallback(deps, operator, opened.debit);
  if (outcome.kind === 'confirmed') return balance;
  return debitNotConfirmed(deps, operator, opened.round, outcome);
}

/** A debit without a positive answer: refused at the first attempt → `error`; else rolled back. Throws the error with the round's status. */
async function debitNotConfirmed(deps: MoneyDeps, operator: OperatorWithSecret, round: Round, outcome: WalletOutcome): Promise<never> {
  const error = outcomeError(outcome);
  if (isCleanRefusal(outcome)) {
    const ended = await updateRound(deps.db, round.roundId, 'debit_requested', { status: 'error', errorCode: error.code, errorMessage: error.message, leaseUntil: null, settled: true });
    if (ended) deps.onStatus?.(ended);
    throw error.withRound(round.roundId, 'error');
  }
  const status = await rollbackRound(deps, operator, round, ['debit_requested'], 'debit not confirmed', error);
  throw error.withRound(round.roundId, status);
}

/* ------------------------------------------------ a settled bet's hot path: debit → settle → credit */

/** What settling a bet fixed: its result object, multiplier and payout. */
export interface Settlement {
  result: unknown;
  multiplier4: bigint;
  payout: bigint;
}

/**
 * The opening debit of a settled bet, then its settlement (SPEC.md endpoint rules 1–2). Confirmed:
 * `settle()` fixes the result, and one statement stores the debit's answer, fixes the result
 * (`credit_pending`) and records the one credit. Not confirmed: as `debitOpenedRound`. Settlement
 * failed after the debit (dice's window, CONTRACT.md §10): the debit is rolled back and the error
 * thrown with the round. Null when the retry job took the round over meanwhile.
 */
export async function debitAndSettle(
  deps: MoneyDeps,
  operator: OperatorWithSecret,
  opened: OpenedRound,
  launchToken: string,
  settle: () => Settlement,
): Promise<{ round: Round; debit: Callback; credit: Callback; balance: bigint | null } | null> {
  const { round, debit } = opened;
  const a = await attempt(deps, operator, debit);
  if (a.outcome.kind !== 'confirmed') {
    await recordCallbackResult(deps.db, debit.id, a.result, a.balance);
    return debitNotConfirmed(deps, operator, round, a.outcome);
  }
  let settled: Settlement;
  try {
    settled = settle();
  } catch (err) {
    await recordCallbackResult(deps.db, debit.id, a.result, a.balance);
    const error = asAppError(err) ?? new AppError('INTERNAL_ERROR', 'the bet could not be settled');
    const status = await rollbackRound(deps, operator, round, ['debit_requested'], `settlement failed: ${error.code}`, error);
    throw error.withRound(round.roundId, status);
  }
  const credit = newCallback(deps, operator, round, { operation: 'credit', purpose: 'win', key: creditKey(round.roundId), amount: settled.payout, body: creditBody(round, settled.payout, launchToken) });
  const closed = await storeDebitAndClose(deps.db, {
    debitId: debit.id,
    debitResult: a.result,
    balance: a.balance,
    roundId: round.roundId,
    change: { ...settled, closeStatus: 'settled', leaseUntil: leaseUntil(deps.config) },
    credit,
  });
  if (!closed) return null;
  return { round: closed.round, debit: afterAttempt(debit, a), credit: closed.credit, balance: a.balance?.balance ?? null };
}

/**
 * Sends the credit of a round this request just closed and, in one statement, stores the answer,
 * the round's final status (confirmed) or its `credit_pending` (not: never rolled back; the retry
 * job repeats the same credit), and the request's answer with its key. `answerOf` builds the
 * answer from the round as it will be. Null when the round moved on meanwhile: nothing but the
 * credit's answer was stored, and the caller answers from the round as it is.
 */
export async function creditAndFinish<A>(
  deps: MoneyDeps,
  operator: OperatorWithSecret,
  round: Round,
  credit: Callback,
  claim: IdempotencyScope,
  answerOf: (round: Round, credit: Callback, balance: bigint | null) => A,
): Promise<{ answer: A; round: Round } | null> {
  const a = await attempt(deps, operator, credit);
  const confirmed = a.status === 'succeeded';
  const now = new Date();
  const after: Round = {
    ...round,
    status: confirmed ? (round.closeStatus ?? 'settled') : 'credit_pending',
    settledAt: confirmed ? now.toISOString() : round.settledAt,
    leaseUntil: null,
  };
  const answer = answerOf(after, afterAttempt(credit, a), a.balance?.balance ?? null);
  const stored = await storeCreditAndFinish(deps.db, {
    creditId: credit.id,
    creditResult: a.result,
    balance: a.balance,
    roundId: round.roundId,
    confirmed,
    settledAt: now,
    leaseUntil: null,
    answer: { claim, body: stringifyJson(answer), roundStatus: after.status },
  });
  if (!stored) return null;
  deps.onStatus?.(stored);
  return { answer, round: stored };
}

/* ------------------------------------------- Mines and Blackjack: each step of a round in one statement */

const KEY_CONSTRAINT = 'idempotency_records_operator_id_session_id_idempotency_key_unique';

/** A statement that claims a request's key failed on that key: another request holds it (the caller replays). */
export function keyTakenOr(err: unknown): unknown {
  return isUniqueViolation(err, KEY_CONSTRAINT) ? new KeyTaken() : err;
}

const answerStatus = (answer: unknown, round: Round) => {
  const s = (answer as { roundStatus?: unknown } | null)?.roundStatus;
  return typeof s === 'string' ? s : round.status;
};

/**
 * The opening debit of a Mines or Blackjack round that becomes playable. Confirmed: one
 * statement stores the debit's answer and the player's balance, makes the round `active` and
 * stores the request's answer (`answerOf`, built from the round as it will be) with its key. Not
 * confirmed: as `debitOpenedRound` (thrown). Null when the retry job took the round over meanwhile.
 */
export async function debitAndActivate<A>(
  deps: MoneyDeps,
  operator: OperatorWithSecret,
  opened: OpenedRound,
  claim: IdempotencyScope,
  answerOf: (active: Round, debit: Callback, balance: bigint | null) => A | Promise<A>,
): Promise<{ answer: A; round: Round } | null> {
  const { round, debit } = opened;
  const a = await attempt(deps, operator, debit);
  if (a.outcome.kind !== 'confirmed') {
    await recordCallbackResult(deps.db, debit.id, a.result, a.balance);
    return debitNotConfirmed(deps, operator, round, a.outcome);
  }
  const after: Round = { ...round, status: 'active', leaseUntil: null };
  const answer = await answerOf(after, afterAttempt(debit, a), a.balance?.balance ?? null);
  const active = await storeDebitAndActivate(deps.db, {
    debitId: debit.id,
    debitResult: a.result,
    balance: a.balance,
    roundId: round.roundId,
    answer: { claim, body: stringifyJson(answer), roundStatus: answerStatus(answer, after) },
  });
  if (!active) return null;
  deps.onStatus?.(active);
  return { answer, round: active };
}

/**
 * A player's request that ends a round (a Mines cashout or bust, the last Blackjack action, a
 * deal that decides the round): one statement fixes the result (`close.from` → `credit_pending`,
 * at `close.version`), records the one credit and claims the request's key (unless it holds it
 * already); then the credit is sent and `creditAndFinish` stores its answer, the final status and
 * the request's answer. Throws RoundBusyError when the round was no longer in `from`, KeyTaken
 * when another request holds the key. `answer` is null when the round moved on after the credit
 * was recorded (the caller answers from the round as it is).
 */
export async function closeAndCredit<A>(
  deps: MoneyDeps,
  operator: OperatorWithSecret,
  round: Round,
  close: Omit<CloseInput, 'inTx'>,
  claim: IdempotencyScope,
  answerOf: (round: Round, credit: Callback, balance: bigint | null) => A,
): Promise<{ answer: A | null; round: Round }> {
  const credit = newCallback(deps, operator, round, {
    operation: 'credit',
    purpose: 'win',
    key: creditKey(round.roundId),
    amount: close.payout,
    body: creditBody(round, close.payout, close.launchToken),
  });
  let closed: Awaited<ReturnType<typeof closeRoundWithCredit>>;
  try {
    closed = await closeRoundWithCredit(deps.db, {
      roundId: round.roundId,
      from: close.from,
      ...(close.version !== undefined ? { version: close.version } : {}),
      change: {
        result: close.result,
        ...(close.state !== undefined ? { state: close.state } : {}),
        multiplier4: close.multiplier4,
        payout: close.payout,
        closeStatus: close.closeStatus,
        ...(close.totalStaked !== undefined ? { totalStaked: close.totalStaked } : {}),
        leaseUntil: leaseUntil(deps.config),
      },
      credit,
      claim: claim.claimed ? null : claim,
    });
  } catch (err) {
    throw keyTakenOr(err);
  }
  if (!closed) throw new RoundBusyError(`round ${round.roundId} changed while it was being closed`);
  claim.claimed = true;
  const finished = await creditAndFinish(deps, operator, closed.round, closed.credit, claim, answerOf);
  if (finished) return finished;
  return { answer: null, round: (await getRound(deps.db, round.roundId)) ?? closed.round };
}

/**
 * The retry job's takeover of a round whose worker died mid-debit (`debit_requested` past its
 * lease): the debit's fate is unknown, so it is marked unanswered and rolled back.
 */
export async function rollbackUnansweredDebit(deps: MoneyDeps, operator: OperatorWithSecret, round: Round): Promise<RoundStatus> {
  const debit = await getCallback(deps.db, debitKey(round.roundId));
  if (debit?.callbackStatus === 'pending') await markCallbackUnanswered(deps.db, debit.id);
  const error = new AppError('CASINO_TIMEOUT', 'the debit was not confirmed before the worker stopped');
  return rollbackRound(deps, operator, round, ['debit_requested'], 'debit not confirmed', error);
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
      body: rollbackBody(round, dk, round.amount, reason),
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
      body: creditBody(round, close.payout, close.launchToken),
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
    balance = sent.balance;
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

/* ---------------------------------------------------------- extra debits (Blackjack, CONTRACT.md §11) */

export interface ExtraDebitRequest {
  kind: ExtraDebitKind;
  /** the doubled hand (index from 0), for `double` */
  hand?: number;
  amount: bigint;
  launchToken: string;
}

/**
 * Takes an extra debit on an active round the caller read at `round.version`: records it with
 * the round leased (and `claim` run in that transaction: the action's idempotency key), then
 * sends it. Confirmed: answers the leased round and the balance; the caller applies its action
 * with `applyPaidAction` (or closes the round) within the lease. Refused (nothing debited), or
 * ambiguous and rolled back with its own key: the round is released with `withdrawnState` (the
 * action withdrawn: its wallet key is spent) and the error thrown with the round id and `active`.
 * An extra debit key is used once: a recorded one answers its stored error.
 */
export async function takeExtraDebit(
  deps: MoneyDeps,
  operator: OperatorWithSecret,
  round: Round,
  request: ExtraDebitRequest,
  opts: { claim: (tx: Tx) => Promise<void>; withdrawnState: unknown },
): Promise<{ round: Round; balance: bigint | null }> {
  const key = extraDebitKey(round.roundId, request.kind, request.hand);
  const earlier = await getCallback(deps.db, key);
  if (earlier) throw extraDebitError(earlier).withRound(round.roundId, 'active');

  const { leased, debit } = await deps.db.transaction(async (tx) => {
    const leased = await updateRound(tx, round.roundId, 'active', { leaseUntil: leaseUntil(deps.config), bumpVersion: true }, round.version);
    if (!leased) throw new RoundBusyError(`round ${round.roundId} changed during the ${request.kind}`);
    const debit = await recordExtraDebit(tx, deps, operator, leased, request);
    await opts.claim(tx);
    return { leased, debit };
  });

  const { outcome, balance } = await sendCallback(deps, operator, debit);
  if (outcome.kind === 'confirmed') return { round: leased, balance };
  if (!isCleanRefusal(outcome)) await rollbackExtraDebit(deps, operator, leased, debit, `${request.kind} debit not confirmed`);
  await updateRound(deps.db, round.roundId, 'active', { state: opts.withdrawnState, leaseUntil: null, bumpVersion: true }, leased.version);
  throw outcomeError(outcome).withRound(round.roundId, 'active');
}

/** Records an extra debit (CONTRACT.md §11 key, purpose = its kind) on a round the caller has leased, before it is sent. */
export function recordExtraDebit(tx: Tx, deps: MoneyDeps, operator: OperatorWithSecret, leased: Round, request: ExtraDebitRequest): Promise<Callback> {
  return recordCallback(tx, deps, operator, leased, {
    operation: 'debit',
    purpose: request.kind,
    key: extraDebitKey(leased.roundId, request.kind, request.hand),
    amount: request.amount,
    body: debitBody(leased, request.amount, request.launchToken),
  });
}

/** After a confirmed extra debit: the action's new state and the round's total stake, the lease ended. Null when the retry job took the round over. */
export async function applyPaidAction(deps: MoneyDeps, round: Round, change: { state: unknown; totalStaked: bigint }): Promise<Round | null> {
  return updateRound(deps.db, round.roundId, 'active', { state: change.state, totalStaked: change.totalStaked, leaseUntil: null, bumpVersion: true }, round.version);
}

/** Records the rollback of an extra debit (key `<debit key>:rollback`) and sends it; answers its callback status. */
export async function rollbackExtraDebit(deps: MoneyDeps, operator: OperatorWithSecret, round: Round, debit: Callback, reason: string): Promise<CallbackStatus> {
  const rollback = await recordCallback(deps.db, deps, operator, round, {
    operation: 'rollback',
    purpose: debit.purpose,
    key: rollbackKey(debit.idempotencyKey),
    debitKey: debit.idempotencyKey,
    amount: debit.amount,
    body: rollbackBody(round, debit.idempotencyKey, debit.amount, reason),
  });
  if (rollback.callbackStatus !== 'pending') return rollback.callbackStatus;
  return (await sendCallback(deps, operator, rollback)).status;
}

/** (Re)sends a recorded extra-debit rollback the casino has not confirmed yet; answers its status. */
export async function resendExtraDebitRollback(deps: MoneyDeps, operator: OperatorWithSecret, rollback: Callback): Promise<CallbackStatus> {
  const current = await getCallback(deps.db, rollback.idempotencyKey);
  if (!current || current.callbackStatus !== 'pending') return current?.callbackStatus ?? 'pending';
  return (await sendCallback(deps, operator, current)).status;
}

/** An extra debit a stopped worker sent without storing its answer: unknown, so marked unanswered (to be rolled back). */
export async function markExtraDebitUnanswered(deps: MoneyDeps, debit: Callback): Promise<Callback> {
  await markCallbackUnanswered(deps.db, debit.id);
  return (await getCallback(deps.db, debit.idempotencyKey)) ?? debit;
}

/** The error a failed extra debit answered (replayed for a later attempt of the same debit). */
export function extraDebitError(debit: Callback): AppError {
  if (debit.callbackStatus !== 'failed') return new AppError('ACTION_NOT_AVAILABLE', `the ${debit.purpose} was already taken`);
  const code = (debit.errorCode ?? 'CASINO_HTTP_ERROR') as ErrorCode;
  return new AppError(AppError.isCode(code) ? code : 'CASINO_HTTP_ERROR', debit.errorMessage ?? 'the casino did not confirm the debit');
}

/**
 * A 4xx answer other than 409 and 429 at the first attempt: the casino refused, nothing was
 * debited, nothing to undo (CONTRACT.md §11). A refusal after an unanswered first attempt is
 * rolled back all the same: that first attempt may still land.
 */
export function wasCleanlyRefused(debit: Callback): boolean {
  const s = debit.statusCode;
  return s !== null && s >= 300 && s < 500 && s !== 409 && s !== 429 && debit.attemptCount === 1;
}

/* ------------------------------------------------------------------------------------ leases */

/** Claims an active round for a takeover (lease and a new version); null when it moved on. */
export function takeOverActiveRound(deps: MoneyDeps, round: Round): Promise<Round | null> {
  return leaseActiveRound(deps.db, round, leaseUntil(deps.config), true);
}

/** Ends the lease of an active round the caller holds (at its version). */
export function releaseActiveRound(deps: MoneyDeps, round: Round): Promise<Round | null> {
  return leaseActiveRound(deps.db, round, null, false);
}

export async function operatorFor(deps: MoneyDeps, operatorId: string): Promise<OperatorWithSecret> {
  const operator = await deps.operators.getWithSecret(deps.db, operatorId);
  if (!operator) throw new AppError('INVALID_SESSION', 'unknown operator');
  return operator;
}

/* ------------------------------------------------------ free bets (issue 17): no debit, one credit */

/** Thrown inside the opening transaction when the nonce moved on: the transaction (the free bet used) is rolled back and the opening starts again. */
class NonceMoved extends Error {}

export interface OpenFreeBetInput extends OpenRoundInput {
  campaignId: string;
}

/**
 * Opens a free-bet round: one transaction uses one of the player's free bets (free_bet_grants:
 * `used + 1` only while `used < granted`, a concurrent request waits for the row and then finds
 * none left) and, in one statement, takes the nonce and inserts the round with its campaign. No
 * debit is recorded or sent, ever.
 *  - a settled game (`settle`): the outcome is computed from the committed seed at the nonce first,
 *    so the round is inserted with its result fixed (`credit_pending`) and its one credit recorded,
 *    `freeBet: true` and `campaignId` in the body; a settlement that fails (dice's window) throws
 *    before anything is written, so the free bet is never used (it stays the player's);
 *  - Mines (`deal`): the round opens `active` with its dealt state.
 * `refusal` says why no free bet could be used (ACTION_NOT_AVAILABLE); it is thrown with nothing written.
 */
export async function openFreeBetRound(
  deps: MoneyDeps,
  input: OpenFreeBetInput,
  opts: {
    claim: IdempotencyScope | null;
    settle?: (pair: { serverSeed: string; clientSeed: string; nonce: bigint }) => Settlement;
    deal?: (pair: { serverSeed: string; clientSeed: string; nonce: bigint }) => unknown;
    refusal: () => Promise<AppError>;
  },
): Promise<{ round: Round; credit: Callback | null; serverSeed: string; serverSeedHash: string }> {
  const { session, operator } = input;
  const roundId = randomUUID();
  const ref = { roundId, operatorId: session.operatorId, playerRef: session.playerRef, gameType: input.gameType, currency: session.currency, freeBetCampaignId: input.campaignId };
  for (let attempt = 0; attempt < 5; attempt++) {
    const pair = await currentSeedPair(deps.db, session.operatorId, session.playerRef);
    const seeds = { serverSeed: pair.serverSeed, clientSeed: input.clientSeed ?? pair.clientSeed, nonce: pair.nextNonce };
    const settled = opts.settle?.(seeds);
    const state = opts.deal?.(seeds);
    try {
      const opened = await deps.db.transaction(async (tx) => {
        const used = await useFreeBet(tx, { campaignId: input.campaignId, operatorId: session.operatorId, playerRef: session.playerRef });
        if (!used) return null;
        const row = await insertFreeBetRound(tx, {
          round: { ...ref, sessionId: session.sessionId, amount: input.amount, params: input.params, leaseUntil: settled ? leaseUntil(deps.config) : null, ...(state !== undefined ? { state } : {}) },
          clientSeed: input.clientSeed,
          expect: { seedPairId: pair.id, nonce: pair.nextNonce },
          claim: opts.claim,
          ...(settled
            ? {
                settled: {
                  ...settled,
                  credit: newCallback(deps, operator, ref, { operation: 'credit', purpose: 'win', key: creditKey(roundId), amount: settled.payout, body: creditBody(ref, settled.payout, session.launchToken) }),
                },
              }
            : {}),
        });
        if (!row) throw new NonceMoved();
        return row;
      });
      if (!opened) throw await opts.refusal();
      if (opts.claim) opts.claim.claimed = true;
      deps.onStatus?.(opened.round);
      return opened;
    } catch (err) {
      if (!(err instanceof NonceMoved)) throw err;
    }
  }
  throw new Error(`free-bet round ${roundId} could not take a nonce`);
}

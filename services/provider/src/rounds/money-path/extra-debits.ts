/**
 * Extra debits of an active Blackjack round (insurance, double, split; SPEC rule 7, CONTRACT.md
 * §11): each is recorded with the round leased, then sent; confirmed, the action applies; refused,
 * or ambiguous and rolled back with its own key, the action is refused and withdrawn.
 */
import { AppError, type ErrorCode } from '../../errors.js';
import type { OperatorWithSecret } from '../../operators/operator-schema.js';
import type { Tx } from '../../store/db.js';
import { isCleanRefusal, outcomeError } from '../../wallet/wallet-client.js';
import { updateRound } from '../round-store/writes.js';
import { markCallbackUnanswered } from '../round-store/callback-writes.js';
import { getCallback } from '../round-store/reads.js';
import type { Callback, CallbackStatus, Round } from '../round-store/rows.js';
import {
  debitBody,
  extraDebitKey,
  type ExtraDebitKind,
  leaseUntil,
  type MoneyDeps,
  recordCallback,
  rollbackBody,
  rollbackKey,
  RoundBusyError,
  sendCallback,
} from './callbacks.js';

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
  return updateRound(
    deps.db,
    round.roundId,
    'active',
    { state: change.state, totalStaked: change.totalStaked, leaseUntil: null, bumpVersion: true },
    round.version,
  );
}

/** Records the rollback of an extra debit (key `<debit key>:rollback`) and sends it; answers its callback status. */
export async function rollbackExtraDebit(
  deps: MoneyDeps,
  operator: OperatorWithSecret,
  round: Round,
  debit: Callback,
  reason: string,
): Promise<CallbackStatus> {
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
  await markCallbackUnanswered(deps.db, debit);
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

/**
 * What is repeated until the casino confirms it (SPEC rule 9, CONTRACT.md §11): a round's
 * rollback (`rollback_pending` → `cancelled`) and its credit (`credit_pending` → its close
 * status), each with its original key and body bytes; and the rollback of a debit whose worker
 * died before storing its answer. The retry job (wallet-retry-job.ts) calls these.
 */
import { AppError, type ErrorCode } from '../../errors.js';
import type { OperatorWithSecret } from '../../operators/operator-schema.js';
import { updateRound } from '../round-store/writes.js';
import { markCallbackUnanswered } from '../round-store/callback-writes.js';
import { getCallback, getRound } from '../round-store/reads.js';
import type { CallbackStatus, Round } from '../round-store/rows.js';
import type { RoundStatus } from '../round-status.js';
import { creditKey, debitKey, type MoneyDeps, recordCallback, rollbackBody, rollbackKey, RoundBusyError, sendCallback } from './callbacks.js';

/**
 * The retry job's takeover of a round whose worker died mid-debit (`debit_requested` past its
 * lease): the debit's fate is unknown, so it is marked unanswered and rolled back.
 */
export async function rollbackUnansweredDebit(deps: MoneyDeps, operator: OperatorWithSecret, round: Round): Promise<RoundStatus> {
  const debit = await getCallback(deps.db, debitKey(round.roundId));
  if (debit?.callbackStatus === 'pending') await markCallbackUnanswered(deps.db, debit);
  const error = new AppError('CASINO_TIMEOUT', 'the debit was not confirmed before the worker stopped');
  return rollbackRound(deps, operator, round, ['debit_requested'], 'debit not confirmed', error);
}

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

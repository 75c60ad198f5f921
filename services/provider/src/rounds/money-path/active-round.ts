/**
 * Mines and Blackjack rounds on the money path, each step in one statement: the opening debit
 * confirmed and the round made playable (`active`), the round closed with its one credit (by a
 * player's request, or by the abandoned-round sweep), and the leases a takeover holds.
 */
import { stringifyJson } from '../../infra/json.js';
import type { OperatorWithSecret } from '../../operators/operator-schema.js';
import type { IdempotencyScope } from '../idempotency.js';
import { closeRoundWithCredit, leaseActiveRound, storeDebitAndActivate } from '../round-store/writes.js';
import { recordCallbackResult } from '../round-store/callback-writes.js';
import { getRound } from '../round-store/reads.js';
import type { Callback, Round } from '../round-store/rows.js';
import type { CloseStatus, RoundStatus } from '../round-status.js';
import { afterAttempt, attempt, creditBody, creditKey, keyTakenOr, leaseUntil, type MoneyDeps, newCallback, RoundBusyError } from './callbacks.js';
import { debitNotConfirmed, type OpenedRound } from './opening.js';
import { creditAndFinish } from './settled-bet.js';
import { sendPendingCredit } from './pending-retries.js';

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
  if (!debit) throw new Error(`round ${round.roundId} has no debit: a free-bet round opens active`);
  const a = await attempt(deps, operator, debit);
  if (a.outcome.kind !== 'confirmed') {
    await recordCallbackResult(deps.db, debit, a.result, a.balance);
    return debitNotConfirmed(deps, operator, round, a.outcome);
  }
  const after: Round = { ...round, status: 'active', leaseUntil: null };
  const answer = await answerOf(after, afterAttempt(debit, a), a.balance?.balance ?? null);
  const active = await storeDebitAndActivate(deps.db, {
    debitKey: debit.idempotencyKey,
    debitResult: a.result,
    balance: a.balance,
    roundId: round.roundId,
    answer: { claim, body: stringifyJson(answer), roundStatus: answerStatus(answer, after) },
  });
  if (!active) return null;
  deps.onStatus?.(active);
  return { answer, round: active };
}

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
}

/**
 * One statement fixes the round's result (`close.from` → `credit_pending`, at `close.version`,
 * leased), records its one credit (amount 0 for a loss) and, with `claim`, claims the request's
 * key. Throws RoundBusyError when the round was no longer in `from` (another request or the retry
 * job got there first), KeyTaken when another request holds the key.
 */
async function fixResult(deps: MoneyDeps, operator: OperatorWithSecret, round: Round, close: CloseInput, claim: IdempotencyScope | null) {
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
      claim,
    });
  } catch (err) {
    throw keyTakenOr(err);
  }
  if (!closed) throw new RoundBusyError(`round ${round.roundId} changed while it was being closed`);
  return closed;
}

/**
 * A player's request that ends a round (a Mines cashout or bust, the last Blackjack action):
 * `fixResult` (claiming the request's key unless it holds it already); then the credit is sent and
 * `creditAndFinish` stores its answer, the final status and the request's answer. `answer` is null
 * when the round moved on after the credit was recorded (the caller answers from the round as it is).
 */
export async function closeAndCredit<A>(
  deps: MoneyDeps,
  operator: OperatorWithSecret,
  round: Round,
  close: CloseInput,
  claim: IdempotencyScope,
  answerOf: (round: Round, credit: Callback, balance: bigint | null) => A,
): Promise<{ answer: A | null; round: Round }> {
  const closed = await fixResult(deps, operator, round, close, claim.claimed ? null : claim);
  claim.claimed = true;
  const finished = await creditAndFinish(deps, operator, closed.round, closed.credit, claim, answerOf);
  if (finished) return finished;
  return { answer: null, round: (await getRound(deps.db, round.roundId)) ?? closed.round };
}

/**
 * A round ended by no player's request (a Blackjack deal that decides the round, the retry job's
 * abandoned-round sweep and recovery): `fixResult`, then the credit is sent. Answers the round:
 * final when the casino confirmed, `credit_pending` otherwise (never rolled back; the retry job
 * repeats the same credit).
 */
export async function closeRound(
  deps: MoneyDeps,
  operator: OperatorWithSecret,
  round: Round,
  close: CloseInput,
): Promise<{ round: Round; balance: bigint | null }> {
  await fixResult(deps, operator, round, close, null);
  return sendPendingCredit(deps, operator, round.roundId);
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

/**
 * How a Blackjack round ends when its player is not the one ending it, and how the extra debits
 * a stopped worker left are resolved (SPEC.md endpoint rule 6, CONTRACT.md §11):
 *
 *  - `closeBlackjack`: the one way a round closes (from a player action, the deal, or the
 *    abandoned-round sweep): the final state and one credit of the total payout of every hand and
 *    the insurance (0 for a loss), through the money path.
 *  - Crash safety of extra debits: an extra debit is recorded, with the action's idempotency key
 *    and a lease on the round, before it is sent, and the lease ends in the transaction that
 *    applies the action (or once the debit is refused or its rollback recorded). A worker that
 *    stops in between leaves the lease to run out; then the retry job (`recoverInterruptedRounds`)
 *    or the next action on the round (`takeOverStaleRound`) resolves it (`resolveExtraDebits`): an
 *    extra debit counts only once the state shows its action, any other is rolled back, its
 *    action withdrawn and the action's key answers the error.
 *  - Abandoned rounds, policy `stand`: a pending insurance is declined, every open hand stands,
 *    the dealer plays out, one credit.
 */
import { applyBlackjackAction, isFinal, settlement, withdrawExtraDebit, type BlackjackState, type ExtraDebit } from '@gp/game-core/games';
import { AppError } from '../errors.js';
import type { OperatorWithSecret } from '../operators/operator-schema.js';
import { completeInterruptedKeys } from './idempotency.js';
import { closeRound, releaseActiveRound, takeOverActiveRound, type CloseInput } from './money-path/active-round.js';
import { extraDebitError, markExtraDebitUnanswered, resendExtraDebitRollback, rollbackExtraDebit, wasCleanlyRefused } from './money-path/extra-debits.js';
import { operatorFor, RoundBusyError, type MoneyDeps } from './money-path/callbacks.js';
import { blackjackResult, blackjackStateOf } from './player-view.js';
import type { AbandonedRoundHandler, RoundDeps } from './round-actions.js';
import { callbacksOfRound } from './round-store/reads.js';
import { claimRoundsForWork, pendingExtraDebitRollbacks, type WorkFilter } from './round-store/work.js';
import { updateRound } from './round-store/writes.js';
import type { Callback, Round } from './round-store/rows.js';
import type { RoundStatus } from './round-status.js';

/**
 * Fixes the final state and records the round's one credit: the total payout of every hand and
 * the insurance (0 for a loss). bet.multiplier = payout ÷ totalStaked, floored (CONTRACT.md §13).
 */
export async function closeBlackjack(
  deps: MoneyDeps,
  operator: OperatorWithSecret,
  round: Round,
  state: BlackjackState,
  opts: { from: RoundStatus[]; launchToken: string },
) {
  return closeRound(deps, operator, round, blackjackClose(round, state, opts));
}

/** How a Blackjack round closes (the final state, its result, the total payout and stake): `closeBlackjack`, or money-path/active-round.ts `closeAndCredit`. */
export function blackjackClose(round: Round, state: BlackjackState, opts: { from: RoundStatus[]; launchToken: string }): CloseInput {
  const s = settlement(state);
  return {
    from: opts.from,
    version: round.version,
    result: blackjackResult(state, round),
    state,
    multiplier4: s.multiplier4,
    payout: s.totalPayout,
    closeStatus: 'settled',
    totalStaked: s.totalStaked,
    launchToken: opts.launchToken,
  };
}

/* ------------------------------------------------------------------ extra debits left behind */

const EXTRA_DEBIT_KINDS: readonly string[] = ['insurance', 'double', 'split'];
const isExtraDebit = (c: Callback) => c.operation === 'debit' && EXTRA_DEBIT_KINDS.includes(c.purpose);

/** The extra debit a recorded callback paid for (its purpose, and the hand of a double from its key). */
function extraDebitOf(debit: Callback): Pick<ExtraDebit, 'kind' | 'hand'> {
  const kind = debit.purpose as ExtraDebit['kind'];
  return kind === 'double' ? { kind, hand: Number(debit.idempotencyKey.slice(debit.idempotencyKey.lastIndexOf(':') + 1)) } : { kind };
}

/** Does the state show the action the extra debit paid for? */
function shownInState(state: BlackjackState, debit: Callback): boolean {
  const extra = extraDebitOf(debit);
  if (extra.kind === 'insurance') return state.insurance.taken === true;
  if (extra.kind === 'split') return state.split;
  return state.hands[extra.hand ?? 0]?.doubled === true;
}

/**
 * Resolves the extra debits a stopped worker left behind on a round the caller has taken over
 * (its lease and version): one never answered, or ambiguous without its rollback, or confirmed
 * but not shown in the state, is rolled back; every one whose action did not happen is withdrawn
 * from the state, and the action's key then answers the error. Answers the rollbacks sent.
 */
export async function resolveExtraDebits(deps: MoneyDeps, operator: OperatorWithSecret, round: Round): Promise<('succeeded' | 'pending')[]> {
  const callbacks = await callbacksOfRound(deps.db, round.roundId);
  const state = blackjackStateOf(round);
  let withdrawn = state;
  const sent: ('succeeded' | 'pending')[] = [];
  for (const recorded of callbacks.filter(isExtraDebit)) {
    if (recorded.callbackStatus === 'succeeded' && shownInState(state, recorded)) continue;
    // Its action did not happen and its key is spent: withdrawn from the round.
    withdrawn = withdrawExtraDebit(withdrawn, extraDebitOf(recorded));
    if (callbacks.some((c) => c.operation === 'rollback' && c.debitIdempotencyKey === recorded.idempotencyKey)) continue; // being retried
    const debit = recorded.callbackStatus === 'pending' ? await markExtraDebitUnanswered(deps, recorded) : recorded;
    if (debit.callbackStatus !== 'succeeded' && wasCleanlyRefused(debit)) continue; // nothing was debited
    const status = await rollbackExtraDebit(deps, operator, round, debit, `${debit.purpose} interrupted`);
    const error =
      debit.callbackStatus === 'succeeded'
        ? // Our process stopped between the casino's confirmation and the action: not the request's fault nor the
          // casino's. 503 as when a store is unavailable; the action did not happen and may be asked again (new key).
          new AppError('NOT_READY', `the ${debit.purpose} was interrupted by a restart after its debit; the debit is rolled back and the hand is as it was`, {
            ready: false,
            checks: { process: 'restarted' },
          })
        : extraDebitError(debit);
    await completeInterruptedKeys(deps.db, debit, error.withRound(round.roundId, 'active'));
    sent.push(status === 'succeeded' ? 'succeeded' : 'pending');
  }
  // The caller holds the round (lease and version): the state changes without a new version.
  if (withdrawn !== state) await updateRound(deps.db, round.roundId, 'active', { state: withdrawn }, round.version);
  return sent;
}

/**
 * Before an action: a lease still running means another request (or the retry job) is working on
 * the round; a lease that ran out means a worker stopped mid extra debit: take the round over and
 * resolve its extra debits first.
 */
export async function takeOverStaleRound(deps: RoundDeps, operator: OperatorWithSecret, round: Round): Promise<Round> {
  if (round.leaseUntil === null) return round;
  if (Date.parse(round.leaseUntil) > Date.now()) {
    throw new AppError('IDEMPOTENCY_IN_PROGRESS', 'another action on this round is still running; retry shortly');
  }
  const claimed = await takeOverActiveRound(deps, round);
  if (!claimed) throw new RoundBusyError(`round ${round.roundId} was taken over`);
  await resolveExtraDebits(deps, operator, claimed);
  const released = await releaseActiveRound(deps, claimed);
  if (!released) throw new RoundBusyError(`round ${round.roundId} was taken over`);
  return released;
}

/**
 * The retry job's part: rollbacks of extra debits the casino has not confirmed yet are sent again
 * with their keys; active rounds whose lease ran out (a worker stopped mid extra debit) are taken
 * over and their extra debits resolved. Answers each rollback sent, by round.
 */
export async function recoverInterruptedRounds(
  deps: MoneyDeps,
  filter: WorkFilter,
  lease: Date,
): Promise<{ roundId: string; outcome: 'succeeded' | 'pending' }[]> {
  const items: { roundId: string; outcome: 'succeeded' | 'pending' }[] = [];
  for (const rollback of await pendingExtraDebitRollbacks(deps.db, filter)) {
    let outcome: 'succeeded' | 'pending' = 'pending';
    try {
      if ((await resendExtraDebitRollback(deps, await operatorFor(deps, rollback.operatorId), rollback)) === 'succeeded') outcome = 'succeeded';
    } catch {
      // left for the next run
    }
    items.push({ roundId: rollback.roundId, outcome });
  }
  const rounds = await claimRoundsForWork(deps.db, { kind: 'interrupted' }, { ...filter, limit: filter.limit - items.length }, lease);
  for (const round of rounds) {
    try {
      const sent = await resolveExtraDebits(deps, await operatorFor(deps, round.operatorId), round);
      items.push(...sent.map((outcome) => ({ roundId: round.roundId, outcome })));
    } catch {
      items.push({ roundId: round.roundId, outcome: 'pending' });
    } finally {
      await releaseActiveRound(deps, round);
    }
  }
  return items;
}

/* ------------------------------------------------------------------------- abandoned rounds */

/**
 * Abandoned Blackjack rounds, policy `stand` (operators/operator-schema.ts): a pending insurance
 * is declined, every open hand stands, the dealer plays out, and the round closes with its one
 * credit, as the player's own stands would. A stopped worker's extra debit is resolved first. A
 * player action that got there first wins: the version check refuses the sweep.
 */
export const closeAbandonedBlackjackRound: AbandonedRoundHandler = async (deps, round, policy) => {
  if (policy.blackjack !== 'stand') return null;
  const claimed = await takeOverActiveRound(deps, round);
  if (!claimed) return null;
  const operator = await operatorFor(deps, round.operatorId);
  await resolveExtraDebits(deps, operator, claimed);
  let state = blackjackStateOf(claimed);
  while (!isFinal(state)) state = applyBlackjackAction(state, state.phase === 'insurance' ? 'decline_insurance' : 'stand').state;
  const session = await deps.sessions.load(deps.db, round.sessionId);
  try {
    const closed = await closeBlackjack(deps, operator, claimed, state, { from: ['active'], launchToken: session.launchToken });
    return closed.round.status === 'credit_pending' ? 'pending' : 'succeeded';
  } catch (err) {
    if (err instanceof RoundBusyError) return null;
    throw err;
  }
};

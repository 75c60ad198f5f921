/**
 * A settled bet's hot path (dice, limbo, plinko, keno; SPEC.md endpoint rules 1–4): after its
 * opening (opening.ts), the debit confirmed with the result fixed and the credit recorded in one
 * statement (a free bet has no debit: its result was fixed at its opening), then the credit sent
 * and, in one statement, its answer, the final status and the request's answer stored.
 * `creditAndFinish` also ends every round a player's request closes (active-round.ts).
 */
import { AppError, asAppError } from '../../errors.js';
import { stringifyAnswer } from '../../infra/json.js';
import type { OperatorWithSecret } from '../../operators/operator-schema.js';
import { rememberBalance } from '../../sessions/player-balances.js';
import { latestBalance } from '../round-store/reads.js';
import type { IdempotencyScope } from '../idempotency.js';
import { storeCreditAndFinish, storeDebitAndClose } from '../round-store/writes.js';
import { recordCallbackResult } from '../round-store/callback-writes.js';
import type { BalanceReport, Callback, Round } from '../round-store/rows.js';
import { afterAttempt, attempt, creditBody, creditKey, leaseUntil, type MoneyDeps, newCallback } from './callbacks.js';
import { debitNotConfirmed, type OpenedRound, type Seeds, type Settlement } from './opening.js';
import { rollbackRound } from './pending-retries.js';

/**
 * A settled bet after its opening (SPEC.md endpoint rules 1–2), paid or free. Paid: the opening
 * debit is sent; confirmed, `settle` fixes the result from the round's committed seeds, and one
 * statement stores the debit's answer, fixes the result (`credit_pending`) and records the one
 * credit. Not confirmed: as `debitOpenedRound`. Settlement failed after the debit (dice's window,
 * CONTRACT.md §10): the debit is rolled back and the error thrown with the round. Null when the
 * retry job took the round over meanwhile. A free bet was settled at its opening (opening.ts): its
 * credit is recorded already, and the balance is the player's latest reported one.
 *
 * The debit's reported balance is not written to `player_balances` by the statement that stores
 * its answer: it rides along (`unstored`) to `creditAndFinish`, which writes the credit's balance,
 * or this one when the credit's answer carried none — one balance write per bet, not two. Between
 * the debit's answer and the credit's, `player_balances` is one answer behind (the balance before
 * the debit); docs/performance.md "Issue 25: PostgreSQL per bet, the fourth session".
 */
export async function settleOpenedBet(
  deps: MoneyDeps,
  operator: OperatorWithSecret,
  opened: OpenedRound,
  launchToken: string,
  settle: (seeds: Seeds) => Settlement,
): Promise<{ round: Round; callbacks: Callback[]; credit: Callback; balance: bigint | null; unstored: BalanceReport | null } | null> {
  const { round, debit } = opened;
  if (!debit) {
    if (!opened.credit) throw new Error(`free-bet round ${round.roundId} opened without its credit`);
    return {
      round,
      callbacks: [],
      credit: opened.credit,
      balance: await latestBalance(deps.db, round.operatorId, round.playerRef, round.currency),
      unstored: null,
    };
  }
  const a = await attempt(deps, operator, debit);
  if (a.outcome.kind !== 'confirmed') {
    await recordCallbackResult(deps.db, debit, a.result, a.balance);
    return debitNotConfirmed(deps, operator, round, a.outcome);
  }
  let settled: Settlement;
  try {
    settled = settle({ serverSeed: opened.serverSeed, clientSeed: round.clientSeed, nonce: round.nonce });
  } catch (err) {
    await recordCallbackResult(deps.db, debit, a.result, a.balance);
    const error = asAppError(err) ?? new AppError('INTERNAL_ERROR', 'the bet could not be settled');
    const status = await rollbackRound(deps, operator, round, ['debit_requested'], `settlement failed: ${error.code}`, error);
    throw error.withRound(round.roundId, status);
  }
  const credit = newCallback(deps, operator, round, {
    operation: 'credit',
    purpose: 'win',
    key: creditKey(round.roundId),
    amount: settled.payout,
    body: creditBody(round, settled.payout, launchToken),
  });
  const closed = await storeDebitAndClose(deps.db, {
    debitKey: debit.idempotencyKey,
    debitResult: a.result,
    balance: null, // written with the credit's answer (above)
    round,
    change: { ...settled, closeStatus: 'settled', leaseUntil: leaseUntil(deps.config) },
    credit,
  });
  if (!closed) {
    // the retry job took the round over: this request sends no credit, so the debit's balance is stored now
    if (a.balance) await rememberBalance(deps.db, a.balance);
    return null;
  }
  return { round: closed.round, callbacks: [afterAttempt(debit, a)], credit: closed.credit, balance: a.balance?.balance ?? null, unstored: a.balance };
}

/**
 * Sends the credit of a round this request just closed and, in one statement, stores the answer,
 * the round's final status (confirmed) or its `credit_pending` (not: never rolled back; the retry
 * job repeats the same credit), and the request's answer with its key. `answerOf` builds the
 * answer from the round as it will be. Null when the round moved on meanwhile: nothing but the
 * credit's answer was stored, and the caller answers from the round as it is. `opts.unstored`: a
 * balance reported earlier in this request and not yet written (the debit's, `settleOpenedBet`),
 * written when the credit's answer carries none. `opts.balanceIn`: where the balance is kept
 * (`round`: an instant game's, in its round's row). `opts.rebuilt`: true when a replay of the key
 * rebuilds this very answer from the final round and its stored callbacks (bets.ts `betAnswer`): a
 * confirmed credit's statement then leaves the answer out (the key's record keeps only its claim:
 * one row update less a bet; docs/performance.md "the ninth session").
 */
export async function creditAndFinish<A>(
  deps: MoneyDeps,
  operator: OperatorWithSecret,
  round: Round,
  credit: Callback,
  claim: IdempotencyScope,
  answerOf: (round: Round, credit: Callback, balance: bigint | null) => A,
  opts: {
    unstored?: BalanceReport | null;
    rebuilt?: (answer: A, callback: Callback) => boolean;
    /** an instant game's request keeps the balance in its round (writes.ts `storeCreditAndFinish`) */
    balanceIn?: 'round' | 'player';
  } = {},
): Promise<{ answer: A; round: Round } | null> {
  const { unstored = null, rebuilt, balanceIn = 'player' } = opts;
  const a = await attempt(deps, operator, credit);
  const confirmed = a.status === 'succeeded';
  const now = new Date();
  const after: Round = {
    ...round,
    status: confirmed ? (round.closeStatus ?? 'settled') : 'credit_pending',
    settledAt: confirmed ? now.toISOString() : round.settledAt,
    leaseUntil: null,
  };
  const answered = afterAttempt(credit, a);
  const answer = answerOf(after, answered, a.balance?.balance ?? null);
  const balance = a.balance ?? unstored;
  const stored = confirmed && rebuilt?.(answer, answered) ? null : { claim, body: stringifyAnswer(answer as object), roundStatus: after.status };
  const { round: finished, balanceStored } = await storeCreditAndFinish(deps.db, {
    creditKey: credit.idempotencyKey,
    creditResult: a.result,
    balance,
    round,
    confirmed,
    settledAt: now,
    leaseUntil: null,
    answer: stored,
    balanceIn,
  });
  // the player's balance row was not there (a player whose launch wrote none): written now
  if (!balanceStored && balance) await rememberBalance(deps.db, balance);
  if (!finished) return null;
  deps.onStatus?.(finished);
  return { answer, round: finished };
}

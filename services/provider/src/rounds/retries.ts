/**
 * Pending wallet retries (SPEC.md "Pending retries", endpoint rule 9, CONTRACT.md §13): the cron
 * route and a new session of the player run them. Rounds are claimed with FOR UPDATE SKIP LOCKED
 * and a lease, so two invocations at once never take the same round; each retry reuses the
 * original idempotency key and body bytes, so even a duplicate call cannot move money twice.
 *
 * - credit_pending   → the same credit again; confirmed → the round's final status.
 * - rollback_pending → the same rollback again; confirmed → cancelled.
 * - debit_requested whose lease ran out (the worker died mid-debit) → an ambiguous debit: rolled back.
 * - Blackjack extra debits left unresolved by a stopped worker, or whose rollback is not
 *   confirmed yet: rounds/blackjack.ts `recoverBlackjackExtraDebits`.
 * Abandoned active rounds are closed by rounds/abandoned-rounds.ts (the same cron call).
 */
import type { Knex } from 'knex';
import { AppError } from '../errors.js';
import { leaseMs, operatorFor, rollbackRound, sendPendingCredit, sendPendingRollback, type MoneyDeps } from './money-path.js';
import { roundFromRow, type Round } from './round-store.js';
import { recoverBlackjackExtraDebits } from './blackjack.js';

export interface RetryFilter {
  operatorId?: string | undefined;
  playerRef?: string | undefined;
  limit: number;
}

export interface RetryItem {
  roundId: string;
  operation: 'credit' | 'rollback';
  outcome: 'succeeded' | 'pending';
}

export interface RetrySummary {
  scanned: number;
  retried: number;
  succeeded: number;
  stillPending: number;
  items: RetryItem[];
}

/** Claims up to `limit` rounds that need a wallet retry, with a lease so nobody else takes them. */
async function claimRounds(deps: MoneyDeps, filter: RetryFilter): Promise<Round[]> {
  const lease = new Date(Date.now() + leaseMs(deps.config));
  return deps.db.transaction(async (tx) => {
    const candidates = tx('rounds')
      .select('round_id')
      .where((q: Knex.QueryBuilder) => {
        q.whereIn('status', ['credit_pending', 'rollback_pending']).orWhere('status', 'debit_requested');
      })
      .andWhere((q: Knex.QueryBuilder) => {
        q.whereNull('lease_until').orWhere('lease_until', '<', tx.fn.now());
      })
      .andWhere((q: Knex.QueryBuilder) => {
        // a debit_requested round is only taken over once its lease ran out
        q.whereNot('status', 'debit_requested').orWhereNotNull('lease_until');
      })
      .orderBy('updated_at')
      .limit(filter.limit)
      .forUpdate()
      .skipLocked();
    if (filter.operatorId) candidates.andWhere('operator_id', filter.operatorId);
    if (filter.playerRef) candidates.andWhere('player_ref', filter.playerRef);
    const rows = await tx('rounds').whereIn('round_id', candidates).update({ lease_until: lease }).returning('*');
    return rows.map(roundFromRow);
  });
}

export async function retryPending(deps: MoneyDeps, filter: RetryFilter): Promise<RetrySummary> {
  const rounds = await claimRounds(deps, filter);
  const summary: RetrySummary = { scanned: rounds.length, retried: 0, succeeded: 0, stillPending: 0, items: [] };
  for (const round of rounds) {
    try {
      const operator = await operatorFor(deps, round.operatorId);
      let item: RetryItem;
      if (round.status === 'credit_pending') {
        const { round: after } = await sendPendingCredit(deps, operator, round.roundId);
        item = { roundId: round.roundId, operation: 'credit', outcome: after.status === 'credit_pending' ? 'pending' : 'succeeded' };
      } else if (round.status === 'rollback_pending') {
        const status = await sendPendingRollback(deps, operator, round.roundId);
        item = { roundId: round.roundId, operation: 'rollback', outcome: status === 'cancelled' ? 'succeeded' : 'pending' };
      } else {
        // debit_requested past its lease: the debit's fate is unknown, so it is rolled back.
        const debit = await deps.db('wallet_callbacks').where({ round_id: round.roundId, operation: 'debit', purpose: 'bet', callback_status: 'pending' }).first();
        if (debit) await deps.db('wallet_callbacks').where({ id: debit.id, callback_status: 'pending' }).update({ callback_status: 'failed', error_message: 'no answer recorded: the worker stopped', updated_at: deps.db.fn.now() });
        const error = new AppError('CASINO_TIMEOUT', 'the debit was not confirmed before the worker stopped');
        const status = await rollbackRound(deps, operator, round, ['debit_requested'], 'debit not confirmed', error);
        item = { roundId: round.roundId, operation: 'rollback', outcome: status === 'cancelled' ? 'succeeded' : 'pending' };
      }
      summary.retried += 1;
      if (item.outcome === 'succeeded') summary.succeeded += 1;
      else summary.stillPending += 1;
      summary.items.push(item);
    } catch {
      // Left for the next run: the lease runs out and the round is claimed again.
      summary.stillPending += 1;
      summary.items.push({ roundId: round.roundId, operation: round.status === 'credit_pending' ? 'credit' : 'rollback', outcome: 'pending' });
    }
  }
  // Blackjack extra debits left unresolved (a stopped worker) or whose rollback is not confirmed yet.
  addToSummary(summary, await recoverBlackjackExtraDebits(deps, { ...filter, limit: filter.limit - summary.scanned }));
  return summary;
}

/** Counts further retried rounds into a summary. */
export function addToSummary(summary: RetrySummary, items: RetryItem[]): void {
  for (const item of items) {
    summary.scanned += 1;
    summary.retried += 1;
    if (item.outcome === 'succeeded') summary.succeeded += 1;
    else summary.stillPending += 1;
    summary.items.push(item);
  }
}

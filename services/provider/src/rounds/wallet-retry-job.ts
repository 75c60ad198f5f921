/**
 * The wallet retry job (SPEC.md "Pending retries" and endpoint rule 9, CONTRACT.md §13): what
 * `GET /api/cron/wallet-retries` runs, and what a new session runs for its player. One pass:
 *
 *  1. scope: the request's operator; in production without one, READINESS_OPERATOR_ID, else
 *     WALLET_RETRY_OPERATOR_REQUIRED (outside production: every operator);
 *  2. money owed: `credit_pending` → the same credit again (confirmed → the round's final status);
 *     `rollback_pending` → the same rollback again (confirmed → `cancelled`); `debit_requested`
 *     past its lease (the worker died mid-debit) → an ambiguous debit: rolled back;
 *  3. Blackjack extra debits a stopped worker left, and their unconfirmed rollbacks
 *     (blackjack-recovery.ts);
 *  4. abandoned Mines and Blackjack rounds, as each operator's policy says (the cron route only);
 *  5. the operator's pending promo credits (promotions' prizes, issue 30; the cron route only,
 *     at once as the rounds' retries, its own budget of `limit`): the same pass as the promotions pass's step 3, so a
 *     deployment with PROMOTIONS=off or no scheduler still pays an award already made.
 *
 * Rounds are claimed with FOR UPDATE SKIP LOCKED and a lease (round-store/work.ts), so two
 * invocations at once never take the same round; each retry reuses the original idempotency key
 * and body bytes, so even a duplicate call cannot move money twice. `limit` caps the rounds one
 * pass claims, across all steps.
 */
import type { GameType } from '@gp/game-core/games';
import { AppError } from '../errors.js';
import { closeAbandonedBlackjackRound, recoverInterruptedRounds } from './blackjack-recovery.js';
import { closeAbandonedMinesRound } from './mines.js';
import { leaseUntil, operatorFor } from './money-path/callbacks.js';
import { payDueAwards, type PromoPayItem } from './money-path/promo-credits.js';
import { rollbackUnansweredDebit, sendPendingCredit, sendPendingRollback } from './money-path/pending-retries.js';
import type { AbandonedRoundHandler, RoundDeps } from './round-actions.js';
import { claimRoundsForWork, dropIdempotencyWeeks, ensureTimePartitions, purgeLegacyIdempotencyRecords, type WorkFilter } from './round-store/work.js';
import { purgeOldSignInAttempts } from '../staff/staff-store.js';
import { restartIdleClock, updateRound } from './round-store/writes.js';
import type { Round } from './round-store/rows.js';

export interface RetryRequest {
  operatorId?: string | undefined;
  playerRef?: string | undefined;
  /** One round only (the admin console's "retry now"; the same pass as the cron route's). */
  roundId?: string | undefined;
  /** 1..100: how many rounds one pass may claim */
  limit: number;
  /** Close abandoned active rounds too (the cron route; a new session does not). */
  sweepAbandoned: boolean;
}

export interface RetryItem {
  roundId: string;
  operation: 'credit' | 'rollback';
  outcome: 'succeeded' | 'pending';
}

/** The cron route's answer (CONTRACT.md §12). */
export interface RetrySummary {
  scanned: number;
  retried: number;
  succeeded: number;
  stillPending: number;
  items: RetryItem[];
  /** The cron route only, when it sent any: the promo credits (docs/promotions.md "The credits you receive"). */
  promoCredits?: { retried: number; succeeded: number; stillPending: number; items: PromoPayItem[] };
}

/** How each game closes an abandoned round. */
export const ABANDONED_ROUND_HANDLERS: Partial<Record<GameType, AbandonedRoundHandler>> = {
  mines: closeAbandonedMinesRound,
  blackjack: closeAbandonedBlackjackRound,
};

/** The operator a pass is scoped to (SPEC.md endpoint rule 9); undefined = every operator (outside production). */
export function retryScope(deps: Pick<RoundDeps, 'config'>, operatorId: string | undefined): string | undefined {
  if (operatorId || !deps.config.production) return operatorId;
  if (!deps.config.readinessOperatorId)
    throw new AppError('WALLET_RETRY_OPERATOR_REQUIRED', 'in production the call needs operatorId (or READINESS_OPERATOR_ID)');
  return deps.config.readinessOperatorId;
}

export async function runWalletRetryJob(deps: RoundDeps, request: RetryRequest): Promise<RetrySummary> {
  const filter: WorkFilter = { operatorId: retryScope(deps, request.operatorId), playerRef: request.playerRef, roundId: request.roundId, limit: request.limit };
  const summary: RetrySummary = { scanned: 0, retried: 0, succeeded: 0, stillPending: 0, items: [] };
  const count = (item: RetryItem) => {
    summary.scanned += 1;
    summary.retried += 1;
    if (item.outcome === 'succeeded') summary.succeeded += 1;
    else summary.stillPending += 1;
    summary.items.push(item);
  };
  const left = () => ({ ...filter, limit: filter.limit - summary.scanned });

  for (const round of await claimRoundsForWork(deps.db, { kind: 'wallet' }, left(), leaseUntil(deps.config))) count(await retryRound(deps, round));
  for (const item of await recoverInterruptedRounds(deps, left(), leaseUntil(deps.config)))
    count({ roundId: item.roundId, operation: 'rollback', outcome: item.outcome });
  if (request.sweepAbandoned) {
    for (const item of await sweepAbandonedRounds(deps, left())) count(item);
    // Retention: idempotency records past IDEMPOTENCY_RETENTION_HOURS go.
    await idempotencyRetention(deps, filter.operatorId);
    // and the staff's sign-in attempts untouched for a day without a lock in force (one bounded batch)
    await purgeOldSignInAttempts(deps.db);
    // promo credits due for a retry, of the pass's operator (not for one round or one player)
    if (!request.roundId && !request.playerRef) {
      // like the rounds' retries of this route: at once, whatever the backoff (the same key and body)
      const items = await payDueAwards(deps, { operatorId: filter.operatorId, limit: request.limit, ignoreBackoff: true });
      const succeeded = items.filter((i) => i.outcome === 'succeeded').length;
      // only when one was sent: an answer with nothing to say is CONTRACT.md §12's summary as it was
      if (items.length > 0) summary.promoCredits = { retried: items.length, succeeded, stillPending: items.length - succeeded, items };
    }
    await ensureTimePartitions(deps.db);
  }
  return summary;
}

/**
 * The cron pass's steps other than pending credits and rollbacks, for one operator: interrupted
 * Blackjack extra debits, abandoned rounds, idempotency retention. The in-service scheduler
 * (retry-scheduler.ts) runs it every WALLET_RETRY_SWEEP_S, so the CronJobs are optional.
 */
export async function runMaintenancePass(deps: RoundDeps, operatorId: string, limit: number): Promise<RetryItem[]> {
  const filter: WorkFilter = { operatorId, limit };
  const items = (await recoverInterruptedRounds(deps, filter, leaseUntil(deps.config))).map((item): RetryItem => ({
    roundId: item.roundId,
    operation: 'rollback',
    outcome: item.outcome,
  }));
  items.push(...(await sweepAbandonedRounds(deps, { ...filter, limit: Math.max(0, limit - items.length) })));
  await idempotencyRetention(deps, operatorId);
  await ensureTimePartitions(deps.db);
  return items;
}

/**
 * Idempotency records past IDEMPOTENCY_RETENTION_HOURS go: the weeks of sessions that ended longer
 * ago than that are dropped whole (every operator's: the drop costs the same whatever they hold),
 * and the legacy partition's old records of the pass's operator are deleted.
 */
async function idempotencyRetention(deps: Pick<RoundDeps, 'db' | 'config'>, operatorId: string | undefined): Promise<void> {
  const retentionMs = deps.config.idempotencyRetentionHours * 3_600_000;
  await dropIdempotencyWeeks(deps.db, { sessionMaxMs: deps.config.sessionMaxMs, retentionMs });
  await purgeLegacyIdempotencyRecords(deps.db, { olderThan: new Date(Date.now() - retentionMs), operatorId });
}

/** One claimed round that waits for the wallet: its credit or rollback again, or the rollback of a debit nobody answered. */
export async function retryRound(deps: RoundDeps, round: Round): Promise<RetryItem> {
  const operation = round.status === 'credit_pending' ? 'credit' : 'rollback';
  try {
    const operator = await operatorFor(deps, round.operatorId);
    if (round.status === 'credit_pending') {
      const { round: after } = await sendPendingCredit(deps, operator, round.roundId);
      return { roundId: round.roundId, operation, outcome: after.status === 'credit_pending' ? 'pending' : 'succeeded' };
    }
    const status =
      round.status === 'rollback_pending' ? await sendPendingRollback(deps, operator, round.roundId) : await rollbackUnansweredDebit(deps, operator, round);
    return { roundId: round.roundId, operation, outcome: status === 'cancelled' ? 'succeeded' : 'pending' };
  } catch {
    // Left for the next run: the lease runs out and the round is claimed again.
    return { roundId: round.roundId, operation, outcome: 'pending' };
  }
}

/**
 * Closes Mines and Blackjack rounds nobody touched for the operator's
 * `abandonedRoundPolicy.afterHours` (default 24 h), as the policy says. A round the policy keeps
 * open has its idle clock restarted, so it does not crowd out the others.
 */
async function sweepAbandonedRounds(deps: RoundDeps, filter: WorkFilter): Promise<RetryItem[]> {
  const items: RetryItem[] = [];
  const operators = filter.operatorId ? [await deps.operators.get(deps.db, filter.operatorId)] : await deps.operators.list(deps.db);
  let budget = filter.limit;
  for (const op of operators) {
    if (!op) continue;
    const policy = op.abandonedRoundPolicy;
    for (const [gameType, handler] of Object.entries(ABANDONED_ROUND_HANDLERS) as [GameType, AbandonedRoundHandler][]) {
      if (budget <= 0) return items;
      if ((gameType === 'mines' && policy.mines === 'keep_open') || (gameType === 'blackjack' && policy.blackjack === 'keep_open')) continue;
      const idleSince = new Date(Date.now() - policy.afterHours * 3_600_000);
      const rounds = await claimRoundsForWork(
        deps.db,
        { kind: 'abandoned', operatorId: op.operatorId, gameType, idleSince },
        { ...filter, limit: budget },
        leaseUntil(deps.config),
      );
      budget -= rounds.length;
      for (const round of rounds) {
        try {
          const outcome = await handler(deps, round, policy);
          if (outcome) items.push({ roundId: round.roundId, operation: 'credit', outcome });
          else await restartIdleClock(deps.db, round.roundId);
        } catch {
          // Left for the next run (its lease is released below); the other rounds go on.
          items.push({ roundId: round.roundId, operation: 'credit', outcome: 'pending' });
        } finally {
          await updateRound(deps.db, round.roundId, 'active', { leaseUntil: null });
        }
      }
    }
  }
  return items;
}

/**
 * A new session starts the retries of its player's pending credits and rollbacks in the
 * background (SPEC rule 9; up to 100 rounds, no abandoned-round sweep). Each run is held in
 * `background` until it ends (the server awaits them on close); a failure is left to the cron job.
 * `deps` is read when a session starts (the composition root builds it after the sessions);
 * `onRun` sees each run's summary (the metrics).
 */
export function retriesOnSessionStart(
  deps: () => RoundDeps,
  background: Set<Promise<unknown>>,
  onRun?: (operatorId: string, summary: Awaited<ReturnType<typeof runWalletRetryJob>>) => void,
): (operatorId: string, playerRef: string) => void {
  return (operatorId, playerRef) => {
    const p = runWalletRetryJob(deps(), { operatorId, playerRef, limit: 100, sweepAbandoned: false })
      .then((summary) => onRun?.(operatorId, summary))
      .catch(() => undefined);
    background.add(p);
    void p.finally(() => background.delete(p));
  };
}

/**
 * The rounds' retry schedule (issue 26; rounds/retry-scheduler.ts): `retry_attempts`,
 * `next_retry_at`, `last_retry_at` (migration 20261128100000). Claims take the round's lease with
 * FOR UPDATE SKIP LOCKED, like claimRoundsForWork, and move its backoff on in the same statement.
 */
import type { Knex } from 'knex';

const PENDING = "('credit_pending', 'rollback_pending')";
/** Rounds the scheduler may take now or later (not held by a worker). */
/**
 * The rounds in flight joined to their rounds on (round_id, created_at): PostgreSQL reads only the
 * months that hold one (run-time partition pruning, migration 20261128131000).
 */
const IN_FLIGHT = 'rounds_in_flight f JOIN rounds r ON r.round_id = f.round_id AND r.created_at = f.created_at';
const WAITING = `((status IN ${PENDING} AND (lease_until IS NULL OR lease_until < now())) OR (status = 'debit_requested' AND lease_until IS NOT NULL AND lease_until < now()))`;

/** Operators with waiting rounds: whether any is due (`first`: seconds after a round was left pending), and when one was last tried. */
export async function operatorsWithWork(db: Knex, first: number): Promise<{ operatorId: string; due: boolean; lastTry: Date | null }[]> {
  const { rows } = await db.raw(
    `SELECT operator_id, bool_or(status = 'debit_requested' OR coalesce(next_retry_at, updated_at + make_interval(secs => ?)) <= now()) AS due, max(last_retry_at) AS last_try
       FROM ${IN_FLIGHT} WHERE ${WAITING} GROUP BY operator_id`,
    [first],
  );
  return (rows as { operator_id: string; due: boolean; last_try: Date | string | null }[]).map((r) => ({
    operatorId: r.operator_id,
    due: r.due,
    lastTry: r.last_try ? new Date(r.last_try) : null,
  }));
}

/** Claims one round of the operator (due, or for a probe the one due soonest), moving its backoff on. */
export async function claimDueRound(
  db: Knex,
  operatorId: string,
  probe: boolean,
  lease: Date,
  backoffSeconds: number[],
): Promise<{ roundId: string; attempts: number } | null> {
  const first = backoffSeconds[0] ?? 5;
  const due = probe ? 'true' : `(status = 'debit_requested' OR coalesce(next_retry_at, updated_at + make_interval(secs => ?)) <= now())`;
  const { rows } = await db.raw(
    `UPDATE rounds SET lease_until = ?, retry_attempts = retry_attempts + 1, last_retry_at = now(),
            next_retry_at = now() + make_interval(secs => (?::int[])[least(retry_attempts + 2, ?)])
      WHERE round_id = (SELECT r.round_id FROM ${IN_FLIGHT} WHERE operator_id = ? AND ${WAITING} AND ${due}
                         ORDER BY coalesce(next_retry_at, updated_at) LIMIT 1 FOR UPDATE OF r SKIP LOCKED)
      RETURNING round_id, retry_attempts`,
    [lease, backoffSeconds, backoffSeconds.length, operatorId, ...(probe ? [] : [first])],
  );
  const row = (rows as { round_id: string; retry_attempts: number }[])[0];
  return row ? { roundId: row.round_id, attempts: row.retry_attempts } : null;
}

/** The casino answered a round that had failed before: the operator's other waiting rounds are due now. */
export async function makeOperatorDue(db: Knex, operatorId: string): Promise<void> {
  await db.raw(
    `UPDATE rounds r SET next_retry_at = now() FROM rounds_in_flight f WHERE r.round_id = f.round_id AND r.created_at = f.created_at AND operator_id = ? AND status IN ${PENDING} AND next_retry_at > now()`,
    [operatorId],
  );
}

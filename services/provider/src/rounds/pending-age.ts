/**
 * How long the oldest round of each operator has waited for its credit (`credit_pending`) or its
 * rollback (`rollback_pending`), for gp_wallet_retries_oldest_pending_seconds and the pending-age
 * SLO alert. The wait starts when the credit or rollback was first sent (its wallet_callbacks
 * row); a round without one counts from its last change. Read when Prometheus scrapes.
 */
import type { Queryable } from '../store/db.js';
import { callbackKeyOfRound } from './round-store/rows.js';

export interface PendingAge {
  operatorId: string;
  operation: 'credit' | 'rollback';
  seconds: number;
}

/**
 * Driven by the rounds in flight (a few dozen), each round's first send looked up by its own key
 * range in a LATERAL subquery, which PostgreSQL runs once per round. As a join, the key range's
 * unknown width made the planner price each lookup at thousands of rows: with 64 rounds in flight
 * on the bench's 10-million-round database it scanned every callback instead, 20–40 s a scrape
 * (issue 25, the thirteenth session; test/store/partitions.test.ts).
 */
export const OLDEST_PENDING_SQL = `SELECT r.operator_id, r.status, EXTRACT(EPOCH FROM now() - COALESCE(min(wc.first_sent), min(r.updated_at)))::float8 AS age
  FROM rounds_in_flight f
  JOIN rounds r ON r.round_id = f.round_id AND r.created_at = f.created_at
  LEFT JOIN LATERAL (
    SELECT min(c.created_at) AS first_sent FROM wallet_callbacks c
    WHERE ${callbackKeyOfRound('c.idempotency_key', 'r.round_id')} AND c.round_created_at = r.created_at AND c.round_id = r.round_id
      AND c.operation = CASE r.status WHEN 'credit_pending' THEN 'credit' ELSE 'rollback' END
  ) wc ON true
  WHERE r.status IN ('credit_pending', 'rollback_pending')
  GROUP BY r.operator_id, r.status`;

export async function oldestPendingAges(db: Queryable): Promise<PendingAge[]> {
  const res = (await db.raw(OLDEST_PENDING_SQL)) as { rows: { operator_id: string; status: string; age: string | number | null }[] };
  return res.rows.map((r) => ({
    operatorId: r.operator_id,
    operation: r.status === 'credit_pending' ? 'credit' : 'rollback',
    seconds: Math.max(0, Number(r.age ?? 0)),
  }));
}

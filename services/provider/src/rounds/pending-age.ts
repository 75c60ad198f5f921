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

export async function oldestPendingAges(db: Queryable): Promise<PendingAge[]> {
  const rows: { operator_id: string; status: string; age: string | number | null }[] = await db('rounds as r')
    .leftJoin('wallet_callbacks as wc', function joinCallback() {
      // the round's callbacks by their key (no index on round_id: round-store/rows.ts callbackKeyOfRound)
      this.on(db.raw(callbackKeyOfRound('wc.idempotency_key', 'r.round_id')))
        .andOn('wc.round_created_at', '=', 'r.created_at')
        .andOn('wc.round_id', '=', 'r.round_id')
        .andOn(db.raw("wc.operation = CASE r.status WHEN 'credit_pending' THEN 'credit' ELSE 'rollback' END"));
    })
    .whereIn('r.round_id', db('rounds_in_flight').select('round_id'))
    .whereIn('r.status', ['credit_pending', 'rollback_pending'])
    .groupBy('r.operator_id', 'r.status')
    .select('r.operator_id', 'r.status', db.raw('EXTRACT(EPOCH FROM now() - COALESCE(min(wc.created_at), min(r.updated_at)))::float8 AS age'));
  return rows.map((r) => ({
    operatorId: r.operator_id,
    operation: r.status === 'credit_pending' ? 'credit' : 'rollback',
    seconds: Math.max(0, Number(r.age ?? 0)),
  }));
}

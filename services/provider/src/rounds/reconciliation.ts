/**
 * GET /api/reconciliation (SPEC.md "Reconciliation rows", CONTRACT.md §7 and §12): one row per
 * debit, credit and rollback callback (credit_pending / rollback_pending while unconfirmed),
 * from the `reconciliation_rows` view, newest first, with cursor pagination.
 */
import { type CurrencyCode, amountJson } from '@gp/game-core/money';
import { AppError } from '../errors.js';
import { toBigInt, toIso, type Queryable } from '../store/db.js';

export const RECONCILIATION_TYPES = ['debit', 'credit', 'rollback', 'credit_pending', 'rollback_pending'] as const;
export type ReconciliationType = (typeof RECONCILIATION_TYPES)[number];

export interface ReconciliationQuery {
  operatorId?: string | undefined;
  /** The admin console: the caller's profiles (null or absent: every profile). */
  operatorIds?: string[] | null | undefined;
  /** The admin console: the callback status (pending, succeeded, failed). */
  status?: string | undefined;
  type?: ReconciliationType | undefined;
  from?: string | undefined;
  to?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

interface Row {
  id: string | number;
  type: ReconciliationType;
  round_id: string;
  operator_id: string;
  player_ref: string;
  game_type: string;
  amount: string;
  currency: CurrencyCode;
  casino_transaction_id: string | null;
  idempotency_key: string;
  status: string;
  created_at: Date | string;
}

export async function reconciliationRows(db: Queryable, q: ReconciliationQuery) {
  const query = db<Row>('reconciliation_rows').orderBy('id', 'desc').limit(q.limit + 1);
  if (q.operatorId) query.where('operator_id', q.operatorId);
  if (q.operatorIds) query.whereIn('operator_id', q.operatorIds);
  if (q.status) query.where('status', q.status);
  if (q.type) query.where('type', q.type);
  if (q.from) query.where('created_at', '>=', q.from);
  if (q.to) query.where('created_at', '<', q.to);
  if (q.cursor) {
    if (!/^\d{1,18}$/.test(q.cursor)) throw new AppError('VALIDATION_ERROR', 'cursor is not valid');
    query.where('id', '<', q.cursor);
  }
  const rows = await query;
  const page = rows.slice(0, q.limit);
  return {
    rows: page.map((r) => ({
      type: r.type,
      roundId: r.round_id,
      operatorId: r.operator_id,
      playerRef: r.player_ref,
      gameType: r.game_type,
      amount: amountJson(toBigInt(r.amount), r.currency),
      currency: r.currency,
      casinoTransactionId: r.casino_transaction_id,
      idempotencyKey: r.idempotency_key,
      status: r.status,
      createdAt: toIso(r.created_at),
    })),
    nextCursor: rows.length > q.limit ? String(page[page.length - 1]!.id) : null,
  };
}

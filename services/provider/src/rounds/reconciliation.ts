/**
 * GET /api/reconciliation (SPEC.md "Reconciliation rows", CONTRACT.md §7 and §12): one row per
 * debit, credit and rollback callback (credit_pending / rollback_pending while unconfirmed),
 * from the `reconciliation_rows` view, newest first (by the callback's time, then its id), with
 * cursor pagination.
 */
import { type CurrencyCode, amountJson } from '@gp/game-core/money';
import { AppError } from '../errors.js';
import { toBigInt, toIso, type Queryable, LIMIT_IN_TEXT } from '../store/db.js';
import type { Knex } from 'knex';
import { callbackTotals } from './round-store/reports.js';
import { decodeCursor, encodeCursor } from './page-cursor.js';
import { awardRows, awardTotals } from './promotions/award-store.js';

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
  /** only the callbacks of free-bet rounds (true) or of paid ones (false) */
  freeBet?: boolean | undefined;
  /** true: the promo credits (promotions' prizes, docs/promotions.md) instead of the rounds' callbacks */
  promo?: boolean | undefined;
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
  free_bet_campaign_id?: string | null;
}

/** A row's time to the microsecond, in UTC (`created_at_text` of ROW_COLUMNS): the cursor's first half. */
const DB_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
/**
 * A row as the view reconciliation_rows has it, from a page of callbacks `p` and their rounds `r`,
 * with the cursor's time: whatever the session's DateStyle and TimeZone, ISO 8601 in UTC, which
 * `::timestamptz` reads back exactly.
 */
const ROW_COLUMNS = `p.id,
  CASE WHEN p.callback_status = 'pending' AND p.operation IN ('credit', 'rollback') THEN p.operation || '_pending' ELSE p.operation END AS type,
  p.round_id, p.operator_id, p.player_ref, r.game_type, p.amount, p.currency, p.casino_transaction_id, p.idempotency_key,
  p.callback_status AS status, p.created_at, r.free_bet_campaign_id,
  to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at_text`;
/** A row type as conditions on the callback's own columns (the view's `type`). */
const TYPE_RULE: Record<ReconciliationType, string> = {
  debit: "c.operation = 'debit'",
  credit: "c.operation = 'credit' AND c.callback_status <> 'pending'",
  rollback: "c.operation = 'rollback' AND c.callback_status <> 'pending'",
  credit_pending: "c.operation = 'credit' AND c.callback_status = 'pending'",
  rollback_pending: "c.operation = 'rollback' AND c.callback_status = 'pending'",
};

export async function reconciliationRows(db: Queryable, q: ReconciliationQuery) {
  if (q.promo) return promoRows(db, q);
  const after = q.cursor ? (decodeCursor(q.cursor, 2) as [string, string]) : null;
  if (after && !(DB_TIME.test(after[0]) && /^\d{1,18}$/.test(after[1]))) throw new AppError('VALIDATION_ERROR', 'cursor is not valid');
  const query = reconciliationRowsQuery(db, q, after);
  if (!query) return { rows: [], nextCursor: null };
  const rows = (await query) as (Row & { created_at_text: string })[];
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
      // a free-bet round's callbacks say so (docs/free-bets.md); paid rows are as before
      ...(r.free_bet_campaign_id ? { freeBet: true as const, campaignId: r.free_bet_campaign_id } : {}),
    })),
    nextCursor: rows.length > q.limit ? encodeCursor([page[page.length - 1]!.created_at_text, String(page[page.length - 1]!.id)]) : null,
  };
}

/**
 * The statement of a page of rows after `after` (the last row's time to the microsecond and id; null:
 * the first page), or null when the caller may see no operator. Newest first by (created_at, id),
 * one operator at a time through the callbacks' (operator_id, created_at, id) index (migration
 * 20261206006000; the callbacks have no index on id alone, migration 20261206004000): an index scan
 * gives rows in order for one operator only. Several operators (a staff member's profiles, or every operator): each one's page, merged —
 * at most (limit + 1) rows read per operator, never a sort of the history.
 */
export function reconciliationRowsQuery(db: Queryable, q: ReconciliationQuery, after: [string, string] | null): Knex.QueryBuilder | null {
  // One operator's page: its callbacks first, in index order and cut at limit + 1, then their rounds
  // (the game, the free-bet campaign) by each round's key and month: the join reads limit + 1 rounds.
  // The page's size is in the statement's text (LIMIT_IN_TEXT): planned generically with a bound
  // LIMIT, the first page was a hash join of every round — 10.6 s on the bench's 10-million-round
  // database, 14 ms with the number in the text (docs/performance.md).
  const onePage = (operator: Knex.Raw | string) => {
    const callbacks = db('wallet_callbacks as c')
      .select('c.*')
      .where('c.operator_id', operator)
      .orderBy([
        { column: 'c.created_at', order: 'desc' },
        { column: 'c.id', order: 'desc' },
      ])
      .limit(q.limit + 1, LIMIT_IN_TEXT);
    if (q.status) callbacks.where('c.callback_status', q.status);
    if (q.type) callbacks.whereRaw(TYPE_RULE[q.type]);
    if (q.freeBet !== undefined)
      callbacks.whereRaw(
        `${q.freeBet ? '' : 'NOT '}EXISTS (SELECT 1 FROM rounds fr WHERE fr.round_id = c.round_id AND fr.created_at = c.round_created_at AND fr.free_bet_campaign_id IS NOT NULL)`,
      );
    if (q.from) callbacks.where('c.created_at', '>=', q.from);
    if (q.to) callbacks.where('c.created_at', '<', q.to);
    if (after) callbacks.where('c.created_at', '<=', after[0]).whereRaw('(c.created_at, c.id) < (?::timestamptz, ?::bigint)', [after[0], after[1]]);
    return db
      .select(db.raw(ROW_COLUMNS))
      .from(callbacks.as('p'))
      .join('rounds as r', function onRound() {
        this.on('r.round_id', '=', 'p.round_id').andOn('r.created_at', '=', 'p.round_created_at');
      })
      .orderBy([
        { column: 'p.created_at', order: 'desc' },
        { column: 'p.id', order: 'desc' },
      ]);
  };
  let query: Knex.QueryBuilder;
  if (q.operatorId) {
    query = onePage(q.operatorId);
    if (q.operatorIds) query.whereIn('p.operator_id', q.operatorIds);
  } else {
    if (q.operatorIds?.length === 0) return null;
    const operators = q.operatorIds
      ? db.raw(`(VALUES ${q.operatorIds.map(() => '(?)').join(', ')}) AS o (operator_id)`, q.operatorIds)
      : db.raw('(SELECT operator_id FROM operators) AS o');
    query = db
      .select('v.*')
      .from(operators)
      .crossJoin(db.raw('LATERAL ? AS v', [onePage(db.raw('o.operator_id'))]))
      .orderBy([
        { column: 'v.created_at', order: 'desc' },
        { column: 'v.id', order: 'desc' },
      ])
      .limit(q.limit + 1, LIMIT_IN_TEXT);
  }
  return query;
}

/**
 * Reconciliation totals (issue 17): per operator and currency, counts and sums of confirmed
 * debits, credits and rollbacks and of unconfirmed credits and rollbacks, free-bet rounds apart
 * from paid ones. A free-bet round has no debit: its `debits` stay 0 (a figure to check). Promo
 * credits (promotions' prizes, issue 30) are a third block, `promo` {credits, creditsPending}.
 */
export async function reconciliationTotals(db: Queryable, q: Pick<ReconciliationQuery, 'operatorId' | 'from' | 'to'>) {
  const [rows, promos] = await Promise.all([callbackTotals(db, q), awardTotals(db, q)]);
  const zero = () => ({ count: 0, amount: 0n });
  type Slot = { count: number; amount: bigint };
  const groups = new Map<
    string,
    {
      operatorId: string;
      currency: CurrencyCode;
      paid: Record<'debits' | 'credits' | 'rollbacks' | 'creditsPending' | 'rollbacksPending', Slot>;
      freeBet: Record<'debits' | 'credits' | 'creditsPending', Slot>;
      promo: Record<'credits' | 'creditsPending', Slot>;
    }
  >();
  const groupOf = (operatorId: string, currency: CurrencyCode) => {
    const id = `${operatorId}\u0000${currency}`;
    let g = groups.get(id);
    if (!g) {
      g = {
        operatorId,
        currency,
        paid: { debits: zero(), credits: zero(), rollbacks: zero(), creditsPending: zero(), rollbacksPending: zero() },
        freeBet: { debits: zero(), credits: zero(), creditsPending: zero() },
        promo: { credits: zero(), creditsPending: zero() },
      };
      groups.set(id, g);
    }
    return g;
  };
  for (const r of rows) {
    const g = groupOf(r.operator_id, r.currency);
    const side = r.free_bet ? g.freeBet : g.paid;
    const key =
      r.callback_status === 'succeeded' ? `${r.operation}s` : r.callback_status === 'pending' && r.operation !== 'debit' ? `${r.operation}sPending` : null;
    const slot = key === null ? undefined : (side as Record<string, Slot | undefined>)[key];
    if (!slot) continue; // failed debits moved no money; a pending debit is on its way to a rollback
    slot.count += Number(r.count);
    slot.amount += toBigInt(String(r.amount ?? '0'));
  }
  for (const p of promos) {
    const slot = groupOf(p.operator_id, p.currency).promo[p.callback_status === 'succeeded' ? 'credits' : 'creditsPending'];
    slot.count += Number(p.count);
    slot.amount += toBigInt(String(p.amount ?? '0'));
  }
  const out = <K extends string>(rec: Record<K, { count: number; amount: bigint }>, currency: CurrencyCode) =>
    Object.fromEntries(
      Object.entries<{ count: number; amount: bigint }>(rec).map(([k, v]) => [k, { count: v.count, amount: amountJson(v.amount, currency) }]),
    ) as Record<K, { count: number; amount: ReturnType<typeof amountJson> }>;
  return {
    totals: [...groups.values()].map((g) => ({
      operatorId: g.operatorId,
      currency: g.currency,
      paid: out(g.paid, g.currency),
      freeBet: out(g.freeBet, g.currency),
      promo: out(g.promo, g.currency),
    })),
  };
}

/**
 * `?promo=true` (issue 30): one row per promo credit (a promotion's prize): `credit`, or
 * `credit_pending` until the casino confirms it; no round (`roundId` and `gameType` null, a drop's
 * winning bet in `sourceRoundId`), `promo: true` with `promoId` and `prize`. Cursor on the award.
 */
async function promoRows(db: Queryable, q: ReconciliationQuery) {
  if (q.cursor && !/^\d{1,18}$/.test(q.cursor)) throw new AppError('VALIDATION_ERROR', 'cursor is not valid');
  if (q.type && q.type !== 'credit' && q.type !== 'credit_pending') return { rows: [], nextCursor: null };
  const status = q.type === 'credit' ? 'succeeded' : q.type === 'credit_pending' ? 'pending' : q.status;
  const all = await awardRows(db, { ...q, limit: q.limit });
  const filtered = status ? all.filter((a) => a.callbackStatus === status) : all;
  const page = filtered.slice(0, q.limit);
  return {
    rows: page.map((a) => ({
      type: a.callbackStatus === 'succeeded' ? ('credit' as const) : ('credit_pending' as const),
      roundId: null,
      operatorId: a.operatorId,
      playerRef: a.playerRef,
      gameType: null,
      amount: amountJson(a.amount, a.currency),
      currency: a.currency,
      casinoTransactionId: a.casinoTransactionId,
      idempotencyKey: a.idempotencyKey,
      status: a.callbackStatus,
      createdAt: a.createdAt,
      promo: true as const,
      promoId: a.promoId,
      prize: a.prize,
      ...(a.roundId ? { sourceRoundId: a.roundId } : {}),
    })),
    nextCursor: all.length > q.limit ? String(all[q.limit - 1]!.id) : null,
  };
}

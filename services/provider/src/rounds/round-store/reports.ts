/**
 * The admin console's and the reconciliation's queries (issue 13): round search and the
 * dashboard's figures, the pending rounds, the callback totals, a free-bet campaign's payouts.
 * Every list is keyset-paginated on an index of migrations/20261125010000 (created_at DESC,
 * round_id DESC; by operator; by player); every figure is one grouped statement over a time range.
 */
import type { Knex } from 'knex';
import type { CurrencyCode } from '@gp/game-core/money';
import type { GameType } from '@gp/game-core/games';
import { type Queryable, toBigInt, toIso, LIMIT_IN_TEXT, sqlLimit } from '../../store/db.js';
import type { RoundStatus } from '../round-status.js';
import { type CallbackOperation, type CallbackStatus, type Round, roundFromRow, type RoundRow } from './rows.js';

export interface RoundSearch {
  roundId?: string | undefined;
  /** The caller's profiles (null: every profile). */
  operatorIds: string[] | null;
  playerRef?: string | undefined;
  gameType?: GameType | undefined;
  status?: RoundStatus | undefined;
  from?: string | undefined;
  to?: string | undefined;
  /** The last row of the previous page: created_at and round_id. */
  after?: { createdAt: string; roundId: string } | undefined;
  limit: number;
}

/**
 * One page of rounds, newest first; `limit + 1` rows are read to know whether another page follows.
 * Read per operator (the caller's profiles, or every operator): each operator's newest rows come in
 * order from its own index, (operator, created_at DESC, round_id DESC) or, with a player, (operator,
 * player, created_at DESC, round_id DESC), and the pages are merged. A round is written into no
 * index across operators (migration 20261128181000: two fewer index entries per round inserted).
 */
export async function searchRounds(db: Queryable, q: RoundSearch): Promise<Round[]> {
  const s = roundSearchSql(db, q);
  const res = (await db.raw(s.sql, s.bindings)) as { rows: RoundRow[] };
  return res.rows.map(roundFromRow);
}

/** The statement of `searchRounds` (test/store/partitions.test.ts EXPLAINs it). */
export function roundSearchSql(db: Queryable, q: RoundSearch): { sql: string; bindings: Knex.Value[] } {
  const limit = q.limit + 1;
  const one = db<RoundRow>('rounds')
    .whereRaw('operator_id = o.operator_id')
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'round_id', order: 'desc' },
    ])
    .limit(limit, LIMIT_IN_TEXT);
  if (q.roundId) one.where('round_id', q.roundId);
  if (q.playerRef) one.where('player_ref', q.playerRef);
  if (q.gameType) one.where('game_type', q.gameType);
  if (q.status) one.where('status', q.status);
  if (q.from) one.where('created_at', '>=', q.from);
  if (q.to) one.where('created_at', '<', q.to);
  if (q.after) one.whereRaw('(created_at, round_id) < (?::timestamptz, ?)', [q.after.createdAt, q.after.roundId]);
  const inner = one.toSQL();
  const operators = q.operatorIds ? `ARRAY[${q.operatorIds.map(() => '?').join(', ')}]::text[]` : 'ARRAY(SELECT operator_id FROM operators)';
  return {
    sql: `SELECT r.* FROM unnest(${operators}) AS o(operator_id) CROSS JOIN LATERAL (${inner.sql}) r ORDER BY r.created_at DESC, r.round_id DESC LIMIT ${sqlLimit(limit)}`,
    bindings: [...(q.operatorIds ?? []), ...(inner.bindings as Knex.Value[])],
  };
}

export interface FigureRange {
  operatorIds: string[] | null;
  from: string;
  to: string;
  /** date_trunc unit of the series */
  bucket: 'minute' | 'hour' | 'day';
}

const scoped = (q: Knex.QueryBuilder, column: string, operatorIds: string[] | null) => (operatorIds ? q.whereIn(column, operatorIds) : q);
/**
 * Every operator, named: a condition for a query over a time range of rounds or callbacks that the
 * caller does not limit to some operators, so the range is read from the (operator, created_at)
 * index of each (neither table has an index on created_at alone: migrations 20261128181000 and
 * 20261128183000).
 */
export const everyOperator = (column: string) => `${column} = ANY(ARRAY(SELECT operator_id FROM operators))`;
/** `scoped` for a figure over a time range: the caller's operators, or every operator named. */
const ranged = (q: Knex.QueryBuilder, column: string, operatorIds: string[] | null) =>
  operatorIds ? q.whereIn(column, operatorIds) : q.whereRaw(everyOperator(column));

/** Rounds opened per time bucket. */
export async function roundsPerBucket(db: Queryable, r: FigureRange): Promise<{ t: string; rounds: number }[]> {
  const q = db('rounds')
    .select(db.raw('date_trunc(?, created_at) AS t', [r.bucket]))
    .count({ n: '*' })
    .where('created_at', '>=', r.from)
    .where('created_at', '<', r.to)
    .groupByRaw('1')
    .orderByRaw('1');
  const rows = (await ranged(q, 'operator_id', r.operatorIds)) as { t: Date | string; n: string | number }[];
  return rows.map((x) => ({ t: toIso(x.t), rounds: Number(x.n) }));
}

/** Confirmed debits, credits and rollbacks per bucket and currency (GGR = stakes − payouts − rollbacks). */
export async function moneyPerBucket(
  db: Queryable,
  r: FigureRange,
): Promise<{ t: string; currency: CurrencyCode; stakes: bigint; payouts: bigint; rollbacks: bigint }[]> {
  const q = db('wallet_callbacks')
    .select(db.raw('date_trunc(?, created_at) AS t', [r.bucket]), 'currency')
    .select(db.raw(`COALESCE(SUM(amount) FILTER (WHERE operation = 'debit'), 0) AS stakes`))
    .select(db.raw(`COALESCE(SUM(amount) FILTER (WHERE operation = 'credit'), 0) AS payouts`))
    .select(db.raw(`COALESCE(SUM(amount) FILTER (WHERE operation = 'rollback'), 0) AS rollbacks`))
    .where('callback_status', 'succeeded')
    .where('created_at', '>=', r.from)
    .where('created_at', '<', r.to)
    .groupByRaw('1, 2')
    .orderByRaw('1, 2');
  const rows = (await ranged(q, 'operator_id', r.operatorIds)) as {
    t: Date | string;
    currency: CurrencyCode;
    stakes: string;
    payouts: string;
    rollbacks: string;
  }[];
  return rows.map((x) => ({ t: toIso(x.t), currency: x.currency, stakes: toBigInt(x.stakes), payouts: toBigInt(x.payouts), rollbacks: toBigInt(x.rollbacks) }));
}

/**
 * Callbacks per operator: how many, how many did not get a 2xx answer (refused, failed, timed out,
 * unanswered), and the latency of answered first attempts (recorded → answered: the time the
 * money path waited for the casino), mean and 95th percentile in milliseconds.
 */
export async function callbackHealth(
  db: Queryable,
  r: FigureRange,
): Promise<{ operatorId: string; callbacks: number; errors: number; meanMs: number | null; p95Ms: number | null }[]> {
  const latency = `EXTRACT(EPOCH FROM (updated_at - created_at)) * 1000`;
  const answeredFirst = `status_code BETWEEN 200 AND 299 AND attempt_count = 1`;
  const q = db('wallet_callbacks')
    .select('operator_id')
    .count({ n: '*' })
    .select(db.raw(`COUNT(*) FILTER (WHERE status_code IS NULL OR status_code NOT BETWEEN 200 AND 299 OR attempt_count > 1) AS errors`))
    .select(db.raw(`AVG(${latency}) FILTER (WHERE ${answeredFirst}) AS mean_ms`))
    .select(db.raw(`percentile_cont(0.95) WITHIN GROUP (ORDER BY ${latency}) FILTER (WHERE ${answeredFirst}) AS p95_ms`))
    .where('created_at', '>=', r.from)
    .where('created_at', '<', r.to)
    .groupBy('operator_id')
    .orderBy('operator_id');
  const rows = (await ranged(q, 'operator_id', r.operatorIds)) as {
    operator_id: string;
    n: string | number;
    errors: string | number;
    mean_ms: string | number | null;
    p95_ms: string | number | null;
  }[];
  const num = (v: string | number | null) => (v === null ? null : Math.round(Number(v) * 10) / 10);
  return rows.map((x) => ({ operatorId: x.operator_id, callbacks: Number(x.n), errors: Number(x.errors), meanMs: num(x.mean_ms), p95Ms: num(x.p95_ms) }));
}

/** Final rounds per game and currency: rounds, total staked and total paid (measured RTP = paid ÷ staked). */
export async function returnPerGame(
  db: Queryable,
  r: FigureRange,
): Promise<{ gameType: GameType; currency: CurrencyCode; rounds: number; staked: bigint; paid: bigint }[]> {
  const q = db('rounds')
    .select('game_type', 'currency')
    .count({ n: '*' })
    .sum({ staked: 'total_staked' })
    .select(db.raw('COALESCE(SUM(payout), 0) AS paid'))
    .whereIn('status', ['settled', 'cashed_out', 'busted'])
    .where('created_at', '>=', r.from)
    .where('created_at', '<', r.to)
    .groupBy('game_type', 'currency')
    .orderBy(['game_type', 'currency']);
  const rows = (await ranged(q, 'operator_id', r.operatorIds)) as {
    game_type: GameType;
    currency: CurrencyCode;
    n: string | number;
    staked: string;
    paid: string;
  }[];
  return rows.map((x) => ({ gameType: x.game_type, currency: x.currency, rounds: Number(x.n), staked: toBigInt(x.staked), paid: toBigInt(x.paid) }));
}

/** Rounds waiting for the wallet (credit_pending, rollback_pending), by operator. */
export async function pendingRoundCounts(db: Queryable, operatorIds: string[] | null): Promise<{ operatorId: string; status: string; rounds: number }[]> {
  const q = db('rounds')
    .select('operator_id', 'status')
    .count({ n: '*' })
    .whereIn(['round_id', 'created_at'], db('rounds_in_flight').select('round_id', 'created_at'))
    .whereIn('status', ['credit_pending', 'rollback_pending'])
    .groupBy('operator_id', 'status');
  const rows = (await scoped(q, 'operator_id', operatorIds)) as { operator_id: string; status: string; n: string | number }[];
  return rows.map((x) => ({ operatorId: x.operator_id, status: x.status, rounds: Number(x.n) }));
}

/** The pending rounds themselves, oldest first (the reconciliation page's "retry now" list). */
export async function pendingRounds(db: Queryable, operatorIds: string[] | null, limit: number): Promise<Round[]> {
  const q = db<RoundRow>('rounds')
    .whereIn(['round_id', 'created_at'], db('rounds_in_flight').select('round_id', 'created_at'))
    .whereIn('status', ['credit_pending', 'rollback_pending'])
    .orderBy('updated_at')
    .limit(limit, LIMIT_IN_TEXT);
  return (await scoped(q, 'operator_id', operatorIds)).map(roundFromRow);
}

/** Free-bet figures of the reconciliation totals: confirmed and pending credits of free-bet rounds, and the paid side, per operator and currency. */
export interface MoneyTotalsRow {
  operator_id: string;
  currency: CurrencyCode;
  free_bet: boolean;
  operation: CallbackOperation;
  callback_status: CallbackStatus;
  count: string | number;
  amount: string | null;
}

/** Sums of wallet callbacks by operator, currency, free bet or paid, operation and status (the reconciliation totals). */
export async function callbackTotals(
  db: Queryable,
  filter: { operatorId?: string | undefined; from?: string | undefined; to?: string | undefined },
): Promise<MoneyTotalsRow[]> {
  const q = db('wallet_callbacks as c')
    .join('rounds as r', 'r.round_id', 'c.round_id')
    .select(
      'c.operator_id',
      'c.currency',
      'c.operation',
      'c.callback_status',
      db.raw('(r.free_bet_campaign_id IS NOT NULL) AS free_bet'),
      db.raw('count(*) AS count'),
      db.raw('sum(c.amount) AS amount'),
    )
    .groupBy('c.operator_id', 'c.currency', 'c.operation', 'c.callback_status', db.raw('(r.free_bet_campaign_id IS NOT NULL)'));
  if (filter.operatorId) q.where('c.operator_id', filter.operatorId);
  else if (filter.from || filter.to) q.whereRaw(everyOperator('c.operator_id'));
  if (filter.from) q.where('c.created_at', '>=', filter.from);
  if (filter.to) q.where('c.created_at', '<', filter.to);
  return (await q) as MoneyTotalsRow[];
}

/** The free-bet rounds of a campaign per player that are still open or settled: used for the campaign view's payout figures. */
export async function campaignPayouts(db: Queryable, campaignId: string): Promise<{ rounds: number; paidOut: bigint; pending: number }> {
  const row = (await db('rounds')
    .where({ free_bet_campaign_id: campaignId })
    .select(
      db.raw('count(*) AS rounds'),
      db.raw(`coalesce(sum(payout) FILTER (WHERE status IN ('settled', 'cashed_out', 'busted')), 0) AS paid_out`),
      db.raw(`count(*) FILTER (WHERE status IN ('credit_pending', 'active')) AS pending`),
    )
    .first()) as { rounds: string | number; paid_out: string | number; pending: string | number };
  return { rounds: Number(row.rounds), paidOut: toBigInt(String(row.paid_out)), pending: Number(row.pending) };
}

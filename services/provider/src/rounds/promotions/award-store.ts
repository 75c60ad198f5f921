/**
 * Data access for promotion awards (issue 30): one row per prize won, which is also the record of
 * its promo credit — written (committed) before the credit is sent, claimed one at a time with
 * FOR UPDATE SKIP LOCKED and a lease, its result stored with each attempt. UNIQUE (promo_id,
 * prize) and UNIQUE idempotency_key: a prize is awarded once and its credit has one key.
 */
import type { CurrencyCode } from '@gp/game-core/money';
import { toBigInt, toIso, type Queryable, LIMIT_IN_TEXT } from '../../store/db.js';

export interface Award {
  id: string;
  promoId: string;
  prize: number;
  operatorId: string;
  playerRef: string;
  amount: bigint;
  currency: CurrencyCode;
  score: string | null;
  roundId: string | null;
  seq: number | null;
  idempotencyKey: string;
  path: string;
  requestBody: string;
  requestBodyEnc: string;
  callbackStatus: 'pending' | 'succeeded';
  attemptCount: number;
  statusCode: number | null;
  responseBody: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  casinoTransactionId: string | null;
  createdAt: string;
  confirmedAt: string | null;
}

interface AwardRow {
  id: string | number;
  promo_id: string;
  prize: number;
  operator_id: string;
  player_ref: string;
  amount: string;
  currency: CurrencyCode;
  score: string | null;
  round_id: string | null;
  seq: number | null;
  idempotency_key: string;
  path: string;
  request_body: string;
  request_body_enc: string;
  callback_status: 'pending' | 'succeeded';
  attempt_count: number;
  status_code: number | null;
  response_body: string | null;
  error_code: string | null;
  error_message: string | null;
  casino_transaction_id: string | null;
  created_at: Date | string;
  confirmed_at: Date | string | null;
}

const fromRow = (r: AwardRow): Award => ({
  id: String(r.id),
  promoId: r.promo_id,
  prize: r.prize,
  operatorId: r.operator_id,
  playerRef: r.player_ref,
  amount: toBigInt(r.amount),
  currency: r.currency,
  score: r.score,
  roundId: r.round_id,
  seq: r.seq,
  idempotencyKey: r.idempotency_key,
  path: r.path,
  requestBody: r.request_body,
  requestBodyEnc: r.request_body_enc,
  callbackStatus: r.callback_status,
  attemptCount: r.attempt_count,
  statusCode: r.status_code,
  responseBody: r.response_body,
  errorCode: r.error_code,
  errorMessage: r.error_message,
  casinoTransactionId: r.casino_transaction_id,
  createdAt: toIso(r.created_at),
  confirmedAt: r.confirmed_at === null ? null : toIso(r.confirmed_at),
});

export type NewAward = Pick<
  Award,
  | 'promoId'
  | 'prize'
  | 'operatorId'
  | 'playerRef'
  | 'amount'
  | 'currency'
  | 'score'
  | 'roundId'
  | 'seq'
  | 'idempotencyKey'
  | 'path'
  | 'requestBody'
  | 'requestBodyEnc'
>;

/** Writes awards; one already written for a prize stays as it is (a second writer changes nothing). */
export async function insertAwards(db: Queryable, awards: NewAward[]): Promise<void> {
  if (awards.length === 0) return;
  await db('promotion_awards')
    .insert(
      awards.map((a) => ({
        promo_id: a.promoId,
        prize: a.prize,
        operator_id: a.operatorId,
        player_ref: a.playerRef,
        amount: a.amount.toString(),
        currency: a.currency,
        score: a.score,
        round_id: a.roundId,
        seq: a.seq,
        idempotency_key: a.idempotencyKey,
        path: a.path,
        request_body: a.requestBody,
        request_body_enc: a.requestBodyEnc,
      })),
    )
    .onConflict(['promo_id', 'prize'])
    .ignore();
}

export async function awardsOf(db: Queryable, promoId: string): Promise<Award[]> {
  return ((await db('promotion_awards').where({ promo_id: promoId }).orderBy('prize')) as AwardRow[]).map(fromRow);
}

export async function awardByKey(db: Queryable, key: string): Promise<Award | null> {
  const r = (await db('promotion_awards').where({ idempotency_key: key }).first()) as AwardRow | undefined;
  return r ? fromRow(r) : null;
}

/** A player's awards of the last `hours` (the game page's "you won" notice). */
export async function recentAwardsOfPlayer(db: Queryable, operatorId: string, playerRef: string, hours: number): Promise<Award[]> {
  const rows = (await db('promotion_awards')
    .where({ operator_id: operatorId, player_ref: playerRef })
    .andWhereRaw(`created_at > now() - make_interval(hours => ?)`, [hours])
    .orderBy('created_at', 'desc')
    .limit(20, LIMIT_IN_TEXT)) as AwardRow[];
  return rows.map(fromRow);
}

/** Claims one pending award whose retry is due (or given by id), leasing it; null when none. */
export async function claimDueAward(
  db: Queryable,
  leaseUntil: Date,
  opts: { operatorId?: string | undefined; awardId?: string | undefined; notOperators?: string[]; ignoreBackoff?: boolean } = {},
): Promise<Award | null> {
  const skip = opts.notOperators ?? [];
  const res = await db.raw(
    `UPDATE promotion_awards SET lease_until = ?, updated_at = now()
      WHERE id = (SELECT id FROM promotion_awards
                   WHERE callback_status = 'pending' AND (lease_until IS NULL OR lease_until < now())
                     ${opts.ignoreBackoff ? '' : 'AND (next_retry_at IS NULL OR next_retry_at <= now())'}
                     ${opts.operatorId ? 'AND operator_id = ?' : ''} ${opts.awardId ? 'AND id = ?' : ''} ${skip.length ? `AND operator_id NOT IN (${skip.map(() => '?').join(',')})` : ''}
                   ORDER BY next_retry_at NULLS FIRST, id LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    [leaseUntil, ...(opts.operatorId ? [opts.operatorId] : []), ...(opts.awardId ? [opts.awardId] : []), ...skip],
  );
  const r = (res.rows as AwardRow[])[0];
  return r ? fromRow(r) : null;
}

/** Gives a claimed award back untried (its operator's casino is not answering now). */
export async function releaseAward(db: Queryable, id: string): Promise<void> {
  await db('promotion_awards').where({ id }).update({ lease_until: null });
}

export interface AwardResult {
  status: 'pending' | 'succeeded';
  attempts: number;
  statusCode: number | null;
  responseBody: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  casinoTransactionId: string | null;
}

/** Stores an attempt's result; a pending award waits `backoffSeconds[retry_attempts]` (the last repeats) before its next try. */
export async function recordAwardResult(db: Queryable, id: string, r: AwardResult, backoffSeconds: number[]): Promise<void> {
  const arr = `ARRAY[${backoffSeconds.map(() => '?::int').join(',')}]`;
  await db.raw(
    `UPDATE promotion_awards SET
        callback_status = CASE WHEN callback_status = 'succeeded' THEN callback_status ELSE ? END,
        confirmed_at = CASE WHEN callback_status = 'succeeded' THEN confirmed_at WHEN ? = 'succeeded' THEN now() ELSE NULL END,
        attempt_count = attempt_count + ?, status_code = ?, response_body = ?, error_code = ?, error_message = ?,
        casino_transaction_id = COALESCE(?, casino_transaction_id),
        retry_attempts = retry_attempts + 1,
        next_retry_at = now() + make_interval(secs => (${arr})[LEAST(retry_attempts + 1, ?)]),
        lease_until = NULL, updated_at = now()
      WHERE id = ?`,
    [
      r.status,
      r.status,
      r.attempts,
      r.statusCode,
      r.responseBody,
      r.errorCode,
      r.errorMessage,
      r.casinoTransactionId,
      ...backoffSeconds,
      backoffSeconds.length,
      id,
    ],
  );
}

/** Totals of promo credits per operator and currency (reconciliation totals, GGR reports). */
export async function awardTotals(
  db: Queryable,
  q: { operatorId?: string | undefined; operatorIds?: string[] | null | undefined; from?: string | undefined; to?: string | undefined },
) {
  const query = db('promotion_awards')
    .select('operator_id', 'currency', 'callback_status')
    .count({ count: '*' })
    .sum({ amount: 'amount' })
    .groupBy('operator_id', 'currency', 'callback_status');
  if (q.operatorId) query.where('operator_id', q.operatorId);
  if (q.operatorIds) query.whereIn('operator_id', q.operatorIds);
  if (q.from) query.where('created_at', '>=', q.from);
  if (q.to) query.where('created_at', '<', q.to);
  return (await query) as unknown as {
    operator_id: string;
    currency: CurrencyCode;
    callback_status: 'pending' | 'succeeded';
    count: string | number;
    amount: string | null;
  }[];
}

/** Promo credits per UTC day (of the award), operator, currency and credit state: the console's reconciliation totals. */
export async function awardTotalsByDay(db: Queryable, q: { operatorIds?: string[] | null | undefined; from?: string | undefined; to?: string | undefined }) {
  const query = db('promotion_awards')
    .select(db.raw(`to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day`), 'operator_id', 'currency', 'callback_status')
    .count({ count: '*' })
    .sum({ amount: 'amount' })
    .groupByRaw('1, 2, 3, 4');
  if (q.operatorIds) query.whereIn('operator_id', q.operatorIds);
  if (q.from) query.where('created_at', '>=', q.from);
  if (q.to) query.where('created_at', '<', q.to);
  return (await query) as unknown as {
    day: string;
    operator_id: string;
    currency: CurrencyCode;
    callback_status: 'pending' | 'succeeded';
    count: string | number;
    amount: string | null;
  }[];
}

/** Awards per operator and credit state, for /metrics (gp_promo_credits). */
export async function awardCountsByOperator(db: Queryable): Promise<{ operatorId: string; state: 'credited' | 'pending'; count: number }[]> {
  const rows = (await db('promotion_awards')
    .select('operator_id', 'callback_status')
    .count({ count: '*' })
    .groupBy('operator_id', 'callback_status')) as unknown as { operator_id: string; callback_status: string; count: string | number }[];
  return rows.map((r) => ({ operatorId: r.operator_id, state: r.callback_status === 'succeeded' ? 'credited' : 'pending', count: Number(r.count) }));
}

export interface AwardRowsQuery {
  operatorId?: string | undefined;
  operatorIds?: string[] | null | undefined;
  from?: string | undefined;
  to?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

/** Promo credits as reconciliation rows, newest first, cursor on the award id. */
export async function awardRows(db: Queryable, q: AwardRowsQuery): Promise<Award[]> {
  const query = db('promotion_awards')
    .orderBy('id', 'desc')
    .limit(q.limit + 1, LIMIT_IN_TEXT);
  if (q.operatorId) query.where('operator_id', q.operatorId);
  if (q.operatorIds) query.whereIn('operator_id', q.operatorIds);
  if (q.from) query.where('created_at', '>=', q.from);
  if (q.to) query.where('created_at', '<', q.to);
  if (q.cursor) query.where('id', '<', q.cursor);
  return ((await query) as AwardRow[]).map(fromRow);
}

/** Confirmed promo credits per UTC day, operator and currency (the GGR report's `promoPayouts`, apart from the games). */
export async function confirmedAwardsByDay(db: Queryable, q: { operatorId?: string | undefined; from: string; to: string }) {
  const day = `to_char(date_trunc('day', confirmed_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD')`;
  const query = db('promotion_awards')
    .select(db.raw(`${day} AS day`), 'operator_id', 'currency')
    .count({ count: '*' })
    .sum({ amount: 'amount' })
    .where('callback_status', 'succeeded')
    .where('confirmed_at', '>=', q.from)
    .where('confirmed_at', '<', q.to)
    .groupByRaw('1, 2, 3')
    .orderByRaw('1 DESC, 2, 3')
    .limit(5000, LIMIT_IN_TEXT);
  if (q.operatorId) query.where('operator_id', q.operatorId);
  return (await query) as unknown as { day: string; operator_id: string; currency: CurrencyCode; count: string | number; amount: string }[];
}

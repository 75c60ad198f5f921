/**
 * Data access for the `idempotency_records` table (issue 24 item 3: each table is written by one
 * module). round-store owns the table: the hot path claims a key in the statement that opens the
 * round (`writes.ts`), the retention purges old records (`work.ts`), and what `rounds/idempotency.ts`
 * decides (claim a key inside a transaction, store an answer, find a record, close an interrupted
 * action's keys) is written here.
 */
import type { Knex } from 'knex';
import { isUniqueViolation, type Queryable, type Tx } from '../../store/db.js';
import { stringifyJson } from '../../infra/json.js';
import { callbackCreatedAt } from './reads.js';

/** One key of one session of one operator. */
export interface KeyScope {
  operatorId: string;
  sessionId: string;
  key: string;
  requestHash: string;
}

export interface IdempotencyRecordRow {
  id: string | number;
  request_hash: string;
  round_id: string | null;
  state: 'in_progress' | 'completed';
  response_status: number | null;
  response_body: unknown;
  response_round_status: string | null;
}

/** Inserts the claim of a key inside the caller's transaction (a unique violation when it is taken). */
export async function insertKeyClaim(tx: Tx, scope: KeyScope, roundId: string): Promise<void> {
  await tx('idempotency_records').insert({
    operator_id: scope.operatorId,
    session_id: scope.sessionId,
    idempotency_key: scope.key,
    request_hash: scope.requestHash,
    session_at: sessionAt(tx, scope.sessionId),
    round_id: roundId,
  });
}

/**
 * The time of a key's partition: its session's start (migration 20261129100000). Every statement
 * that names a key names it too, so PostgreSQL reads one partition.
 */
const sessionAt = (db: Queryable, sessionId: string) => db.raw('gp_session_time(?::text)', [sessionId]);

/** The key's row: its session, key and session time (the partition). */
const keyRow = (db: Queryable, scope: KeyScope) => (q: Knex.QueryBuilder) => {
  void q
    .where({ operator_id: scope.operatorId, session_id: scope.sessionId, idempotency_key: scope.key })
    .andWhere('session_at', '=', sessionAt(db, scope.sessionId));
};

/**
 * A unique violation on a key: the parent's primary key or a partition's
 * (`idempotency_records_<week>_pkey`, `idempotency_records_legacy_pkey`).
 */
export function isKeyViolation(err: unknown): boolean {
  if (!isUniqueViolation(err)) return false;
  const e = err as { constraint?: string; message?: string };
  return KEY_INDEX.test(e.constraint ?? '') || KEY_INDEX.test(e.message ?? '');
}
const KEY_INDEX = /\bidempotency_records_(?:(?:legacy|\d{4}_\d{2}_\d{2})_)?pkey\b/;

/** Stores the answer of a key still in progress. */
export async function storeKeyAnswer(db: Queryable, scope: KeyScope, answer: { status: number; body: unknown; roundStatus: string | null }): Promise<void> {
  await db('idempotency_records')
    .where(keyRow(db, scope))
    .andWhere({ state: 'in_progress' })
    .update({
      state: 'completed',
      response_status: answer.status,
      response_body: stringifyJson(answer.body),
      response_round_status: answer.roundStatus,
      completed_at: db.fn.now(),
    });
}

/** The lookup of a key (a retry, a duplicate): its session's partition only. */
export const keyRecordQuery = (db: Queryable, scope: KeyScope): Knex.QueryBuilder => db('idempotency_records').where(keyRow(db, scope)).first();

export async function findKeyRecord(db: Queryable, scope: KeyScope): Promise<IdempotencyRecordRow | undefined> {
  const row = (await keyRecordQuery(db, scope)) as IdempotencyRecordRow | undefined;
  return row;
}

/**
 * The keys still in progress that were claimed at the same database time as the extra debit
 * `callbackKey` of `roundId`. Rare (a worker stopped mid extra debit): the request's session may be
 * another than the round's, so every partition is read.
 */
export async function keysClaimedWithCallback(db: Queryable, roundId: string, callbackKey: string): Promise<KeyScope[]> {
  const records: { operator_id: string; session_id: string; idempotency_key: string; request_hash: string }[] = await db('idempotency_records')
    .where({ round_id: roundId, state: 'in_progress' })
    .andWhere('created_at', '=', callbackCreatedAt(db, callbackKey))
    .select('operator_id', 'session_id', 'idempotency_key', 'request_hash');
  return records.map((r) => ({ operatorId: r.operator_id, sessionId: r.session_id, key: r.idempotency_key, requestHash: r.request_hash }));
}

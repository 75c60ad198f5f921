/**
 * What the retry job claims (rounds waiting for the wallet, interrupted and abandoned rounds, extra
 * debits' rollbacks), with a lease and `FOR UPDATE SKIP LOCKED`; the idempotency records' retention
 * (their weeks dropped, the legacy partition's old records deleted);
 * the open rounds the metrics count.
 */
import type { Knex } from 'knex';
import type { GameType } from '@gp/game-core/games';
import { LIMIT_IN_TEXT, sqlLimit, type Queryable } from '../../store/db.js';
import { FINAL_STATUSES, type RoundStatus } from '../round-status.js';
import { loadTimePartitions } from './partitions.js';
import { type Callback, callbackFromRow, type CallbackRow, type Round, roundFromRow, type RoundRow } from './rows.js';

/**
 * Retention of the idempotency records of sessions from before their partitioning (issue 14 item
 * 4; migration 20261129100000): removes the records of the legacy partition older than
 * `olderThan` whose work is over (their round is final, or they have none), `batch` rows a
 * statement and at most `maxBatches` statements a call; with `operatorId` only that operator's. A
 * record of a round not final yet stays whatever its age. Answers how many were removed. The
 * records of every later session go a week at a time (dropIdempotencyWeeks).
 */
/**
 * One statement of the legacy records' retention: `batch` records older than the first binding (of
 * the operator of the second and third, or every operator's) whose round is final or gone. The
 * records are found by `created_at`'s index on the partition (migration 20261207000000): a pass
 * reads what it removes, not the partition (test/store/legacy-purge-plan.test.ts).
 */
export function legacyPurgeSql(batch: number): string {
  return `DELETE FROM idempotency_records_legacy WHERE ctid = ANY(ARRAY(
        SELECT k.ctid FROM idempotency_records_legacy k LEFT JOIN rounds r ON r.round_id = k.round_id
        WHERE k.created_at < ? AND (?::text IS NULL OR k.operator_id = ?)
          AND (r.round_id IS NULL OR r.status IN (${FINAL_LIST}))
        LIMIT ${sqlLimit(batch)}))`;
}

export async function purgeLegacyIdempotencyRecords(
  db: Queryable,
  opts: { olderThan: Date; operatorId?: string | undefined; batch?: number; maxBatches?: number },
): Promise<number> {
  const batch = opts.batch ?? 5_000;
  let removed = 0;
  for (let i = 0; i < (opts.maxBatches ?? 20); i++) {
    const res = (await db.raw(legacyPurgeSql(batch), [opts.olderThan, opts.operatorId ?? null, opts.operatorId ?? null])) as {
      rowCount?: number;
      affectedRows?: number;
    };
    const n = res.rowCount ?? res.affectedRows ?? 0;
    removed += n;
    if (n < batch) break;
  }
  return removed;
}

/**
 * Retention of idempotency records (migration 20261129100000): drops the weeks of sessions that
 * began before `now − sessionMaxMs − retentionMs`, whole (gp_drop_idempotency_partitions, every
 * operator's). A key is only presented by its own session, which the service refuses
 * SESSION_MAX_HOURS after it began: every record of such a week is older than the retention period
 * (IDEMPOTENCY_RETENTION_HOURS) and no live session can present it. Answers how many weeks went.
 */
export async function dropIdempotencyWeeks(db: Queryable, opts: { now?: Date; sessionMaxMs: number; retentionMs: number }): Promise<number> {
  const before = new Date((opts.now ?? new Date()).getTime() - opts.sessionMaxMs - opts.retentionMs);
  const res = (await db.raw('SELECT gp_drop_idempotency_partitions(?::timestamptz) AS dropped', [before])) as { rows?: { dropped: number }[] };
  const dropped = Number(res.rows?.[0]?.dropped ?? 0);
  if (dropped > 0) await loadTimePartitions(db);
  return dropped;
}

/**
 * Creates the months of rounds and wallet callbacks up to `ahead` from now (migration
 * 20261128131000: gp_ensure_time_partitions, idempotent, serialised by an advisory lock), and the
 * weeks of idempotency records up to 8 days ahead (migration 20261129100000). Run at start and by
 * the maintenance pass, so the month a bet falls in and the week a session begins in always exist.
 */
export async function ensureTimePartitions(db: Queryable, ahead = '1 month'): Promise<number> {
  const res = (await db.raw('SELECT gp_ensure_time_partitions(?::interval) AS made', [ahead])) as { rows?: { made: number }[] };
  const made = Number(res.rows?.[0]?.made ?? 0);
  if (made > 0) await loadTimePartitions(db);
  return made;
}

const FINAL_LIST = FINAL_STATUSES.map((s) => `'${s}'`).join(', ');

export interface WorkFilter {
  operatorId?: string | undefined;
  playerRef?: string | undefined;
  /** One round only (the admin console's "retry now"). */
  roundId?: string | undefined;
  limit: number;
}

/**
 * What the retry job claims:
 *  - `wallet`: rounds waiting for a wallet retry (`credit_pending`, `rollback_pending`) and rounds
 *    whose worker died mid-debit (`debit_requested` past its lease);
 *  - `interrupted`: active Blackjack rounds whose lease ran out (a worker stopped mid extra debit);
 *  - `abandoned`: active rounds of one game of one operator idle since `idleSince`.
 */
export type Work = { kind: 'wallet' } | { kind: 'interrupted' } | { kind: 'abandoned'; operatorId: string; gameType: GameType; idleSince: Date };

/**
 * Claims up to `filter.limit` rounds for `work` with a lease until `lease` (FOR UPDATE SKIP
 * LOCKED: two callers at once never take the same round). A round with a live lease is never
 * taken. `interrupted` rounds also get a new version (their extra debits are resolved next).
 */
export async function claimRoundsForWork(db: Knex, work: Work, filter: WorkFilter, lease: Date): Promise<Round[]> {
  if (filter.limit <= 0) return [];
  return db.transaction(async (tx) => {
    // the rounds in flight joined on (round_id, created_at): only the months holding one are read (run-time pruning)
    const ids = tx('rounds_in_flight as f')
      .join('rounds as r', (j) => {
        j.on('r.round_id', 'f.round_id').andOn('r.created_at', 'f.created_at');
      })
      .select('r.round_id')
      .orderBy('r.updated_at')
      .limit(filter.limit, LIMIT_IN_TEXT)
      .forUpdate('r')
      .skipLocked();
    // (knex builders are thenables: the callbacks build and return nothing, so nothing looks like an unawaited promise)
    const leaseFree = (q: Knex.QueryBuilder): void => {
      q.whereNull('lease_until').orWhere('lease_until', '<', tx.fn.now());
    };
    if (work.kind === 'wallet') {
      ids.where((q: Knex.QueryBuilder) => {
        q.where((p: Knex.QueryBuilder) => {
          p.whereIn('status', ['credit_pending', 'rollback_pending']).andWhere(leaseFree);
        }).orWhere((p: Knex.QueryBuilder) => {
          // a debit_requested round is only taken over once its worker's lease ran out
          p.where('status', 'debit_requested').whereNotNull('lease_until').andWhere('lease_until', '<', tx.fn.now());
        });
      });
    } else if (work.kind === 'interrupted') {
      ids.where({ game_type: 'blackjack', status: 'active' }).whereNotNull('lease_until').andWhere('lease_until', '<', tx.fn.now());
    } else {
      ids.where({ operator_id: work.operatorId, game_type: work.gameType, status: 'active' }).andWhere('updated_at', '<', work.idleSince).andWhere(leaseFree);
    }
    if (filter.operatorId) ids.andWhere('operator_id', filter.operatorId);
    if (filter.playerRef) ids.andWhere('player_ref', filter.playerRef);
    if (filter.roundId) ids.andWhere('r.round_id', filter.roundId);
    const change: Record<string, unknown> = { lease_until: lease };
    if (work.kind === 'interrupted') change.version = tx.raw('version + 1');
    const rows = await tx('rounds').whereIn('round_id', ids).update(change).returning('*');
    return rows.map((r) => roundFromRow(r as RoundRow));
  });
}

/**
 * The query of `pendingExtraDebitRollbacks`. The partial index wallet_callbacks_extra_rollbacks
 * (migration 20261128130000) holds only extra debits' rollbacks; its predicate is written into the
 * SQL as constants, not parameters: a plan PostgreSQL caches for parameters (a generic plan) cannot
 * prove a parameter matches the predicate, and read every callback of the history instead (found by
 * the 10-million-round run: 35 s a call; docs/performance.md).
 */
export function pendingExtraDebitRollbacksQuery(db: Queryable, filter: WorkFilter) {
  const q = db<CallbackRow>('wallet_callbacks').whereRaw(
    "operation = 'rollback' AND purpose IN ('insurance', 'double', 'split') AND callback_status = 'pending'",
  );
  if (filter.operatorId) q.where('operator_id', filter.operatorId);
  if (filter.playerRef) q.where('player_ref', filter.playerRef);
  if (filter.roundId) q.where('round_id', filter.roundId);
  return q.orderBy('id').limit(filter.limit, LIMIT_IN_TEXT);
}

/** Rollbacks of Blackjack extra debits (insurance, double, split) the casino has not confirmed yet. */
export async function pendingExtraDebitRollbacks(db: Queryable, filter: WorkFilter): Promise<Callback[]> {
  if (filter.limit <= 0) return [];
  const rows = (await pendingExtraDebitRollbacksQuery(db, filter)) as CallbackRow[];
  return rows.map(callbackFromRow);
}

/* ------------------------------------------------------------------ metrics */

export interface OpenRoundCount {
  operatorId: string;
  gameType: GameType;
  status: RoundStatus;
  count: number;
}

/**
 * The rounds that are not final, counted per operator, game and status (the metrics' pending
 * retries and open rounds; served by the index on status).
 */
export async function countOpenRounds(db: Queryable): Promise<OpenRoundCount[]> {
  const rows: { operator_id: string; game_type: GameType; status: RoundStatus; n: string | number }[] = await db('rounds')
    .select('operator_id', 'game_type', 'status')
    .count({ n: '*' })
    .whereIn(['round_id', 'created_at'], db('rounds_in_flight').select('round_id', 'created_at'))
    .whereIn('status', ['active', 'debit_requested', 'credit_pending', 'rollback_pending'])
    .groupBy('operator_id', 'game_type', 'status');
  return rows.map((r) => ({ operatorId: r.operator_id, gameType: r.game_type, status: r.status, count: Number(r.n) }));
}

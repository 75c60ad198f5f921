/**
 * The writes a round needs on its hot path, one statement a step. Every status change is a
 * conditional update (`WHERE status = <expected>`, and the version for active rounds): two pods
 * never apply one step twice, and the database refuses to change a final round (migrations/
 * trigger). A settled bet is three statements, each its own transaction (data-modifying CTEs run
 * together and atomically): open (nonce + round + debit recorded + the request's idempotency
 * key: round-opening.ts), then once the debit is confirmed (its result + the player's balance + the result fixed +
 * the credit recorded), then once the credit is answered (its result + the balance + the final
 * status + the request's stored answer). Every rule the separate statements held still holds: the
 * same conditional updates, the same unique keys, the same triggers. A statement returns only what
 * it decides (a version, a status, the database's times); the rest of the round is what the caller
 * holds and the statement wrote (docs/performance.md "the sixth session").
 */
import { hotQuery, type Queryable, toIso } from '../../store/db.js';
import type { CloseStatus, RoundStatus } from '../round-status.js';
import {
  roundAt,
  roundAtIn,
  roundAtValues,
  type BalanceReport,
  type Callback,
  callbackRecorded,
  type CallbackResult,
  callbackValues,
  insertCallbackFrom,
  type KeyAnswer,
  type KeyClaim,
  multiplierToColumn,
  type NewCallback,
  resultCtes,
  type Round,
  roundFromRow,
  type RoundRow,
} from './rows.js';
import { keyTable, type KeyTable, roundTables } from './partitions.js';

/**
 * The CTE `k` that claims a request's key (completed with its answer, when given), in the partition
 * of its session's start (migration 20261129100000: `session_at` is the session id's time).
 */
export function claimKeyCte(db: Queryable, c: KeyClaim, answer?: { body: string; roundStatus: string }): { sql: string; values: unknown[]; tag: string } {
  const t = keyTable(db, c.sessionId);
  const values: unknown[] = [c.operatorId, c.sessionId, c.key, c.requestHash, c.sessionId];
  if (!answer) {
    return {
      sql: `, k AS (INSERT INTO ${t.records} (operator_id, session_id, idempotency_key, request_hash, session_at, round_id) SELECT ?, ?, ?, ?, gp_session_time(?::text), r.round_id FROM r RETURNING id)`,
      values,
      tag: t.tag,
    };
  }
  values.push(answer.body, answer.roundStatus);
  return {
    sql: `, k AS (
      INSERT INTO ${t.records} (operator_id, session_id, idempotency_key, request_hash, session_at, round_id, state, response_status, response_body, response_round_status, completed_at)
      SELECT ?, ?, ?, ?, gp_session_time(?::text), r.round_id, 'completed', 200, ?::jsonb, ?, now() FROM r RETURNING id
    )`,
    values,
    tag: t.tag,
  };
}

/** The CTE `k` that stores the answer of a key still in progress once the round `r` moved, in its session's partition (`t`: where it is written). */
export function answerKeyCte(db: Queryable, a: KeyAnswer, t: KeyTable = keyTable(db, a.claim.sessionId)): { sql: string; values: unknown[]; tag: string } {
  // in the week's own partition the key finds the record (one session, one time: idempotency_records_session_time)
  const at = t.named ? '' : ' AND session_at = gp_session_time(?::text)';
  return {
    sql: `, k AS (
      UPDATE ${t.records} SET state = 'completed', response_status = 200, response_body = ?::jsonb, response_round_status = ?, completed_at = now()
      WHERE operator_id = ? AND session_id = ? AND idempotency_key = ?${at} AND state = 'in_progress' AND EXISTS (SELECT 1 FROM r)
    )`,
    values: [a.body, a.roundStatus, a.claim.operatorId, a.claim.sessionId, a.claim.key, ...(t.named ? [] : [a.claim.sessionId])],
    tag: t.tag,
  };
}

export interface RoundChange {
  status?: RoundStatus;
  state?: unknown;
  result?: unknown;
  multiplier4?: bigint;
  payout?: bigint;
  closeStatus?: CloseStatus;
  totalStaked?: bigint;
  errorCode?: string | null;
  errorMessage?: string | null;
  leaseUntil?: Date | null;
  settled?: boolean;
  bumpVersion?: boolean;
}

/**
 * Applies `change` when the round is still in `expected` status (and at `version`, when given).
 * Answers the updated round, or null when another worker got there first.
 */
export async function updateRound(
  db: Queryable,
  roundId: string,
  expected: RoundStatus | RoundStatus[],
  change: RoundChange,
  version?: number,
): Promise<Round | null> {
  const patch: Record<string, unknown> = { updated_at: db.fn.now() };
  if (change.status !== undefined) patch.status = change.status;
  if (change.state !== undefined) patch.state = JSON.stringify(change.state);
  if (change.result !== undefined) patch.result = JSON.stringify(change.result);
  if (change.multiplier4 !== undefined) patch.multiplier = multiplierToColumn(change.multiplier4);
  if (change.payout !== undefined) patch.payout = change.payout.toString();
  if (change.closeStatus !== undefined) patch.close_status = change.closeStatus;
  if (change.totalStaked !== undefined) patch.total_staked = change.totalStaked.toString();
  if (change.errorCode !== undefined) patch.error_code = change.errorCode;
  if (change.errorMessage !== undefined) patch.error_message = change.errorMessage;
  if (change.leaseUntil !== undefined) patch.lease_until = change.leaseUntil;
  if (change.settled) patch.settled_at = db.fn.now();
  if (change.bumpVersion) patch.version = db.raw('version + 1');
  const q = db<RoundRow>('rounds')
    .where({ round_id: roundId })
    .whereRaw(roundAt('created_at'), roundAtValues(roundId))
    .whereIn('status', Array.isArray(expected) ? expected : [expected]);
  if (version !== undefined) q.andWhere({ version });
  const rows = await q.update(patch).returning('*');
  return rows[0] ? roundFromRow(rows[0] as RoundRow) : null;
}

/**
 * Sets (or ends, with null) the lease of an active round still at `round.version`; with
 * `bumpVersion` the claim also bumps the version, so a request that read the round before cannot
 * write it. Answers the round, or null when it moved on.
 */
export async function leaseActiveRound(
  db: Queryable,
  round: Pick<Round, 'roundId' | 'version'>,
  lease: Date | null,
  bumpVersion: boolean,
): Promise<Round | null> {
  const rows = await db('rounds')
    .where({ round_id: round.roundId, status: 'active', version: round.version })
    .whereRaw(roundAt('created_at'), roundAtValues(round.roundId))
    .update({ lease_until: lease, ...(bumpVersion ? { version: db.raw('version + 1') } : {}) })
    .returning('*');
  return rows[0] ? roundFromRow(rows[0] as RoundRow) : null;
}

/** An active round kept open by the abandoned-round policy: its idle clock starts again. */
export async function restartIdleClock(db: Queryable, roundId: string): Promise<void> {
  await db('rounds').where({ round_id: roundId, status: 'active' }).whereRaw(roundAt('created_at'), roundAtValues(roundId)).update({ updated_at: db.fn.now() });
}

/**
 * A step of an active round that moves no money (a Mines reveal, a Blackjack hit or stand), in
 * one statement: the new state (and total stake) when the round is still `active` at `version`
 * (the version bumped), and the request's key stored with its answer. Null when
 * the round moved on: nothing was written. A unique violation (the key taken) aborts the whole statement.
 */
export async function advanceActiveRound(
  db: Queryable,
  a: { roundId: string; version: number; state: unknown; totalStaked?: bigint; answer: KeyAnswer },
): Promise<Round | null> {
  const k = a.answer;
  const t = roundTables(db, a.roundId);
  const at = roundAtIn(t, 'created_at', a.roundId);
  const values: unknown[] = [JSON.stringify(a.state), a.totalStaked === undefined ? null : a.totalStaked.toString(), a.roundId, ...at.values, a.version];
  const claim = claimKeyCte(db, k.claim, k);
  values.push(...claim.values);
  const sql = `WITH r AS (
      UPDATE ${t.rounds} SET state = ?::jsonb, total_staked = COALESCE(?::numeric, total_staked), version = version + 1, updated_at = now()
      WHERE round_id = ?${at.sql} AND status = 'active' AND version = ? RETURNING *
    )${claim.sql}
    SELECT r.* FROM r`;
  const res = await hotQuery(db, `gp_advance_active${t.tag}${claim.tag}`, sql, values);
  const row = (res.rows as RoundRow[])[0];
  return row ? roundFromRow(row) : null;
}

/**
 * A round's result fixed in one statement (`from` → `credit_pending`, at `version` when given,
 * the version bumped, leased until `change.leaseUntil`), its one credit recorded and, with
 * `claim`, the request's key claimed. Null when the round was no longer in `from` (at `version`):
 * nothing was written. A unique violation (the key taken, a second credit) aborts the whole statement.
 */
export async function closeRoundWithCredit(
  db: Queryable,
  c: {
    roundId: string;
    from: RoundStatus[];
    version?: number;
    change: { result: unknown; state?: unknown; multiplier4: bigint; payout: bigint; closeStatus: CloseStatus; totalStaked?: bigint; leaseUntil: Date };
    credit: NewCallback;
    claim: KeyClaim | null;
  },
): Promise<{ round: Round; credit: Callback } | null> {
  const ch = c.change;
  const t = roundTables(db, c.roundId);
  const at = roundAtIn(t, 'created_at', c.roundId);
  const values: unknown[] = [
    JSON.stringify(ch.result),
    ch.state === undefined ? null : JSON.stringify(ch.state),
    multiplierToColumn(ch.multiplier4),
    ch.payout.toString(),
    ch.closeStatus,
    ch.totalStaked === undefined ? null : ch.totalStaked.toString(),
    ch.leaseUntil,
    c.roundId,
    ...at.values,
    `{${c.from.join(',')}}`, // an array literal: statuses are plain words
  ];
  let version = '';
  if (c.version !== undefined) {
    version = ' AND version = ?';
    values.push(c.version);
  }
  values.push(...callbackValues(c.credit));
  const claim = c.claim ? claimKeyCte(db, c.claim) : { sql: '', values: [], tag: '' };
  values.push(...claim.values);
  const sql = `WITH r AS (
      UPDATE ${t.rounds} SET status = 'credit_pending', result = ?::jsonb, state = COALESCE(?::jsonb, state), multiplier = ?, payout = ?, close_status = ?,
        total_staked = COALESCE(?::numeric, total_staked), version = version + 1, lease_until = ?, updated_at = now()
      WHERE round_id = ?${at.sql} AND status = ANY(?::text[])${version} RETURNING *
    ), credit AS (${insertCallbackFrom('r', t.callbacks)})${claim.sql}
    SELECT r.*, credit.id AS cb_id, credit.created_at AS cb_created_at, credit.updated_at AS cb_updated_at FROM r, credit`;
  const res = await hotQuery(db, `gp_close_with_credit${c.version !== undefined ? '_v' : ''}${c.claim ? '_claim' : ''}${t.tag}${claim.tag}`, sql, values);
  const row = (res.rows as (RoundRow & { cb_id: string; cb_created_at: Date; cb_updated_at: Date })[])[0];
  if (!row) return null;
  const round = roundFromRow(row);
  return { round, credit: callbackRecorded({ ...c.credit, roundId: round.roundId }, row) };
}

/**
 * Once the opening debit of a Mines or Blackjack round is confirmed, in one statement: its result
 * and the player's balance stored, the round made playable (`debit_requested` → `active`, its
 * lease ended) and the request's answer stored with its key. Null when the round was no longer
 * `debit_requested` (the retry job took it over): only the debit's result was stored.
 */
export async function storeDebitAndActivate(
  db: Queryable,
  c: { debitKey: string; debitResult: CallbackResult; balance: BalanceReport | null; roundId: string; answer: KeyAnswer },
): Promise<Round | null> {
  const t = roundTables(db, c.roundId);
  const head = resultCtes({ idempotencyKey: c.debitKey, roundId: c.roundId }, c.debitResult, c.balance, t);
  const at = roundAtIn(t, 'created_at', c.roundId);
  const k = answerKeyCte(db, c.answer);
  const values = [...head.values, c.roundId, ...at.values, ...k.values];
  const sql = `WITH ${head.sql}, r AS (
      UPDATE ${t.rounds} SET status = 'active', lease_until = NULL, updated_at = now()
      WHERE round_id = ?${at.sql} AND status = 'debit_requested' RETURNING *
    )${k.sql}
    SELECT r.* FROM r`;
  const res = await hotQuery(db, `gp_debit_and_activate${head.tag}${t.tag}${k.tag}`, sql, values);
  const row = (res.rows as RoundRow[])[0];
  return row ? roundFromRow(row) : null;
}

export interface DebitConfirmedClose {
  debitKey: string;
  debitResult: CallbackResult;
  balance: BalanceReport | null;
  /** the round as the opening statement answered it (still `debit_requested`) */
  round: Round;
  /** the fixed result, as `closeRound` writes it */
  change: { result: unknown; multiplier4: bigint; payout: bigint; closeStatus: CloseStatus; leaseUntil: Date };
  credit: NewCallback;
}

/**
 * Once the opening debit of a settled bet is confirmed, in one statement: its result and the
 * player's balance stored, the round's result fixed (`debit_requested` → `credit_pending`) and its
 * one credit recorded. Null when the round was no longer `debit_requested` (the retry job took it
 * over): only the debit's result was stored.
 */
export async function storeDebitAndClose(db: Queryable, c: DebitConfirmedClose): Promise<{ round: Round; credit: Callback } | null> {
  const roundId = c.round.roundId;
  const t = roundTables(db, roundId);
  const head = resultCtes({ idempotencyKey: c.debitKey, roundId }, c.debitResult, c.balance, t);
  const at = roundAtIn(t, 'created_at', roundId);
  const result = JSON.stringify(c.change.result);
  const values = [...head.values];
  values.push(result, multiplierToColumn(c.change.multiplier4), c.change.payout.toString(), c.change.closeStatus, c.change.leaseUntil, roundId, ...at.values);
  values.push(...callbackValues(c.credit));
  // RETURNING only what the statement decides (the version, the time): the rest is what was written
  const sql = `WITH ${head.sql}, r AS (
      UPDATE ${t.rounds} SET status = 'credit_pending', result = ?::jsonb, multiplier = ?, payout = ?, close_status = ?, version = version + 1, lease_until = ?, updated_at = now()
      WHERE round_id = ?${at.sql} AND status = 'debit_requested' RETURNING round_id, created_at, version, updated_at
    ), credit AS (${insertCallbackFrom('r', t.callbacks)})
    SELECT r.version, r.updated_at, credit.id AS cb_id, credit.created_at AS cb_created_at, credit.updated_at AS cb_updated_at FROM r, credit`;
  const res = await hotQuery(db, `gp_debit_and_close${head.tag}${t.tag}`, sql, values);
  const row = (res.rows as (Pick<RoundRow, 'version' | 'updated_at'> & { cb_id: string; cb_created_at: Date; cb_updated_at: Date })[])[0];
  if (!row) return null;
  const round: Round = {
    ...c.round,
    status: 'credit_pending',
    result: JSON.parse(result) as unknown,
    multiplier4: c.change.multiplier4,
    payout: c.change.payout,
    closeStatus: c.change.closeStatus,
    version: row.version,
    leaseUntil: toIso(c.change.leaseUntil),
    updatedAt: toIso(row.updated_at),
  };
  return { round, credit: callbackRecorded({ ...c.credit, roundId }, row) };
}

export interface CreditAnswered {
  creditKey: string;
  creditResult: CallbackResult;
  balance: BalanceReport | null;
  /** the round as the statement that recorded the credit left it (`credit_pending`) */
  round: Round;
  /** the credit was confirmed: the round takes its close status at `settledAt` */
  confirmed: boolean;
  settledAt: Date;
  leaseUntil: Date | null;
  /** the request's answer, stored with its key in the same statement */
  answer: { claim: KeyClaim; body: string; roundStatus: string } | null;
  /** `round`: a confirmed credit's balance is kept in the round's row (an instant game's request), else in the player's `player_balances` row */
  balanceIn: 'round' | 'player';
}

/**
 * Once the credit of a round is answered, in one statement: its result and the player's balance
 * stored — an instant game's confirmed credit's in the round's own row (`reported_balance`,
 * migration 20261206010000, the round final from then on; the player's latest balance is the newer
 * of it and the player's row: reads.ts `latestBalanceOf`), any other in the player's
 * `player_balances` row; confirmed → the round's close status (`settled`, `cashed_out`, `busted`),
 * else it stays `credit_pending` with its lease ended; and the request's answer stored with its key
 * (when there is one). `round` null when the round was no longer `credit_pending`: only the credit's result
 * (and a player row's balance) was stored. `balanceStored` false: the balance was not written (no
 * row of the player to update, or the round moved on): the caller writes it (`rememberBalance`).
 */
export async function storeCreditAndFinish(db: Queryable, c: CreditAnswered): Promise<{ round: Round | null; balanceStored: boolean }> {
  const roundId = c.round.roundId;
  const t = roundTables(db, roundId);
  // in the round only when this statement makes it final: its updated_at is then the balance's time for good
  const inRound = c.balanceIn === 'round' && c.confirmed ? c.balance : null;
  const inPlayer = inRound === null ? c.balance : null;
  const head = resultCtes({ idempotencyKey: c.creditKey, roundId }, c.creditResult, inPlayer, t, 'update');
  const at = roundAtIn(t, 'created_at', roundId);
  const values = [...head.values];
  values.push(c.confirmed, c.confirmed, c.settledAt, c.leaseUntil, inRound === null ? null : inRound.balance.toString(), roundId, ...at.values);
  const answer = c.answer ? answerKeyCte(db, c.answer) : { sql: '', values: [], tag: '' };
  values.push(...answer.values);
  // RETURNING only what the statement decides (the status, the times): the rest is the round as it
  // was. One row whether or not the round moved on: it says whether the player's balance row was there.
  const sql = `WITH ${head.sql}, r AS (
      UPDATE ${t.rounds} SET status = CASE WHEN ? THEN close_status ELSE status END, settled_at = CASE WHEN ? THEN ?::timestamptz ELSE settled_at END, lease_until = ?,
        reported_balance = COALESCE(?::numeric, reported_balance), updated_at = now()
      WHERE round_id = ?${at.sql} AND status = 'credit_pending' RETURNING status, settled_at, updated_at
    )${answer.sql}
    SELECT r.status, r.settled_at, r.updated_at${inPlayer ? ', (SELECT count(*) FROM bal)::int AS bal_n' : ''} FROM (SELECT 1) AS one LEFT JOIN r ON true`;
  const res = await hotQuery(db, `gp_credit_and_finish${c.answer ? '_answer' : ''}${head.tag}${t.tag}${answer.tag}`, sql, values);
  const row = (res.rows as (Pick<RoundRow, 'settled_at' | 'updated_at'> & { status: RoundRow['status'] | null; bal_n?: number })[])[0]!;
  const balanceStored = !c.balance || (inPlayer ? row.bal_n === 1 : row.status !== null);
  if (row.status === null) return { round: null, balanceStored };
  return {
    round: {
      ...c.round,
      status: row.status,
      settledAt: row.settled_at === null ? null : toIso(row.settled_at),
      leaseUntil: c.leaseUntil === null ? null : toIso(c.leaseUntil),
      updatedAt: toIso(row.updated_at),
    },
    balanceStored,
  };
}

/**
 * Data access for rounds and their wallet callbacks (the callback audit): every SQL statement on
 * `rounds` and `wallet_callbacks` is here. Every status change is a conditional update
 * (`WHERE status = <expected>`, and the version for active rounds): two pods never apply one
 * step twice, and the database refuses to change a final round (migrations/ trigger). Work on a
 * round is claimed with a lease (`lease_until`) and `FOR UPDATE SKIP LOCKED`.
 */
import type { Knex } from 'knex';
import type { CurrencyCode } from '@gp/game-core/money';
import type { GameType } from '@gp/game-core/games';
import { hotQuery, toBigInt, toIso, toNullableBigInt, type Queryable } from '../store/db.js';
import { FINAL_STATUSES, type CloseStatus, type RoundStatus } from './round-status.js';

export interface Round {
  roundId: string;
  operatorId: string;
  playerRef: string;
  sessionId: string;
  gameType: GameType;
  currency: CurrencyCode;
  amount: bigint;
  totalStaked: bigint;
  params: Record<string, unknown>;
  seedPairId: string;
  nonce: bigint;
  clientSeed: string;
  status: RoundStatus;
  state: unknown;
  result: unknown;
  multiplier4: bigint | null;
  payout: bigint | null;
  closeStatus: CloseStatus | null;
  errorCode: string | null;
  errorMessage: string | null;
  version: number;
  leaseUntil: string | null;
  createdAt: string;
  updatedAt: string;
  settledAt: string | null;
  /** The free-bet campaign that paid the stake (no debit was sent); null for a paid round. */
  freeBetCampaignId?: string | null;
}

interface RoundRow {
  round_id: string;
  operator_id: string;
  player_ref: string;
  session_id: string;
  game_type: GameType;
  currency: CurrencyCode;
  amount: string;
  total_staked: string;
  params: Record<string, unknown>;
  seed_pair_id: string | number;
  nonce: string | number;
  client_seed: string;
  status: RoundStatus;
  state: unknown;
  result: unknown;
  multiplier: string | null;
  payout: string | null;
  close_status: CloseStatus | null;
  error_code: string | null;
  error_message: string | null;
  version: number;
  lease_until: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  settled_at: Date | string | null;
  free_bet_campaign_id?: string | null;
}

/** NUMERIC(…, 4) multiplier text → scaled integer. */
const multiplierFromColumn = (v: string | null): bigint | null => {
  if (v === null) return null;
  const [whole = '0', frac = ''] = v.split('.');
  return BigInt(whole) * 10_000n + BigInt((frac + '0000').slice(0, 4));
};
export const multiplierToColumn = (m: bigint): string => `${m / 10_000n}.${(m % 10_000n).toString().padStart(4, '0')}`;

export function roundFromRow(r: RoundRow): Round {
  return {
    roundId: r.round_id,
    operatorId: r.operator_id,
    playerRef: r.player_ref,
    sessionId: r.session_id,
    gameType: r.game_type,
    currency: r.currency,
    amount: toBigInt(r.amount),
    totalStaked: toBigInt(r.total_staked),
    params: r.params,
    seedPairId: String(r.seed_pair_id),
    nonce: toBigInt(r.nonce),
    clientSeed: r.client_seed,
    status: r.status,
    state: r.state,
    result: r.result,
    multiplier4: multiplierFromColumn(r.multiplier),
    payout: toNullableBigInt(r.payout),
    closeStatus: r.close_status,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    version: r.version,
    leaseUntil: r.lease_until === null ? null : toIso(r.lease_until),
    createdAt: toIso(r.created_at),
    updatedAt: toIso(r.updated_at),
    settledAt: r.settled_at === null ? null : toIso(r.settled_at),
    freeBetCampaignId: r.free_bet_campaign_id ?? null,
  };
}

export async function getRound(db: Queryable, roundId: string, opts: { forUpdate?: boolean } = {}): Promise<Round | null> {
  const q = db<RoundRow>('rounds').where({ round_id: roundId });
  const row = await (opts.forUpdate ? q.forUpdate().first() : q.first());
  return row ? roundFromRow(row) : null;
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
export async function updateRound(db: Queryable, roundId: string, expected: RoundStatus | RoundStatus[], change: RoundChange, version?: number): Promise<Round | null> {
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
  const q = db<RoundRow>('rounds').where({ round_id: roundId }).whereIn('status', Array.isArray(expected) ? expected : [expected]);
  if (version !== undefined) q.andWhere({ version });
  const rows = await q.update(patch).returning('*');
  return rows[0] ? roundFromRow(rows[0] as RoundRow) : null;
}

/** A round as it is inserted (`debit_requested`, its debit recorded in the same transaction). */
export type NewRound = Pick<Round, 'roundId' | 'operatorId' | 'playerRef' | 'sessionId' | 'gameType' | 'currency' | 'amount' | 'params' | 'seedPairId' | 'nonce' | 'clientSeed'> & {
  state?: unknown;
  leaseUntil: Date;
};

/** The player's open round of a game (debit on its way or playable), whichever session started it. */
export async function openRoundOfPlayer(db: Queryable, operatorId: string, playerRef: string, gameType: GameType): Promise<Round | null> {
  const row = await db<RoundRow>('rounds')
    .where({ operator_id: operatorId, player_ref: playerRef, game_type: gameType })
    .whereIn('status', ['debit_requested', 'active'])
    .first();
  return row ? roundFromRow(row) : null;
}

/**
 * Sets (or ends, with null) the lease of an active round still at `round.version`; with
 * `bumpVersion` the claim also bumps the version, so a request that read the round before cannot
 * write it. Answers the round, or null when it moved on.
 */
export async function leaseActiveRound(db: Queryable, round: Pick<Round, 'roundId' | 'version'>, lease: Date | null, bumpVersion: boolean): Promise<Round | null> {
  const rows = await db('rounds')
    .where({ round_id: round.roundId, status: 'active', version: round.version })
    .update({ lease_until: lease, ...(bumpVersion ? { version: db.raw('version + 1') } : {}) })
    .returning('*');
  return rows[0] ? roundFromRow(rows[0] as RoundRow) : null;
}

/** An open Mines or Blackjack round under a seed pair (its outcome hangs on that pair's secret seed). */
export async function openRoundUnderSeedPair(db: Queryable, seedPairId: string): Promise<Round | null> {
  const row = await db<RoundRow>('rounds').where({ seed_pair_id: seedPairId }).whereIn('status', ['debit_requested', 'active']).whereIn('game_type', ['mines', 'blackjack']).first();
  return row ? roundFromRow(row) : null;
}

/**
 * A player's rounds, newest first (My bets on the game page): `before` is the round id the
 * previous page ended with; rounds created at the same instant are ordered by id. Every round of
 * the player (operator + playerRef), whichever session placed it, and no other player's.
 */
export async function roundsOfPlayer(db: Queryable, operatorId: string, playerRef: string, opts: { limit: number; before?: string | undefined }): Promise<Round[]> {
  const q = db<RoundRow>('rounds').where({ operator_id: operatorId, player_ref: playerRef });
  if (opts.before !== undefined) {
    q.whereRaw('(created_at, round_id) < (SELECT created_at, round_id FROM rounds WHERE round_id = ? AND operator_id = ? AND player_ref = ?)', [opts.before, operatorId, playerRef]);
  }
  const rows = await q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'round_id', order: 'desc' }]).limit(opts.limit);
  return rows.map((r) => roundFromRow(r as RoundRow));
}

/** An active round kept open by the abandoned-round policy: its idle clock starts again. */
export async function restartIdleClock(db: Queryable, roundId: string): Promise<void> {
  await db('rounds').where({ round_id: roundId, status: 'active' }).update({ updated_at: db.fn.now() });
}

/* ------------------------------------------------- active rounds: one statement a step (Mines, Blackjack) */
//
// An action on an active round reads the round with everything its answer shows (its callbacks,
// its seed pair's hash, the player's latest balance) in one statement, and writes its step in
// one: the same conditional updates (status, version), unique keys and triggers as the separate
// statements, as data-modifying CTEs that run together and atomically.

/** A round with what its answer shows: its callbacks (by id), its seed pair, the player's latest reported balance. */
export interface RoundWithContext {
  round: Round;
  callbacks: Callback[];
  pair: { serverSeedHash: string; serverSeed: string; revealed: boolean };
  /** the player's latest balance in the round's currency, or null */
  balance: bigint | null;
}

/** The round, its callbacks, its seed pair and the player's latest balance, in one statement; null when unknown. */
export async function getRoundWithContext(db: Queryable, roundId: string): Promise<RoundWithContext | null> {
  const sql = `SELECT r.*,
      (SELECT COALESCE(json_agg(to_jsonb(c) || jsonb_build_object('id', c.id::text, 'amount', c.amount::text) ORDER BY c.id), '[]'::json) FROM wallet_callbacks c WHERE c.round_id = r.round_id) AS ctx_callbacks,
      p.server_seed_hash AS ctx_seed_hash, p.server_seed AS ctx_seed, p.revealed AS ctx_revealed, b.balance::text AS ctx_balance, b.currency AS ctx_balance_currency
    FROM rounds r JOIN seed_pairs p ON p.id = r.seed_pair_id
    LEFT JOIN player_balances b ON b.operator_id = r.operator_id AND b.player_ref = r.player_ref
    WHERE r.round_id = ?`;
  const res = await hotQuery(db, 'gp_round_with_context', sql, [roundId]);
  const row = (res.rows as (RoundRow & { ctx_callbacks: unknown; ctx_seed_hash: string; ctx_seed: string; ctx_revealed: boolean; ctx_balance: string | null; ctx_balance_currency: string | null })[])[0];
  if (!row) return null;
  const raw = typeof row.ctx_callbacks === 'string' ? (JSON.parse(row.ctx_callbacks) as CallbackRow[]) : (row.ctx_callbacks as CallbackRow[]);
  const round = roundFromRow(row);
  return {
    round,
    callbacks: raw.map(callbackFromRow),
    pair: { serverSeedHash: row.ctx_seed_hash, serverSeed: row.ctx_seed, revealed: row.ctx_revealed },
    balance: row.ctx_balance !== null && row.ctx_balance_currency === round.currency ? toBigInt(row.ctx_balance) : null,
  };
}

/** The idempotency record of a request, written complete with its answer by the statement of its step. */
export interface KeyAnswer {
  claim: KeyClaim;
  body: string;
  roundStatus: string;
}

/**
 * A step of an active round that moves no money (a Mines reveal, a Blackjack hit or stand), in
 * one statement: the new state (and total stake) when the round is still `active` at `version`
 * (the version bumped), and the request's key stored with its answer. Null when
 * the round moved on: nothing was written. A unique violation (the key taken) aborts the whole statement.
 */
export async function advanceActiveRound(db: Queryable, a: { roundId: string; version: number; state: unknown; totalStaked?: bigint; answer: KeyAnswer }): Promise<Round | null> {
  const k = a.answer;
  const values: unknown[] = [JSON.stringify(a.state), a.totalStaked === undefined ? null : a.totalStaked.toString(), a.roundId, a.version];
  values.push(k.claim.operatorId, k.claim.sessionId, k.claim.key, k.claim.requestHash, k.body, k.roundStatus);
  const sql = `WITH r AS (
      UPDATE rounds SET state = ?::jsonb, total_staked = COALESCE(?::numeric, total_staked), version = version + 1, updated_at = now()
      WHERE round_id = ? AND status = 'active' AND version = ? RETURNING *
    ), k AS (
      INSERT INTO idempotency_records (operator_id, session_id, idempotency_key, request_hash, round_id, state, response_status, response_body, response_round_status, completed_at)
      SELECT ?, ?, ?, ?, r.round_id, 'completed', 200, ?::jsonb, ?, now() FROM r RETURNING id
    )
    SELECT r.* FROM r`;
  const res = await hotQuery(db, 'gp_advance_active', sql, values);
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
  const values: unknown[] = [
    JSON.stringify(ch.result),
    ch.state === undefined ? null : JSON.stringify(ch.state),
    multiplierToColumn(ch.multiplier4),
    ch.payout.toString(),
    ch.closeStatus,
    ch.totalStaked === undefined ? null : ch.totalStaked.toString(),
    ch.leaseUntil,
    c.roundId,
    `{${c.from.join(',')}}`, // an array literal: statuses are plain words
  ];
  let version = '';
  if (c.version !== undefined) {
    version = ' AND version = ?';
    values.push(c.version);
  }
  values.push(...callbackValues(c.credit));
  let claim = '';
  if (c.claim) {
    claim = `, k AS (INSERT INTO idempotency_records (operator_id, session_id, idempotency_key, request_hash, round_id) SELECT ?, ?, ?, ?, r.round_id FROM r RETURNING id)`;
    values.push(c.claim.operatorId, c.claim.sessionId, c.claim.key, c.claim.requestHash);
  }
  const sql = `WITH r AS (
      UPDATE rounds SET status = 'credit_pending', result = ?::jsonb, state = COALESCE(?::jsonb, state), multiplier = ?, payout = ?, close_status = ?,
        total_staked = COALESCE(?::numeric, total_staked), version = version + 1, lease_until = ?, updated_at = now()
      WHERE round_id = ? AND status = ANY(?::text[])${version} RETURNING *
    ), credit AS (${insertCallbackFrom('r')})${claim}
    SELECT r.*, credit.id AS cb_id, credit.created_at AS cb_created_at, credit.updated_at AS cb_updated_at FROM r, credit`;
  const res = await hotQuery(db, `gp_close_with_credit${c.version !== undefined ? '_v' : ''}${c.claim ? '_claim' : ''}`, sql, values);
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
export async function storeDebitAndActivate(db: Queryable, c: { debitId: string; debitResult: CallbackResult; balance: BalanceReport | null; roundId: string; answer: KeyAnswer }): Promise<Round | null> {
  const head = resultCtes(c.debitId, c.debitResult, c.balance);
  const values = [...head.values, c.roundId, c.answer.body, c.answer.roundStatus, c.answer.claim.operatorId, c.answer.claim.sessionId, c.answer.claim.key];
  const sql = `WITH ${head.sql}, r AS (
      UPDATE rounds SET status = 'active', lease_until = NULL, updated_at = now()
      WHERE round_id = ? AND status = 'debit_requested' RETURNING *
    ), k AS (
      UPDATE idempotency_records SET state = 'completed', response_status = 200, response_body = ?::jsonb, response_round_status = ?, completed_at = now()
      WHERE operator_id = ? AND session_id = ? AND idempotency_key = ? AND state = 'in_progress' AND EXISTS (SELECT 1 FROM r)
    )
    SELECT r.* FROM r`;
  const res = await hotQuery(db, 'gp_debit_and_activate', sql, values);
  const row = (res.rows as RoundRow[])[0];
  return row ? roundFromRow(row) : null;
}

/**
 * Retention (issue 14 item 4): removes the idempotency records older than `olderThan` whose work
 * is over (their round is final, or they have none), `batch` rows a statement and at most
 * `maxBatches` statements a call; with `operatorId` only that operator's. A record of a round
 * not final yet (open, or its credit or rollback still pending) stays whatever its age. Answers
 * how many were removed. After the retention period a retry with the same key is a new request:
 * the period must exceed any client's retry window.
 */
export async function purgeIdempotencyRecords(db: Queryable, opts: { olderThan: Date; operatorId?: string | undefined; batch?: number; maxBatches?: number }): Promise<number> {
  const batch = opts.batch ?? 5_000;
  let removed = 0;
  for (let i = 0; i < (opts.maxBatches ?? 20); i++) {
    const res = (await db.raw(
      `DELETE FROM idempotency_records WHERE id IN (
        SELECT k.id FROM idempotency_records k LEFT JOIN rounds r ON r.round_id = k.round_id
        WHERE k.created_at < ? AND (?::text IS NULL OR k.operator_id = ?)
          AND (r.round_id IS NULL OR r.status IN (${FINAL_LIST}))
        ORDER BY k.id LIMIT ?)`,
      [opts.olderThan, opts.operatorId ?? null, opts.operatorId ?? null, batch],
    )) as { rowCount?: number; affectedRows?: number };
    const n = res.rowCount ?? res.affectedRows ?? 0;
    removed += n;
    if (n < batch) break;
  }
  return removed;
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
export type Work =
  | { kind: 'wallet' }
  | { kind: 'interrupted' }
  | { kind: 'abandoned'; operatorId: string; gameType: GameType; idleSince: Date };

/**
 * Claims up to `filter.limit` rounds for `work` with a lease until `lease` (FOR UPDATE SKIP
 * LOCKED: two callers at once never take the same round). A round with a live lease is never
 * taken. `interrupted` rounds also get a new version (their extra debits are resolved next).
 */
export async function claimRoundsForWork(db: Knex, work: Work, filter: WorkFilter, lease: Date): Promise<Round[]> {
  if (filter.limit <= 0) return [];
  return db.transaction(async (tx) => {
    const ids = tx('rounds').select('round_id').orderBy('updated_at').limit(filter.limit).forUpdate().skipLocked();
    const leaseFree = (q: Knex.QueryBuilder) => q.whereNull('lease_until').orWhere('lease_until', '<', tx.fn.now());
    if (work.kind === 'wallet') {
      ids.where((q: Knex.QueryBuilder) => {
        q.where((p: Knex.QueryBuilder) => p.whereIn('status', ['credit_pending', 'rollback_pending']).andWhere(leaseFree)).orWhere((p: Knex.QueryBuilder) =>
          // a debit_requested round is only taken over once its worker's lease ran out
          p.where('status', 'debit_requested').whereNotNull('lease_until').andWhere('lease_until', '<', tx.fn.now()),
        );
      });
    } else if (work.kind === 'interrupted') {
      ids.where({ game_type: 'blackjack', status: 'active' }).whereNotNull('lease_until').andWhere('lease_until', '<', tx.fn.now());
    } else {
      ids.where({ operator_id: work.operatorId, game_type: work.gameType, status: 'active' }).andWhere('updated_at', '<', work.idleSince).andWhere(leaseFree);
    }
    if (filter.operatorId) ids.andWhere('operator_id', filter.operatorId);
    if (filter.playerRef) ids.andWhere('player_ref', filter.playerRef);
    if (filter.roundId) ids.andWhere('round_id', filter.roundId);
    const change: Record<string, unknown> = { lease_until: lease };
    if (work.kind === 'interrupted') change.version = tx.raw('version + 1');
    const rows = await tx('rounds').whereIn('round_id', ids).update(change).returning('*');
    return rows.map((r) => roundFromRow(r as RoundRow));
  });
}

/* ------------------------------------------------------------------ wallet callbacks */

export type CallbackOperation = 'debit' | 'credit' | 'rollback';
export type CallbackStatus = 'pending' | 'succeeded' | 'failed';

export interface Callback {
  id: string;
  roundId: string;
  operatorId: string;
  playerRef: string;
  operation: CallbackOperation;
  purpose: string;
  idempotencyKey: string;
  debitIdempotencyKey: string | null;
  amount: bigint;
  currency: CurrencyCode;
  method: string;
  path: string;
  url: string;
  requestBody: string;
  requestBodyEnc: string;
  responseBody: string | null;
  statusCode: number | null;
  callbackStatus: CallbackStatus;
  errorCode: string | null;
  errorMessage: string | null;
  attemptCount: number;
  casinoTransactionId: string | null;
  createdAt: string;
  updatedAt: string;
}

interface CallbackRow {
  id: string | number;
  round_id: string;
  operator_id: string;
  player_ref: string;
  operation: CallbackOperation;
  purpose: string;
  idempotency_key: string;
  debit_idempotency_key: string | null;
  amount: string;
  currency: CurrencyCode;
  method: string;
  path: string;
  url: string;
  request_body: string;
  request_body_enc: string;
  response_body: string | null;
  status_code: number | null;
  callback_status: CallbackStatus;
  error_code: string | null;
  error_message: string | null;
  attempt_count: number;
  casino_transaction_id: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const callbackFromRow = (r: CallbackRow): Callback => ({
  id: String(r.id),
  roundId: r.round_id,
  operatorId: r.operator_id,
  playerRef: r.player_ref,
  operation: r.operation,
  purpose: r.purpose,
  idempotencyKey: r.idempotency_key,
  debitIdempotencyKey: r.debit_idempotency_key,
  amount: toBigInt(r.amount),
  currency: r.currency,
  method: r.method,
  path: r.path,
  url: r.url,
  requestBody: r.request_body,
  requestBodyEnc: r.request_body_enc,
  responseBody: r.response_body,
  statusCode: r.status_code,
  callbackStatus: r.callback_status,
  errorCode: r.error_code,
  errorMessage: r.error_message,
  attemptCount: r.attempt_count,
  casinoTransactionId: r.casino_transaction_id,
  createdAt: toIso(r.created_at),
  updatedAt: toIso(r.updated_at),
});

/** A callback as recorded before it is sent: everything but what the attempts fill in. */
export type NewCallback = Omit<Callback, 'id' | 'method' | 'responseBody' | 'statusCode' | 'callbackStatus' | 'errorCode' | 'errorMessage' | 'attemptCount' | 'casinoTransactionId' | 'createdAt' | 'updatedAt'>;

/** Records a callback before it is attempted. An existing key answers the existing row. */
export async function insertCallback(db: Queryable, c: NewCallback): Promise<Callback> {
  const rows = await db('wallet_callbacks')
    .insert({
      round_id: c.roundId,
      operator_id: c.operatorId,
      player_ref: c.playerRef,
      operation: c.operation,
      purpose: c.purpose,
      idempotency_key: c.idempotencyKey,
      debit_idempotency_key: c.debitIdempotencyKey,
      amount: c.amount.toString(),
      currency: c.currency,
      method: 'POST',
      path: c.path,
      url: c.url,
      request_body: c.requestBody,
      request_body_enc: c.requestBodyEnc,
      callback_status: 'pending',
    })
    .onConflict('idempotency_key')
    .ignore()
    .returning('*');
  if (rows[0]) return callbackFromRow(rows[0] as CallbackRow);
  const existing = await getCallback(db, c.idempotencyKey);
  if (!existing) throw new Error(`callback ${c.idempotencyKey} vanished`);
  return existing;
}

export async function getCallback(db: Queryable, idempotencyKey: string): Promise<Callback | null> {
  const row = await db<CallbackRow>('wallet_callbacks').where({ idempotency_key: idempotencyKey }).first();
  return row ? callbackFromRow(row) : null;
}

export async function callbacksOfRound(db: Queryable, roundId: string): Promise<Callback[]> {
  const rows = await db<CallbackRow>('wallet_callbacks').where({ round_id: roundId }).orderBy('id');
  return rows.map(callbackFromRow);
}

export interface CallbackResult {
  status: CallbackStatus;
  attempts: number;
  statusCode: number | null;
  responseBody: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  casinoTransactionId: string | null;
}

/**
 * Stores the outcome of an attempt (a callback that is final stays as it is) and, when the answer
 * carried one, the player's balance: one statement.
 */
export async function recordCallbackResult(db: Queryable, id: string, r: CallbackResult, balance: BalanceReport | null = null): Promise<void> {
  const { sql, values } = resultCtes(id, r, balance);
  await hotQuery(db, 'gp_callback_result', `WITH ${sql} SELECT 1`, values);
}

/**
 * A debit a worker sent but whose answer it never stored (it stopped): its fate is unknown, so it
 * is recorded as failed with CASINO_TIMEOUT, and the money path rolls it back.
 */
export async function markCallbackUnanswered(db: Queryable, id: string): Promise<void> {
  await db('wallet_callbacks')
    .where({ id, callback_status: 'pending' })
    .update({ callback_status: 'failed', error_code: 'CASINO_TIMEOUT', error_message: 'no answer recorded: the worker stopped', updated_at: db.fn.now() });
}

/** The exact database time a callback was recorded (a subquery: no precision lost on the way). */
export function callbackCreatedAt(db: Queryable, id: string): Knex.QueryBuilder {
  return db('wallet_callbacks').select('created_at').where({ id });
}

/** Rollbacks of Blackjack extra debits (insurance, double, split) the casino has not confirmed yet. */
export async function pendingExtraDebitRollbacks(db: Queryable, filter: WorkFilter): Promise<Callback[]> {
  if (filter.limit <= 0) return [];
  const q = db<CallbackRow>('wallet_callbacks').where({ operation: 'rollback', callback_status: 'pending' }).whereIn('purpose', ['insurance', 'double', 'split']);
  if (filter.operatorId) q.where('operator_id', filter.operatorId);
  if (filter.playerRef) q.where('player_ref', filter.playerRef);
  if (filter.roundId) q.where('round_id', filter.roundId);
  const rows = await q.orderBy('id').limit(filter.limit);
  return rows.map(callbackFromRow);
}

/* ------------------------------------------------------- the hot path: one statement a step */
//
// A settled bet is three statements, each its own transaction (data-modifying CTEs run together
// and atomically): open (nonce + round + debit recorded + the request's idempotency key), then
// once the debit is confirmed (its result + the player's balance + the result fixed + the credit
// recorded), then once the credit is answered (its result + the balance + the final status + the
// request's stored answer). Every rule the separate statements held still holds: the same
// conditional updates, the same unique keys, the same triggers.

/** The request's idempotency record, claimed by the statement that opens its round. */
export interface KeyClaim {
  operatorId: string;
  sessionId: string;
  key: string;
  requestHash: string;
}

/** The player's latest reported balance, written by the statement that stores a confirmed answer. */
export interface BalanceReport {
  operatorId: string;
  playerRef: string;
  currency: CurrencyCode;
  balance: bigint;
}

const CALLBACK_COLUMNS = 'round_id, operator_id, player_ref, operation, purpose, idempotency_key, debit_idempotency_key, amount, currency, method, path, url, request_body, request_body_enc, callback_status';

function callbackValues(c: NewCallback): unknown[] {
  return [c.operatorId, c.playerRef, c.operation, c.purpose, c.idempotencyKey, c.debitIdempotencyKey, c.amount.toString(), c.currency, c.path, c.url, c.requestBody, c.requestBodyEnc];
}
/** `INSERT INTO wallet_callbacks … SELECT` of one new callback whose round id comes from the CTE `source`. */
const insertCallbackFrom = (source: string) =>
  `INSERT INTO wallet_callbacks (${CALLBACK_COLUMNS}) SELECT ${source}.round_id, ?, ?, ?, ?, ?, ?, ?, ?, 'POST', ?, ?, ?, ?, 'pending' FROM ${source} RETURNING id, created_at, updated_at`;

function callbackRecorded(c: NewCallback, row: { cb_id: string | number; cb_created_at: Date | string; cb_updated_at: Date | string }): Callback {
  return {
    ...c,
    id: String(row.cb_id),
    method: 'POST',
    responseBody: null,
    statusCode: null,
    callbackStatus: 'pending',
    errorCode: null,
    errorMessage: null,
    attemptCount: 0,
    casinoTransactionId: null,
    createdAt: toIso(row.cb_created_at),
    updatedAt: toIso(row.cb_updated_at),
  };
}

/** `UPDATE wallet_callbacks` storing an attempt's result (a final callback stays as it is) + the balance upsert, as two CTEs. */
function resultCtes(callbackId: string, r: CallbackResult, balance: BalanceReport | null): { sql: string; values: unknown[] } {
  const sql = `cb AS (
      UPDATE wallet_callbacks SET callback_status = ?, attempt_count = attempt_count + ?, status_code = ?, response_body = ?, error_code = ?, error_message = ?, casino_transaction_id = ?, updated_at = now()
      WHERE id = ? AND callback_status = 'pending' RETURNING id
    ), bal AS (
      INSERT INTO player_balances (operator_id, player_ref, currency, balance, reported_at) SELECT ?, ?, ?, ?, now() WHERE ?::boolean
      ON CONFLICT (operator_id, player_ref) DO UPDATE SET currency = EXCLUDED.currency, balance = EXCLUDED.balance, reported_at = EXCLUDED.reported_at
    )`;
  const values: unknown[] = [r.status, r.attempts, r.statusCode, r.responseBody, r.errorCode, r.errorMessage, r.casinoTransactionId, callbackId];
  values.push(balance?.operatorId ?? '', balance?.playerRef ?? '', balance?.currency ?? 'USD', (balance?.balance ?? 0n).toString(), balance !== null);
  return { sql, values };
}

export interface OpenRound {
  round: Omit<NewRound, 'seedPairId' | 'nonce' | 'clientSeed'>;
  /** the opening debit (its round id is the round's) */
  debit: NewCallback;
  /** a new client seed for the pair (CONTRACT.md §9), else the pair's */
  clientSeed: string | undefined;
  claim: KeyClaim | null;
  /** Mines and Blackjack: the state was dealt from this pair at this nonce; the statement applies only if it is still the next one. */
  expect?: { seedPairId: string; nonce: bigint };
}

/**
 * Opens a round in one statement: takes the nonce of the player's current seed pair, inserts the
 * round as `debit_requested`, records its debit and claims the request's idempotency key. Null
 * when the player has no current pair (or, with `expect`, when the nonce moved on): nothing was
 * written. A unique violation (the key taken, a second open round) aborts the whole statement.
 */
export async function openRoundWithDebit(db: Queryable, o: OpenRound): Promise<{ round: Round; debit: Callback; serverSeed: string; serverSeedHash: string } | null> {
  const r = o.round;
  const values: unknown[] = [o.clientSeed ?? null, r.operatorId, r.playerRef];
  let guard = '';
  if (o.expect) {
    guard = ' AND id = ? AND next_nonce = ?';
    values.push(o.expect.seedPairId, o.expect.nonce.toString());
  }
  values.push(r.roundId, r.operatorId, r.playerRef, r.sessionId, r.gameType, r.currency, r.amount.toString(), r.amount.toString(), JSON.stringify(r.params));
  values.push(r.state === undefined ? null : JSON.stringify(r.state), r.leaseUntil);
  values.push(...callbackValues(o.debit));
  let claim = '';
  if (o.claim) {
    claim = `, k AS (INSERT INTO idempotency_records (operator_id, session_id, idempotency_key, request_hash, round_id) SELECT ?, ?, ?, ?, r.round_id FROM r RETURNING id)`;
    values.push(o.claim.operatorId, o.claim.sessionId, o.claim.key, o.claim.requestHash);
  }
  const sql = `WITH pair AS (
      UPDATE seed_pairs SET next_nonce = next_nonce + 1, client_seed = COALESCE(?::text, client_seed)
      WHERE operator_id = ? AND player_ref = ? AND NOT revealed${guard}
      RETURNING id, next_nonce - 1 AS nonce, client_seed, server_seed, server_seed_hash
    ), r AS (
      INSERT INTO rounds (round_id, operator_id, player_ref, session_id, game_type, currency, amount, total_staked, params, seed_pair_id, nonce, client_seed, status, state, lease_until)
      SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, pair.id, pair.nonce, pair.client_seed, 'debit_requested', ?::jsonb, ? FROM pair
      RETURNING *
    ), cb AS (${insertCallbackFrom('r')})${claim}
    SELECT r.*, cb.id AS cb_id, cb.created_at AS cb_created_at, cb.updated_at AS cb_updated_at, pair.server_seed AS pair_server_seed, pair.server_seed_hash AS pair_server_seed_hash
    FROM r, cb, pair`;
  const res = await hotQuery(db, `gp_open_round${o.expect ? '_dealt' : ''}${o.claim ? '_claim' : ''}`, sql, values);
  const row = (res.rows as (RoundRow & { cb_id: string; cb_created_at: Date; cb_updated_at: Date; pair_server_seed: string; pair_server_seed_hash: string })[])[0];
  if (!row) return null;
  const round = roundFromRow(row);
  return { round, debit: callbackRecorded({ ...o.debit, roundId: round.roundId }, row), serverSeed: row.pair_server_seed, serverSeedHash: row.pair_server_seed_hash };
}

export interface DebitConfirmedClose {
  debitId: string;
  debitResult: CallbackResult;
  balance: BalanceReport | null;
  roundId: string;
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
  const head = resultCtes(c.debitId, c.debitResult, c.balance);
  const values = [...head.values];
  values.push(JSON.stringify(c.change.result), multiplierToColumn(c.change.multiplier4), c.change.payout.toString(), c.change.closeStatus, c.change.leaseUntil, c.roundId);
  values.push(...callbackValues(c.credit));
  const sql = `WITH ${head.sql}, r AS (
      UPDATE rounds SET status = 'credit_pending', result = ?::jsonb, multiplier = ?, payout = ?, close_status = ?, version = version + 1, lease_until = ?, updated_at = now()
      WHERE round_id = ? AND status = 'debit_requested' RETURNING *
    ), credit AS (${insertCallbackFrom('r')})
    SELECT r.*, credit.id AS cb_id, credit.created_at AS cb_created_at, credit.updated_at AS cb_updated_at FROM r, credit`;
  const res = await hotQuery(db, 'gp_debit_and_close', sql, values);
  const row = (res.rows as (RoundRow & { cb_id: string; cb_created_at: Date; cb_updated_at: Date })[])[0];
  if (!row) return null;
  const round = roundFromRow(row);
  return { round, credit: callbackRecorded({ ...c.credit, roundId: round.roundId }, row) };
}

export interface CreditAnswered {
  creditId: string;
  creditResult: CallbackResult;
  balance: BalanceReport | null;
  roundId: string;
  /** the credit was confirmed: the round takes its close status at `settledAt` */
  confirmed: boolean;
  settledAt: Date;
  leaseUntil: Date | null;
  /** the request's answer, stored with its key in the same statement */
  answer: { claim: KeyClaim; body: string; roundStatus: string } | null;
}

/**
 * Once the credit of a round is answered, in one statement: its result and the player's balance
 * stored; confirmed → the round's close status (`settled`, `cashed_out`, `busted`), else it stays
 * `credit_pending` with its lease ended; and the request's answer stored with its key. Null when
 * the round was no longer `credit_pending`: only the credit's result was stored.
 */
export async function storeCreditAndFinish(db: Queryable, c: CreditAnswered): Promise<Round | null> {
  const head = resultCtes(c.creditId, c.creditResult, c.balance);
  const values = [...head.values];
  values.push(c.confirmed, c.confirmed, c.settledAt, c.leaseUntil, c.roundId);
  let answer = '';
  if (c.answer) {
    answer = `, k AS (
      UPDATE idempotency_records SET state = 'completed', response_status = 200, response_body = ?::jsonb, response_round_status = ?, completed_at = now()
      WHERE operator_id = ? AND session_id = ? AND idempotency_key = ? AND state = 'in_progress' AND EXISTS (SELECT 1 FROM r)
    )`;
    values.push(c.answer.body, c.answer.roundStatus, c.answer.claim.operatorId, c.answer.claim.sessionId, c.answer.claim.key);
  }
  const sql = `WITH ${head.sql}, r AS (
      UPDATE rounds SET status = CASE WHEN ? THEN close_status ELSE status END, settled_at = CASE WHEN ? THEN ?::timestamptz ELSE settled_at END, lease_until = ?, updated_at = now()
      WHERE round_id = ? AND status = 'credit_pending' RETURNING *
    )${answer}
    SELECT r.* FROM r`;
  const res = await hotQuery(db, `gp_credit_and_finish${c.answer ? '_answer' : ''}`, sql, values);
  const row = (res.rows as RoundRow[])[0];
  return row ? roundFromRow(row) : null;
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
    .whereIn('status', ['active', 'debit_requested', 'credit_pending', 'rollback_pending'])
    .groupBy('operator_id', 'game_type', 'status');
  return rows.map((r) => ({ operatorId: r.operator_id, gameType: r.game_type, status: r.status, count: Number(r.n) }));
}

/* ------------------------------------------------ the admin console's reads (issue 13) */
//
// Round search and the dashboard's figures. Every list is keyset-paginated on an index of
// migrations/20261125010000 (created_at DESC, round_id DESC; by operator; by player); every
// figure is one grouped statement over a time range.

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

/** One page of rounds, newest first; `limit + 1` rows are read to know whether another page follows. */
export async function searchRounds(db: Queryable, q: RoundSearch): Promise<Round[]> {
  const query = db<RoundRow>('rounds').orderBy([{ column: 'created_at', order: 'desc' }, { column: 'round_id', order: 'desc' }]).limit(q.limit + 1);
  if (q.roundId) query.where('round_id', q.roundId);
  if (q.operatorIds) query.whereIn('operator_id', q.operatorIds);
  if (q.playerRef) query.where('player_ref', q.playerRef);
  if (q.gameType) query.where('game_type', q.gameType);
  if (q.status) query.where('status', q.status);
  if (q.from) query.where('created_at', '>=', q.from);
  if (q.to) query.where('created_at', '<', q.to);
  if (q.after) query.whereRaw('(created_at, round_id) < (?::timestamptz, ?)', [q.after.createdAt, q.after.roundId]);
  return (await query).map(roundFromRow);
}

export interface FigureRange {
  operatorIds: string[] | null;
  from: string;
  to: string;
  /** date_trunc unit of the series */
  bucket: 'minute' | 'hour' | 'day';
}

const scoped = (q: Knex.QueryBuilder, column: string, operatorIds: string[] | null) => (operatorIds ? q.whereIn(column, operatorIds) : q);

/** Rounds opened per time bucket. */
export async function roundsPerBucket(db: Queryable, r: FigureRange): Promise<{ t: string; rounds: number }[]> {
  const q = db('rounds')
    .select(db.raw('date_trunc(?, created_at) AS t', [r.bucket]))
    .count({ n: '*' })
    .where('created_at', '>=', r.from)
    .where('created_at', '<', r.to)
    .groupByRaw('1')
    .orderByRaw('1');
  const rows = (await scoped(q, 'operator_id', r.operatorIds)) as { t: Date | string; n: string | number }[];
  return rows.map((x) => ({ t: toIso(x.t), rounds: Number(x.n) }));
}

/** Confirmed debits, credits and rollbacks per bucket and currency (GGR = stakes − payouts − rollbacks). */
export async function moneyPerBucket(db: Queryable, r: FigureRange): Promise<{ t: string; currency: CurrencyCode; stakes: bigint; payouts: bigint; rollbacks: bigint }[]> {
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
  const rows = (await scoped(q, 'operator_id', r.operatorIds)) as { t: Date | string; currency: CurrencyCode; stakes: string; payouts: string; rollbacks: string }[];
  return rows.map((x) => ({ t: toIso(x.t), currency: x.currency, stakes: toBigInt(x.stakes), payouts: toBigInt(x.payouts), rollbacks: toBigInt(x.rollbacks) }));
}

/**
 * Callbacks per operator: how many, how many did not get a 2xx answer (refused, failed, timed out,
 * unanswered), and the latency of answered first attempts (recorded → answered: the time the
 * money path waited for the casino), mean and 95th percentile in milliseconds.
 */
export async function callbackHealth(db: Queryable, r: FigureRange): Promise<{ operatorId: string; callbacks: number; errors: number; meanMs: number | null; p95Ms: number | null }[]> {
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
  const rows = (await scoped(q, 'operator_id', r.operatorIds)) as { operator_id: string; n: string | number; errors: string | number; mean_ms: string | number | null; p95_ms: string | number | null }[];
  const num = (v: string | number | null) => (v === null ? null : Math.round(Number(v) * 10) / 10);
  return rows.map((x) => ({ operatorId: x.operator_id, callbacks: Number(x.n), errors: Number(x.errors), meanMs: num(x.mean_ms), p95Ms: num(x.p95_ms) }));
}

/** Final rounds per game and currency: rounds, total staked and total paid (measured RTP = paid ÷ staked). */
export async function returnPerGame(db: Queryable, r: FigureRange): Promise<{ gameType: GameType; currency: CurrencyCode; rounds: number; staked: bigint; paid: bigint }[]> {
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
  const rows = (await scoped(q, 'operator_id', r.operatorIds)) as { game_type: GameType; currency: CurrencyCode; n: string | number; staked: string; paid: string }[];
  return rows.map((x) => ({ gameType: x.game_type, currency: x.currency, rounds: Number(x.n), staked: toBigInt(x.staked), paid: toBigInt(x.paid) }));
}

/** Rounds waiting for the wallet (credit_pending, rollback_pending), by operator. */
export async function pendingRoundCounts(db: Queryable, operatorIds: string[] | null): Promise<{ operatorId: string; status: string; rounds: number }[]> {
  const q = db('rounds').select('operator_id', 'status').count({ n: '*' }).whereIn('status', ['credit_pending', 'rollback_pending']).groupBy('operator_id', 'status');
  const rows = (await scoped(q, 'operator_id', operatorIds)) as { operator_id: string; status: string; n: string | number }[];
  return rows.map((x) => ({ operatorId: x.operator_id, status: x.status, rounds: Number(x.n) }));
}

/** The pending rounds themselves, oldest first (the reconciliation page's "retry now" list). */
export async function pendingRounds(db: Queryable, operatorIds: string[] | null, limit: number): Promise<Round[]> {
  const q = db<RoundRow>('rounds').whereIn('status', ['credit_pending', 'rollback_pending']).orderBy('updated_at').limit(limit);
  return (await scoped(q, 'operator_id', operatorIds)).map(roundFromRow);
}

/* ------------------------------------------------- free bets (issue 17): a round with no debit */

export interface OpenFreeRound {
  round: Omit<NewRound, 'seedPairId' | 'nonce' | 'clientSeed' | 'leaseUntil'> & { freeBetCampaignId: string; leaseUntil: Date | null };
  /** a new client seed for the pair (CONTRACT.md §9), else the pair's */
  clientSeed: string | undefined;
  /** the outcome was computed from this pair at this nonce; the statement applies only if it is still the next one */
  expect: { seedPairId: string; nonce: bigint };
  claim: KeyClaim | null;
  /**
   * A settled game: the round is inserted with its result fixed (`credit_pending`) and its one
   * credit recorded. Absent (Mines): the round opens `active` with its dealt `state`.
   */
  settled?: { result: unknown; multiplier4: bigint; payout: bigint; credit: NewCallback };
}

/**
 * Opens a free-bet round in one statement, run inside the caller's transaction (which has just
 * used one of the player's free bets, free_bet_grants): the nonce of the player's seed pair, the
 * round with its campaign, no debit; a settled game's result and credit, or Mines' dealt state;
 * the request's idempotency key. Null when the nonce moved on (nothing written by this statement).
 */
export async function openFreeBetRound(db: Queryable, o: OpenFreeRound): Promise<{ round: Round; credit: Callback | null; serverSeed: string; serverSeedHash: string } | null> {
  const r = o.round;
  const s = o.settled;
  const values: unknown[] = [o.clientSeed ?? null, r.operatorId, r.playerRef, o.expect.seedPairId, o.expect.nonce.toString()];
  values.push(r.roundId, r.operatorId, r.playerRef, r.sessionId, r.gameType, r.currency, r.amount.toString(), r.amount.toString(), JSON.stringify(r.params));
  values.push(s ? 'credit_pending' : 'active', r.state === undefined ? null : JSON.stringify(r.state));
  values.push(s ? JSON.stringify(s.result) : null, s ? multiplierToColumn(s.multiplier4) : null, s ? s.payout.toString() : null, s ? 'settled' : null, r.leaseUntil, r.freeBetCampaignId);
  let credit = '';
  if (s) {
    credit = `, cb AS (${insertCallbackFrom('r')})`;
    values.push(...callbackValues(s.credit));
  }
  let claim = '';
  if (o.claim) {
    claim = `, k AS (INSERT INTO idempotency_records (operator_id, session_id, idempotency_key, request_hash, round_id) SELECT ?, ?, ?, ?, r.round_id FROM r RETURNING id)`;
    values.push(o.claim.operatorId, o.claim.sessionId, o.claim.key, o.claim.requestHash);
  }
  const sql = `WITH pair AS (
      UPDATE seed_pairs SET next_nonce = next_nonce + 1, client_seed = COALESCE(?::text, client_seed)
      WHERE operator_id = ? AND player_ref = ? AND NOT revealed AND id = ? AND next_nonce = ?
      RETURNING id, next_nonce - 1 AS nonce, client_seed, server_seed, server_seed_hash
    ), r AS (
      INSERT INTO rounds (round_id, operator_id, player_ref, session_id, game_type, currency, amount, total_staked, params, seed_pair_id, nonce, client_seed, status, state, result, multiplier, payout, close_status, lease_until, free_bet_campaign_id)
      SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, pair.id, pair.nonce, pair.client_seed, ?, ?::jsonb, ?::jsonb, ?::numeric, ?::numeric, ?, ?::timestamptz, ? FROM pair
      RETURNING *
    )${credit}${claim}
    SELECT r.*, ${s ? 'cb.id AS cb_id, cb.created_at AS cb_created_at, cb.updated_at AS cb_updated_at, ' : ''}pair.server_seed AS pair_server_seed, pair.server_seed_hash AS pair_server_seed_hash
    FROM r, pair${s ? ', cb' : ''}`;
  const res = await db.raw(sql, values as Knex.RawBinding[]);
  const row = (res.rows as (RoundRow & { cb_id?: string; cb_created_at?: Date; cb_updated_at?: Date; pair_server_seed: string; pair_server_seed_hash: string })[])[0];
  if (!row) return null;
  const round = roundFromRow(row);
  const cb = s && row.cb_id !== undefined ? callbackRecorded({ ...s.credit, roundId: round.roundId }, { cb_id: row.cb_id, cb_created_at: row.cb_created_at!, cb_updated_at: row.cb_updated_at! }) : null;
  return { round, credit: cb, serverSeed: row.pair_server_seed, serverSeedHash: row.pair_server_seed_hash };
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
export async function callbackTotals(db: Queryable, filter: { operatorId?: string | undefined; from?: string | undefined; to?: string | undefined }): Promise<MoneyTotalsRow[]> {
  const q = db('wallet_callbacks as c')
    .join('rounds as r', 'r.round_id', 'c.round_id')
    .select('c.operator_id', 'c.currency', 'c.operation', 'c.callback_status', db.raw('(r.free_bet_campaign_id IS NOT NULL) AS free_bet'), db.raw('count(*) AS count'), db.raw('sum(c.amount) AS amount'))
    .groupBy('c.operator_id', 'c.currency', 'c.operation', 'c.callback_status', db.raw('(r.free_bet_campaign_id IS NOT NULL)'));
  if (filter.operatorId) q.where('c.operator_id', filter.operatorId);
  if (filter.from) q.where('c.created_at', '>=', filter.from);
  if (filter.to) q.where('c.created_at', '<', filter.to);
  return (await q) as MoneyTotalsRow[];
}

/** The free-bet rounds of a campaign per player that are still open or settled: used for the campaign view's payout figures. */
export async function campaignPayouts(db: Queryable, campaignId: string): Promise<{ rounds: number; paidOut: bigint; pending: number }> {
  const row = (await db('rounds')
    .where({ free_bet_campaign_id: campaignId })
    .select(db.raw('count(*) AS rounds'), db.raw(`coalesce(sum(payout) FILTER (WHERE status IN ('settled', 'cashed_out', 'busted')), 0) AS paid_out`), db.raw(`count(*) FILTER (WHERE status IN ('credit_pending', 'active')) AS pending`))
    .first()) as { rounds: string | number; paid_out: string | number; pending: string | number };
  return { rounds: Number(row.rounds), paidOut: toBigInt(String(row.paid_out)), pending: Number(row.pending) };
}

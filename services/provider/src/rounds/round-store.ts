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
import { toBigInt, toIso, toNullableBigInt, type Queryable } from '../store/db.js';
import type { CloseStatus, RoundStatus } from './round-status.js';

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

/** Inserts a round as `debit_requested` (its debit is recorded in the same transaction). */
export async function insertRound(db: Queryable, r: NewRound): Promise<Round> {
  const [row] = await db('rounds')
    .insert({
      round_id: r.roundId,
      operator_id: r.operatorId,
      player_ref: r.playerRef,
      session_id: r.sessionId,
      game_type: r.gameType,
      currency: r.currency,
      amount: r.amount.toString(),
      total_staked: r.amount.toString(),
      params: JSON.stringify(r.params),
      seed_pair_id: r.seedPairId,
      nonce: r.nonce.toString(),
      client_seed: r.clientSeed,
      status: 'debit_requested',
      state: r.state === undefined ? null : JSON.stringify(r.state),
      lease_until: r.leaseUntil,
    })
    .returning('*');
  return roundFromRow(row as RoundRow);
}

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

/** An active round kept open by the abandoned-round policy: its idle clock starts again. */
export async function restartIdleClock(db: Queryable, roundId: string): Promise<void> {
  await db('rounds').where({ round_id: roundId, status: 'active' }).update({ updated_at: db.fn.now() });
}

export interface WorkFilter {
  operatorId?: string | undefined;
  playerRef?: string | undefined;
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

/** Stores the outcome of an attempt; a callback that is final stays as it is. */
export async function recordCallbackResult(db: Queryable, id: string, r: CallbackResult): Promise<void> {
  await db('wallet_callbacks')
    .where({ id, callback_status: 'pending' })
    .update({
      callback_status: r.status,
      attempt_count: db.raw('attempt_count + ?', [r.attempts]),
      status_code: r.statusCode,
      response_body: r.responseBody,
      error_code: r.errorCode,
      error_message: r.errorMessage,
      casino_transaction_id: r.casinoTransactionId,
      updated_at: db.fn.now(),
    });
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
  const rows = await q.orderBy('id').limit(filter.limit);
  return rows.map(callbackFromRow);
}

/**
 * Data access for rounds and their wallet callbacks (the callback audit). Every status change
 * is a conditional update (`WHERE status = <expected>`): two pods never apply one step twice,
 * and the database refuses to change a final round (migrations/ trigger).
 */
import type { CurrencyCode } from '@gp/game-core/money';
import type { GameType } from '@gp/game-core/games';
import { toBigInt, toIso, toNullableBigInt, type Queryable } from '../store/db.js';

export type RoundStatus =
  | 'debit_requested'
  | 'active'
  | 'settled'
  | 'cashed_out'
  | 'busted'
  | 'credit_pending'
  | 'rollback_pending'
  | 'cancelled'
  | 'error';

export const FINAL_STATUSES: readonly RoundStatus[] = ['settled', 'cashed_out', 'busted', 'cancelled', 'error'];
export type CloseStatus = 'settled' | 'cashed_out' | 'busted';

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

export interface NewCallback {
  roundId: string;
  operatorId: string;
  playerRef: string;
  operation: CallbackOperation;
  purpose: string;
  idempotencyKey: string;
  debitIdempotencyKey: string | null;
  amount: bigint;
  currency: CurrencyCode;
  path: string;
  url: string;
  requestBody: string;
  requestBodyEnc: string;
}

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

/**
 * The shapes of `rounds` and `wallet_callbacks` rows and the pieces of SQL the statements of
 * writes.ts share (a callback's columns, an attempt's result with the player's balance). Every SQL
 * statement on `rounds` and `wallet_callbacks` is in this folder: writes.ts and round-opening.ts (the hot path),
 * reads.ts, work.ts (what the retry job claims) and reports.ts (the console's and the
 * reconciliation's queries).
 */
import type { CurrencyCode } from '@gp/game-core/money';
import type { GameType } from '@gp/game-core/games';
import { toBigInt, toIso, toNullableBigInt } from '../../store/db.js';
import type { CloseStatus, RoundStatus } from '../round-status.js';

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

export interface RoundRow {
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

/** A round as it is inserted (`debit_requested`, its debit recorded in the same transaction). */
export type NewRound = Pick<
  Round,
  'roundId' | 'operatorId' | 'playerRef' | 'sessionId' | 'gameType' | 'currency' | 'amount' | 'params' | 'seedPairId' | 'nonce' | 'clientSeed'
> & {
  state?: unknown;
  leaseUntil: Date;
};

/** The idempotency record of a request, written complete with its answer by the statement of its step. */
export interface KeyAnswer {
  claim: KeyClaim;
  body: string;
  roundStatus: string;
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

export interface CallbackRow {
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

export const callbackFromRow = (r: CallbackRow): Callback => ({
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
export type NewCallback = Omit<
  Callback,
  | 'id'
  | 'method'
  | 'responseBody'
  | 'statusCode'
  | 'callbackStatus'
  | 'errorCode'
  | 'errorMessage'
  | 'attemptCount'
  | 'casinoTransactionId'
  | 'createdAt'
  | 'updatedAt'
>;

export interface CallbackResult {
  status: CallbackStatus;
  attempts: number;
  statusCode: number | null;
  responseBody: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  casinoTransactionId: string | null;
}

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

/**
 * Rounds and wallet callbacks are partitioned by the round's time (migration 20261128131000): a
 * statement that names the round by id also bounds that time, `column BETWEEN gp_round_lo(id) AND
 * gp_round_hi(id)` (the UUIDv7 id's time, or the legacy partition's range for an older id), so
 * PostgreSQL reads one partition. Two `?`: the round id twice (`roundAtValues`).
 */
export const roundAt = (column: string) => `${column} BETWEEN gp_round_lo(?::text) AND gp_round_hi(?::text)`;
export const roundAtValues = (roundId: string) => [roundId, roundId];

/**
 * `AND roundAt(column)` for a statement on the partitioned tables; nothing for one that names the
 * round's month itself (partitions.ts `roundTables`): there the round's id is the leading column of
 * the key it is looked up by — rounds (round_id, created_at), callbacks (id, round_created_at) —
 * and one id is one time (rounds_id_time), so the bound selects nothing more and would only cost
 * two evaluations of gp_round_time's regular expression an execution.
 */
export const roundAtIn = (t: { named: boolean }, column: string, roundId: string): { sql: string; values: unknown[] } =>
  t.named ? { sql: '', values: [] } : { sql: ` AND ${roundAt(column)}`, values: roundAtValues(roundId) };

/**
 * The callbacks of a round, found by their key: every key begins with `<round id>:` (CHECK
 * wallet_callbacks_key_of_round) and sorts bytewise (the "C" collation, migration 20261129000000),
 * so "the keys from `<id>:` up to `<id>;`" is a range of the unique key's index, (idempotency_key,
 * round_created_at), and callbacks need no index on round_id (docs/performance.md "Issue 25:
 * PostgreSQL per bet, the fourth session"). `roundIdSql` is SQL naming the round id (a column or `?`).
 */
export const callbackKeyOfRound = (keyColumn: string, roundIdSql: string) => `${keyColumn} >= ${roundIdSql} || ':' AND ${keyColumn} < ${roundIdSql} || ';'`;

const CALLBACK_COLUMNS =
  'round_created_at, round_id, operator_id, player_ref, operation, purpose, idempotency_key, debit_idempotency_key, amount, currency, method, path, url, request_body, request_body_enc, callback_status';

export function callbackValues(c: NewCallback): unknown[] {
  return [
    c.operatorId,
    c.playerRef,
    c.operation,
    c.purpose,
    c.idempotencyKey,
    c.debitIdempotencyKey,
    c.amount.toString(),
    c.currency,
    c.path,
    c.url,
    c.requestBody,
    c.requestBodyEnc,
  ];
}
/** `INSERT INTO wallet_callbacks … SELECT` of one new callback whose round id comes from the CTE `source`. */
export const insertCallbackFrom = (source: string, table = 'wallet_callbacks') =>
  `INSERT INTO ${table} (${CALLBACK_COLUMNS}) SELECT ${source}.created_at, ${source}.round_id, ?, ?, ?, ?, ?, ?, ?, ?, 'POST', ?, ?, ?, ?, 'pending' FROM ${source} RETURNING id, created_at, updated_at`;

export function callbackRecorded(c: NewCallback, row: { cb_id: string | number; cb_created_at: Date | string; cb_updated_at: Date | string }): Callback {
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

/**
 * `UPDATE wallet_callbacks` storing an attempt's result (a final callback stays as it is) + the
 * player's balance, as CTEs: the known player's row updated in place, else inserted (ON CONFLICT for
 * a concurrent first answer). Not an upsert alone: `INSERT … ON CONFLICT DO UPDATE` locks the row it
 * updates, one more WAL record per answer (docs/performance.md "Issue 25: PostgreSQL writes per bet").
 * Without a balance the statement has no balance CTEs at all (`tag` names the variant in prepared
 * statements' names): each data-modifying CTE is a table PostgreSQL opens, with its indexes,
 * constraints and triggers, for every execution, even when it writes nothing.
 *
 * `balanceRow: 'update'`: the player's row is only updated (CTE `bal`, one row when it was there);
 * the caller reads `(SELECT count(*) FROM bal)` and writes the balance on its own when it was not
 * (`rememberBalance`). A session's launch writes the row (validate-session's balance), so a bet's
 * answer finds it: one table a statement fewer than the insert-when-missing pair.
 */
export function resultCtes(
  callback: { idempotencyKey: string; roundId: string },
  r: CallbackResult,
  balance: BalanceReport | null,
  tables: { callbacks: string; named: boolean } = { callbacks: 'wallet_callbacks', named: false },
  balanceRow: 'upsert' | 'update' = 'upsert',
): { sql: string; values: unknown[]; tag: string } {
  const at = roundAtIn(tables, 'round_created_at', callback.roundId);
  const result = `cb AS (
      UPDATE ${tables.callbacks} SET callback_status = ?, attempt_count = attempt_count + ?, status_code = ?, response_body = ?, error_code = ?, error_message = ?, casino_transaction_id = ?, updated_at = now()
      WHERE idempotency_key = ?${at.sql} AND callback_status = 'pending' RETURNING 1
    )`;
  const values: unknown[] = [
    r.status,
    r.attempts,
    r.statusCode,
    r.responseBody,
    r.errorCode,
    r.errorMessage,
    r.casinoTransactionId,
    callback.idempotencyKey,
    ...at.values,
  ];
  if (balance === null) return { sql: result, values, tag: '' };
  // the player's known row updated in place (both variants); its values first
  const amount = balance.balance.toString();
  const update = 'UPDATE player_balances SET currency = ?, balance = ?, reported_at = now() WHERE operator_id = ? AND player_ref = ? RETURNING 1';
  values.push(balance.currency, amount, balance.operatorId, balance.playerRef);
  if (balanceRow === 'update') return { sql: `${result}, bal AS (${update})`, values, tag: '_balu' };
  const sql = `${result}, bal_known AS (${update}), bal AS (
      INSERT INTO player_balances (operator_id, player_ref, currency, balance, reported_at) SELECT ?, ?, ?, ?, now() WHERE NOT EXISTS (SELECT 1 FROM bal_known)
      ON CONFLICT (operator_id, player_ref) DO UPDATE SET currency = EXCLUDED.currency, balance = EXCLUDED.balance, reported_at = EXCLUDED.reported_at
    )`;
  values.push(balance.operatorId, balance.playerRef, balance.currency, amount);
  return { sql, values, tag: '_bal' };
}

/**
 * A wallet callback's own row: recorded before it is attempted, its result stored after, and a
 * debit whose answer was never stored marked unanswered. The round-changing statements that also
 * write a callback are in writes.ts.
 */
import { hotQuery, type Queryable } from '../../store/db.js';
import {
  roundAt,
  roundAtValues,
  type BalanceReport,
  type Callback,
  callbackFromRow,
  type CallbackResult,
  type CallbackRow,
  type NewCallback,
  resultCtes,
} from './rows.js';
import { getCallback } from './reads.js';
import { roundTables } from './partitions.js';

/** Records a callback before it is attempted. An existing key answers the existing row. */
export async function insertCallback(db: Queryable, c: NewCallback): Promise<Callback> {
  const rows = await db('wallet_callbacks')
    .insert({
      round_created_at: db.raw(`(SELECT created_at FROM rounds WHERE round_id = ? AND ${roundAt('created_at')})`, [c.roundId, ...roundAtValues(c.roundId)]),
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
    .onConflict(['idempotency_key', 'round_created_at'])
    .ignore()
    .returning('*');
  if (rows[0]) return callbackFromRow(rows[0] as CallbackRow);
  const existing = await getCallback(db, c.idempotencyKey);
  if (!existing) throw new Error(`callback ${c.idempotencyKey} vanished`);
  return existing;
}

/**
 * Stores the outcome of an attempt (a callback that is final stays as it is) and, when the answer
 * carried one, the player's balance: one statement.
 */
export async function recordCallbackResult(
  db: Queryable,
  callback: { idempotencyKey: string; roundId: string },
  r: CallbackResult,
  balance: BalanceReport | null = null,
): Promise<void> {
  const t = roundTables(db, callback.roundId);
  const { sql, values, tag } = resultCtes(callback, r, balance, t);
  await hotQuery(db, `gp_callback_result${tag}${t.tag}`, `WITH ${sql} SELECT 1`, values);
}

/**
 * A debit a worker sent but whose answer it never stored (it stopped): its fate is unknown, so it
 * is recorded as failed with CASINO_TIMEOUT, and the money path rolls it back.
 */
export async function markCallbackUnanswered(db: Queryable, callback: { idempotencyKey: string; roundId: string }): Promise<void> {
  await db('wallet_callbacks')
    .where({ idempotency_key: callback.idempotencyKey, callback_status: 'pending' })
    .whereRaw(roundAt('round_created_at'), roundAtValues(callback.roundId))
    .update({ callback_status: 'failed', error_code: 'CASINO_TIMEOUT', error_message: 'no answer recorded: the worker stopped', updated_at: db.fn.now() });
}

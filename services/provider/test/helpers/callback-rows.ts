/** A wallet callback row written straight into the table, for the tests of the database's own rules. */
import type { Knex } from 'knex';

/**
 * `INSERT INTO wallet_callbacks` of a pending debit of the round (key `<round id>:debit`, 10 USD of
 * operator `op`, player `p`) at its round's time; `extra` replaces any column.
 */
export function insertCallbackRow(db: Knex, roundId: string, extra: Record<string, unknown> = {}) {
  const operation = typeof extra.operation === 'string' ? extra.operation : 'debit';
  return db('wallet_callbacks').insert({
    round_created_at: db.raw('gp_round_time(?)', [roundId]),
    round_id: roundId,
    operator_id: 'op',
    player_ref: 'p',
    operation,
    purpose: 'bet',
    idempotency_key: `${roundId}:debit`,
    amount: 10,
    currency: 'USD',
    method: 'POST',
    path: `/wallet/${operation}`,
    url: 'x',
    request_body: '{}',
    request_body_enc: 'x',
    callback_status: 'pending',
    ...extra,
  });
}

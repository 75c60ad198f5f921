// Issue 25 (the seventh session): every callback a bet records (a debit and a credit) wrote an entry
// in the primary key (id, round_created_at): two WAL records a dice bet, for a key nothing on the
// money path needs. A callback is found by its idempotency key (UNIQUE (idempotency_key,
// round_created_at), the key naming its round: CHECK wallet_callbacks_key_of_round), and that is now
// how every statement finds one (round-store/rows.ts resultCtes, callback-writes.ts). The
// reconciliation pages (reconciliation_rows, GET /api/reconciliation and the console's) ordered and
// paged by id; they now order by (created_at, id) through (operator_id, created_at), one operator at a
// time (rounds/reconciliation.ts). `id` stays a column (its sequence still numbers every callback,
// the tie-break of two callbacks recorded in the same microsecond); only its index goes.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw('ALTER TABLE wallet_callbacks DROP CONSTRAINT wallet_callbacks_pkey');
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('ALTER TABLE wallet_callbacks ADD CONSTRAINT wallet_callbacks_pkey PRIMARY KEY (id, round_created_at)');
}

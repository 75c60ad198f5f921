// The in-service wallet retry scheduler (issue 26): each pending round carries its own backoff,
// so every pod agrees on when it is next due and a restart does not reset it. `retry_attempts`
// counts the scheduler's attempts, `next_retry_at` is when the next one is due (NULL: 5 s — the
// first step of WALLET_RETRY_BACKOFF_S — after the round last changed), `last_retry_at` when the
// last one started. Nullable columns and a constant default: no table rewrite, no lock held for long.
// None of them is indexed: a retry's write stays a HOT update; the scheduler finds its rounds
// through the partial index of rounds in flight (rounds_in_flight).

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`ALTER TABLE rounds
    ADD COLUMN retry_attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN next_retry_at timestamptz,
    ADD COLUMN last_retry_at timestamptz`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('ALTER TABLE rounds DROP COLUMN IF EXISTS last_retry_at, DROP COLUMN IF EXISTS next_retry_at, DROP COLUMN IF EXISTS retry_attempts');
}

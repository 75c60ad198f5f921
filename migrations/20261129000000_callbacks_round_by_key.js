// Issue 25 (the fourth session): every callback a bet records (a debit and a credit) was written into
// an index on round_id alone, only to find "the callbacks of a round". Every key begins with its
// round's id and a colon (CHECK wallet_callbacks_key_of_round), so the unique key's own index
// (idempotency_key, round_created_at) serves that as a prefix range — `idempotency_key >= id || ':'
// AND idempotency_key < id || ';'` (round-store/rows.ts `callbacksOfRoundAt`) — once the key sorts
// bytewise: the column takes the "C" collation (in a linguistic collation such as en_US, ':' and ';'
// are ignored at the first level, and the range would not be the prefix). The keys are ASCII (a
// UUID, ':', the operation); no query orders by them. The unique rule stays the same constraint.
// One fewer index entry per callback (two per settled bet); docs/performance.md "Issue 25:
// PostgreSQL per bet, the fourth session".

const rowsOf = (res) => res.rows ?? res;

/** The column's collation changes with the views that read it (reconciliation_rows) dropped and recreated as they were. */
async function withViewsDropped(knex, change) {
  const views = rowsOf(
    await knex.raw(`SELECT DISTINCT c.relname AS name, pg_get_viewdef(c.oid) AS def FROM pg_depend d JOIN pg_rewrite w ON w.oid = d.objid JOIN pg_class c ON c.oid = w.ev_class
      WHERE d.refobjid = 'wallet_callbacks'::regclass AND c.relkind = 'v'`),
  );
  for (const v of views) await knex.raw(`DROP VIEW ${v.name}`);
  await change();
  for (const v of views) await knex.raw(`CREATE VIEW ${v.name} AS ${v.def}`);
}

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await withViewsDropped(knex, () => knex.raw('ALTER TABLE wallet_callbacks ALTER COLUMN idempotency_key TYPE text COLLATE "C"'));
  await knex.raw('DROP INDEX IF EXISTS wallet_callbacks_round_id_index');
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('CREATE INDEX wallet_callbacks_round_id_index ON wallet_callbacks (round_id)');
  await withViewsDropped(knex, () => knex.raw('ALTER TABLE wallet_callbacks ALTER COLUMN idempotency_key TYPE text COLLATE "default"'));
}

// Issue 25: an idempotency record is inserted small (the claim) and updated once with the request's
// answer (a few hundred bytes of JSON). With fillfactor 60 (migration 20261128130000) one update in
// five found no room on its page and was not HOT (a dice ×64 run: 632 of 805 HOT): a new row version
// elsewhere and an entry in both indexes. New pages now keep three quarters free, the room the
// answers of the page's claims take; a page ends about as full as before (every record grows to its
// answer), so the table is not larger.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw('ALTER TABLE idempotency_records SET (fillfactor = 25)');
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('ALTER TABLE idempotency_records SET (fillfactor = 60)');
}

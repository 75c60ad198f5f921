// Staff sign-in attempts (issue 23 defect 2), one row per normalised email whether or not an
// account has it, keyed by the SHA-256 (hex) of the lower-cased email so a mistyped address is not
// stored in clear. A login or a password change first reserves its attempt with one conditional
// upsert (staff/staff-store.ts `reserveSignInAttempt`): while `locked_until` is in the future
// nothing is evaluated; the attempt that reaches the limit sets the lock. The check and the count
// are one statement, so a burst of parallel attempts cannot all read "not locked" before any of
// them is counted. A correct password deletes the row.
//
// staff_accounts.failed_logins / locked_until are no longer read or written; they stay so pods
// of the previous release keep working during a rolling update (a later migration may drop them).

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('staff_login_attempts', (t) => {
    t.text('email_key').primary();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('locked_until', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE staff_login_attempts
    ADD CONSTRAINT staff_login_attempts_key_check CHECK (email_key ~ '^[0-9a-f]{64}$'),
    ADD CONSTRAINT staff_login_attempts_attempts_check CHECK (attempts >= 0)`);
  // The counts and locks so far carry over (emails are stored lower-cased).
  await knex.raw(`INSERT INTO staff_login_attempts (email_key, attempts, locked_until)
    SELECT encode(sha256(convert_to(email, 'UTF8')), 'hex'), failed_logins, locked_until FROM staff_accounts
    WHERE failed_logins > 0 OR locked_until IS NOT NULL`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.schema.dropTable('staff_login_attempts');
}

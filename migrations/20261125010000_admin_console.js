// The admin console (issue 13): staff accounts and their server-side sessions, the append-only
// config-change audit, the previous operator secret during a rotation's grace period, and the
// indexes the console's round search and reports read through.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('staff_accounts', (t) => {
    t.text('staff_id').primary();
    t.text('email').notNullable().unique(); // stored lower-case
    t.text('password_hash').notNullable(); // scrypt, see staff/passwords.ts
    t.text('role').notNullable(); // platform_admin | admin | viewer
    t.text('tenant_id'); // null for a platform admin
    t.integer('failed_logins').notNullable().defaultTo(0);
    t.timestamp('locked_until', { useTz: true });
    t.timestamp('password_changed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_login_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['tenant_id']);
  });
  await knex.raw(`ALTER TABLE staff_accounts
    ADD CONSTRAINT staff_accounts_role_check CHECK (role IN ('platform_admin', 'admin', 'viewer')),
    ADD CONSTRAINT staff_accounts_tenant_check CHECK ((role = 'platform_admin') = (tenant_id IS NULL))`);

  await knex.schema.createTable('staff_sessions', (t) => {
    t.text('token_hash').primary(); // SHA-256 of the cookie value: the database never holds a usable token
    t.text('staff_id').notNullable().references('staff_accounts.staff_id').onDelete('CASCADE');
    t.text('ip');
    t.text('user_agent');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.index(['staff_id']);
  });

  await knex.schema.createTable('config_audit', (t) => {
    t.bigIncrements('id').primary();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('actor_kind').notNullable(); // staff | admin-token | cli | system
    t.text('actor_id');
    t.text('actor_email');
    t.text('ip');
    t.text('user_agent');
    t.text('action').notNullable();
    t.text('tenant_id');
    t.text('operator_id');
    t.text('target_type').notNullable(); // operator | secret | staff | round
    t.text('target_id').notNullable();
    t.jsonb('before');
    t.jsonb('after');
    t.index(['operator_id', 'id']);
    t.index(['tenant_id', 'id']);
  });
  // Append-only: the database refuses to change or remove a record, whatever the caller.
  await knex.raw(`CREATE FUNCTION config_audit_append_only() RETURNS trigger AS $$
    BEGIN
      RAISE EXCEPTION 'config_audit is append-only';
    END $$ LANGUAGE plpgsql`);
  await knex.raw(`CREATE TRIGGER config_audit_append_only BEFORE UPDATE OR DELETE ON config_audit
    FOR EACH ROW EXECUTE FUNCTION config_audit_append_only()`);
  await knex.raw(`CREATE TRIGGER config_audit_no_truncate BEFORE TRUNCATE ON config_audit
    FOR EACH STATEMENT EXECUTE FUNCTION config_audit_append_only()`);

  await knex.schema.alterTable('operators', (t) => {
    t.text('previous_secret_enc');
    t.timestamp('previous_secret_until', { useTz: true });
    t.timestamp('secret_rotated_at', { useTz: true });
  });

  // Round search and reports: newest first, by operator or across them, keyset-paginated.
  await knex.raw('CREATE INDEX rounds_created_desc ON rounds (created_at DESC, round_id DESC)');
  await knex.raw('CREATE INDEX rounds_operator_created_desc ON rounds (operator_id, created_at DESC, round_id DESC)');
  await knex.raw('CREATE INDEX rounds_player_created_desc ON rounds (player_ref, created_at DESC, round_id DESC)');
  await knex.raw('CREATE INDEX wallet_callbacks_created ON wallet_callbacks (created_at)');
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS wallet_callbacks_created');
  await knex.raw('DROP INDEX IF EXISTS rounds_player_created_desc');
  await knex.raw('DROP INDEX IF EXISTS rounds_operator_created_desc');
  await knex.raw('DROP INDEX IF EXISTS rounds_created_desc');
  await knex.schema.alterTable('operators', (t) => {
    t.dropColumn('previous_secret_enc');
    t.dropColumn('previous_secret_until');
    t.dropColumn('secret_rotated_at');
  });
  await knex.schema.dropTable('config_audit');
  await knex.raw('DROP FUNCTION IF EXISTS config_audit_append_only()');
  await knex.schema.dropTable('staff_sessions');
  await knex.schema.dropTable('staff_accounts');
}

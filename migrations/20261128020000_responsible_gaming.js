// Responsible gaming (issue 27): the profile's rules (null: none, today's behaviour) and the
// jurisdiction the casino's validate-session named for the session's player (null: none sent).
export async function up(knex) {
  await knex.raw(`ALTER TABLE operators ADD COLUMN responsible_gaming jsonb`);
  await knex.raw(`ALTER TABLE sessions
    ADD COLUMN jurisdiction text,
    ADD CONSTRAINT sessions_jurisdiction_check CHECK (jurisdiction IS NULL OR jurisdiction ~ '^[A-Z]{2}(-[A-Z0-9]{1,3}){0,1}$')`);
}

export async function down(knex) {
  await knex.raw('ALTER TABLE sessions DROP CONSTRAINT IF EXISTS sessions_jurisdiction_check, DROP COLUMN IF EXISTS jurisdiction');
  await knex.raw('ALTER TABLE operators DROP COLUMN IF EXISTS responsible_gaming');
}

// Player sessions end (issue 23): after SESSION_IDLE_MINUTES without a request, SESSION_MAX_HOURS
// after they began, or when the casino ends them (signed operator API). `last_seen_at` is
// touched at most once a minute per session; `ended_at` is set once and never cleared.
export async function up(knex) {
  await knex.raw(`ALTER TABLE sessions
    ADD COLUMN last_seen_at timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN ended_at timestamptz,
    ADD COLUMN ended_reason text,
    ADD CONSTRAINT sessions_ended_reason_check CHECK ((ended_at IS NULL) = (ended_reason IS NULL))`);
  // A session that ended stays ended: no update may clear ended_at or move it.
  await knex.raw(`CREATE FUNCTION sessions_end_is_final() RETURNS trigger AS $$
    BEGIN
      IF OLD.ended_at IS NOT NULL AND (NEW.ended_at IS DISTINCT FROM OLD.ended_at OR NEW.ended_reason IS DISTINCT FROM OLD.ended_reason) THEN
        RAISE EXCEPTION 'sessions_end_is_final: session % ended at %', OLD.session_id, OLD.ended_at;
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`);
  await knex.raw(`CREATE TRIGGER sessions_end_is_final BEFORE UPDATE ON sessions FOR EACH ROW EXECUTE FUNCTION sessions_end_is_final()`);
}

export async function down(knex) {
  await knex.raw('DROP TRIGGER IF EXISTS sessions_end_is_final ON sessions');
  await knex.raw('DROP FUNCTION IF EXISTS sessions_end_is_final()');
  await knex.raw(
    'ALTER TABLE sessions DROP CONSTRAINT IF EXISTS sessions_ended_reason_check, DROP COLUMN IF EXISTS ended_reason, DROP COLUMN IF EXISTS ended_at, DROP COLUMN IF EXISTS last_seen_at',
  );
}

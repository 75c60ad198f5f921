// Issue 25: idempotency records partitioned by time (native PostgreSQL range partitioning, one
// partition a week, Monday 00:00 UTC), so their retention is dropping a week and the index a bet
// writes is the current week's. docs/DECISIONS.md "Idempotency records partitioned by session
// start" and docs/performance.md "Issue 25: idempotency records partitioned" hold the decisions; in
// short:
//
//  - The key is (operator_id, session_id, idempotency_key) and a unique key of a partitioned table
//    must hold the partition key, so the partition key is a function of the key: the session's
//    start. A session id is a UUIDv7 (sessions/sessions.ts: its first 48 bits are the session's
//    creation time, then 122 random bits as a round id's), and `session_at` IS that time (CHECK
//    idempotency_records_session_time: session_at = gp_session_time(session_id)). So the primary
//    key (operator_id, session_id, idempotency_key, session_at) keeps keys unique across
//    partitions: one session, one time, one partition. A session id that is not a UUIDv7 (the
//    sessions from before this migration) has the time -infinity: its records live in
//    `idempotency_records_legacy` (every time before the cut-over), one partition as before.
//  - `id` stays (a sequence) but is no longer a key: the key is the identity, one index a record.
//  - gp_ensure_idempotency_partitions(ahead) creates the weeks up to now() + ahead; the service's
//    gp_ensure_time_partitions (at start and in the maintenance pass) calls it, so the week a
//    session begins in always exists.
//  - gp_drop_idempotency_partitions(before) drops whole weeks ending at or before `before`. The
//    service passes now − (SESSION_MAX_HOURS + IDEMPOTENCY_RETENTION_HOURS): a session's keys are
//    only ever presented by that session, which ends SESSION_MAX_HOURS after it began, so every
//    record of a dropped week is older than the retention period and no live session can present
//    it. The legacy partition keeps the retention DELETE (it receives records only from the
//    sessions of before the cut-over, for at most their lifetime).
//  - queries of a key add `session_at = gp_session_time(session_id)`, so PostgreSQL reads one
//    partition (test/store/idempotency-partitions.test.ts shows it with EXPLAIN); the hot
//    statements name the week's partition itself (round-store/partitions.ts).
//
// The migration copies the existing rows (all of them to the legacy partition: their sessions'
// ids are UUIDv4). Pods must run the code of this migration (their statements write session_at).

const FILL = 25; // migration 20261128182000

const rowsOf = (res) => res.rows ?? res;

const ENSURE_MONTHS_BODY = (call) => `
    DECLARE
      made integer := 0;
      lo timestamptz;
      hi timestamptz;
      suffix text;
    BEGIN
      PERFORM pg_advisory_xact_lock(7211202425);
      SELECT max(to_ts) INTO lo FROM time_partitions WHERE parent = 'rounds';
      WHILE lo < now() + ahead LOOP
        hi := (date_trunc('month', lo AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
        suffix := to_char(lo AT TIME ZONE 'UTC', 'YYYY_MM');
        EXECUTE format('CREATE TABLE %I PARTITION OF rounds FOR VALUES FROM (%L) TO (%L) WITH (fillfactor = 70)', 'rounds_' || suffix, lo, hi);
        EXECUTE format('CREATE UNIQUE INDEX %I ON %I (seed_pair_id, nonce)', 'rounds_' || suffix || '_seed_pair_nonce', 'rounds_' || suffix);
        EXECUTE format('CREATE TABLE %I PARTITION OF wallet_callbacks FOR VALUES FROM (%L) TO (%L) WITH (fillfactor = 60)', 'wallet_callbacks_' || suffix, lo, hi);
        INSERT INTO time_partitions VALUES ('rounds_' || suffix, 'rounds', lo, hi), ('wallet_callbacks_' || suffix, 'wallet_callbacks', lo, hi);
        made := made + 1;
        lo := hi;
      END LOOP;${call}
      RETURN made;
    END`;

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  const now = rowsOf(await knex.raw(`SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00' AS t`))[0];
  const cutover = now.t;

  const indexes = rowsOf(
    await knex.raw(`SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'idempotency_records'`),
  ).map((i) => i.name);
  // (the key's name as PostgreSQL stored it: cut to 63 characters)
  const unknown = indexes.filter((n) => n !== 'idempotency_records_pkey' && !n.startsWith('idempotency_records_operator_id_session_id_idempotency_key_uni'));
  if (unknown.length > 0) throw new Error(`indexes on idempotency_records this migration does not know: ${unknown.join(', ')}`);
  const triggers = rowsOf(await knex.raw(`SELECT 1 FROM pg_trigger WHERE NOT tgisinternal AND tgrelid = 'idempotency_records'::regclass`));
  if (triggers.length > 0) throw new Error('triggers on idempotency_records this migration does not know');

  // the session's time: its UUIDv7's, or -infinity for any other id (the legacy partition)
  await knex.raw(`CREATE FUNCTION gp_session_time(id text) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(gp_round_time(id), to_timestamp('-infinity'::float8)) $$`);

  await knex.raw('ALTER TABLE idempotency_records RENAME TO idempotency_records_unpartitioned');
  await knex.raw(`CREATE TABLE idempotency_records (LIKE idempotency_records_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS, session_at timestamptz NOT NULL)
    PARTITION BY RANGE (session_at)`);
  await knex.raw(
    `CREATE TABLE idempotency_records_legacy PARTITION OF idempotency_records FOR VALUES FROM (MINVALUE) TO ('${cutover}') WITH (fillfactor = ${FILL})`,
  );
  await knex.raw(`INSERT INTO time_partitions VALUES ('idempotency_records_legacy', 'idempotency_records', '-infinity', '${cutover}')`);
  await knex.raw('INSERT INTO idempotency_records SELECT u.*, gp_session_time(u.session_id) FROM idempotency_records_unpartitioned u');
  await knex.raw('ALTER SEQUENCE idempotency_records_id_seq OWNED BY NONE');
  await knex.raw('DROP TABLE idempotency_records_unpartitioned');
  await knex.raw('ALTER SEQUENCE idempotency_records_id_seq OWNED BY idempotency_records.id');

  await knex.raw('ALTER TABLE idempotency_records ADD CONSTRAINT idempotency_records_pkey PRIMARY KEY (operator_id, session_id, idempotency_key, session_at)');
  await knex.raw('ALTER TABLE idempotency_records ADD CONSTRAINT idempotency_records_session_time CHECK (session_at = gp_session_time(session_id))');

  await knex.raw(`CREATE FUNCTION gp_ensure_idempotency_partitions(ahead interval DEFAULT interval '8 days') RETURNS integer LANGUAGE plpgsql AS $$
    DECLARE
      made integer := 0;
      lo timestamptz;
      hi timestamptz;
      name text;
    BEGIN
      PERFORM pg_advisory_xact_lock(7211202425);
      SELECT max(to_ts) INTO lo FROM time_partitions WHERE parent = 'idempotency_records';
      WHILE lo < now() + ahead LOOP
        hi := (date_trunc('week', lo AT TIME ZONE 'UTC') + interval '1 week') AT TIME ZONE 'UTC';
        name := 'idempotency_records_' || to_char(date_trunc('week', lo AT TIME ZONE 'UTC'), 'YYYY_MM_DD');
        EXECUTE format('CREATE TABLE %I PARTITION OF idempotency_records FOR VALUES FROM (%L) TO (%L) WITH (fillfactor = ${FILL})', name, lo, hi);
        INSERT INTO time_partitions VALUES (name, 'idempotency_records', lo, hi);
        made := made + 1;
        lo := hi;
      END LOOP;
      RETURN made;
    END $$`);
  await knex.raw(`CREATE FUNCTION gp_drop_idempotency_partitions(before timestamptz) RETURNS integer LANGUAGE plpgsql AS $$
    DECLARE
      p record;
      dropped integer := 0;
    BEGIN
      PERFORM pg_advisory_xact_lock(7211202425);
      FOR p IN SELECT name FROM time_partitions WHERE parent = 'idempotency_records' AND to_ts <= before AND from_ts > '-infinity' ORDER BY from_ts LOOP
        EXECUTE format('DROP TABLE %I', p.name);
        DELETE FROM time_partitions WHERE name = p.name;
        dropped := dropped + 1;
      END LOOP;
      RETURN dropped;
    END $$`);
  // the months of rounds and callbacks, then the weeks of idempotency records: every caller makes both
  await knex.raw(
    `CREATE OR REPLACE FUNCTION gp_ensure_time_partitions(ahead interval DEFAULT interval '3 months') RETURNS integer LANGUAGE plpgsql AS $$${ENSURE_MONTHS_BODY(
      '\n      made := made + gp_ensure_idempotency_partitions();',
    )} $$`,
  );
  await knex.raw('SELECT gp_ensure_idempotency_partitions()');
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw(
    `CREATE OR REPLACE FUNCTION gp_ensure_time_partitions(ahead interval DEFAULT interval '3 months') RETURNS integer LANGUAGE plpgsql AS $$${ENSURE_MONTHS_BODY(
      '',
    )} $$`,
  );
  await knex.raw('ALTER TABLE idempotency_records RENAME TO idempotency_records_partitioned');
  await knex.raw(
    `CREATE TABLE idempotency_records (LIKE idempotency_records_partitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS) WITH (fillfactor = ${FILL})`,
  );
  await knex.raw('ALTER TABLE idempotency_records DROP CONSTRAINT idempotency_records_session_time, DROP COLUMN session_at');
  await knex.raw(`INSERT INTO idempotency_records (id, operator_id, session_id, idempotency_key, request_hash, round_id, state, response_status, response_body,
      response_round_status, created_at, completed_at)
    SELECT id, operator_id, session_id, idempotency_key, request_hash, round_id, state, response_status, response_body, response_round_status, created_at, completed_at
    FROM idempotency_records_partitioned`);
  await knex.raw('ALTER SEQUENCE idempotency_records_id_seq OWNED BY NONE');
  await knex.raw('DROP TABLE idempotency_records_partitioned');
  await knex.raw('ALTER SEQUENCE idempotency_records_id_seq OWNED BY idempotency_records.id');
  await knex.raw('ALTER TABLE idempotency_records ADD CONSTRAINT idempotency_records_pkey PRIMARY KEY (id)');
  await knex.raw(
    'ALTER TABLE idempotency_records ADD CONSTRAINT idempotency_records_operator_id_session_id_idempotency_key_unique UNIQUE (operator_id, session_id, idempotency_key)',
  );
  await knex.raw(`DELETE FROM time_partitions WHERE parent = 'idempotency_records'`);
  await knex.raw('DROP FUNCTION gp_drop_idempotency_partitions(timestamptz)');
  await knex.raw('DROP FUNCTION gp_ensure_idempotency_partitions(interval)');
  await knex.raw('DROP FUNCTION gp_session_time(text)');
}

// Issue 25: rounds and wallet callbacks partitioned by time (native PostgreSQL range partitioning,
// one partition a calendar month, UTC), so retention is dropping a partition and the indexes a bet
// writes are the current month's, small whatever the history holds. docs/performance.md
// "Partitioning" holds the decisions; in short:
//
//  - rounds: PARTITION BY RANGE (created_at). A round's id is a UUIDv7 (rounds/money-path/
//    opening.ts): its first 48 bits are its creation time in ms, and `created_at` IS that time
//    (CHECK rounds_id_time, computed by gp_round_time(round_id) in the insert). So the primary key
//    (round_id, created_at) keeps round ids unique across partitions: one id, one time, one
//    partition. Rounds from before this migration (UUIDv4 ids) stay in `rounds_legacy` (every time
//    before the cut-over), where a unique index of its own keeps their ids unique; a round id that is
//    not a UUIDv7 is refused after the cut-over (the same CHECK).
//  - wallet_callbacks: PARTITION BY RANGE (round_created_at), the time of the callback's round (a
//    round's callbacks live in its month: both are dropped together). Every key begins with its
//    round's id (CHECK wallet_callbacks_key_of_round), so UNIQUE (idempotency_key, round_created_at)
//    keeps keys unique across partitions (one key, one round, one round time); the same for one
//    credit per round and one rollback per debit. The foreign key to the round is
//    (round_id, round_created_at) → rounds (round_id, created_at).
//  - (seed_pair_id, nonce) is unique in each partition (an index per partition, made with it); a
//    seed pair's rounds take their nonces from its counter in the statement that inserts them.
//  - gp_ensure_time_partitions(ahead) creates the months up to now() + ahead (the service calls it at
//    start and from the cron pass); gp_drop_time_partitions(before) drops whole months older than
//    `before` that hold no round in flight (retention; nothing calls it by default: rounds and
//    callbacks are the audit).
//  - queries by round id add `created_at BETWEEN gp_round_lo(id) AND gp_round_hi(id)` (the id's
//    time, or for an old id the legacy range), so PostgreSQL reads one partition
//    (round-store/rows.ts `ROUND_AT`; test/store/partitions.test.ts shows it with EXPLAIN).
//
// The migration copies the existing rows (every one goes to the legacy partitions), then builds the
// keys, indexes and triggers; triggers, views and indexes other migrations put on the two tables are
// recreated from their definitions.

const ROUNDS_FILL = 70;
const CALLBACKS_FILL = 60;

const rowsOf = (res) => res.rows ?? res;

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  const now = rowsOf(
    await knex.raw(
      `SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00' AS t, ceil(extract(epoch FROM now()))::bigint::text AS ceil_s`,
    ),
  )[0];
  const cutover = now.t;

  await knex.raw(`CREATE FUNCTION gp_round_time(id text) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
      THEN to_timestamp((('x' || substr(id, 1, 8) || substr(id, 10, 4))::bit(48)::bigint) / 1000.0) END $$`);
  // (only immutable pieces — to_timestamp(float8), no timestamptz literal, whose input function is
  // stable — so the planner inlines them into the statement and prunes partitions with them)
  await knex.raw(`CREATE FUNCTION gp_round_lo(id text) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(gp_round_time(id), to_timestamp('-infinity'::float8)) $$`);
  await knex.raw(`CREATE FUNCTION gp_round_hi(id text) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(gp_round_time(id), to_timestamp(${now.ceil_s}::float8)) $$`);

  // What other migrations hung on the two tables: recreated on the partitioned ones.
  const views = rowsOf(
    await knex.raw(`SELECT DISTINCT c.relname AS name, pg_get_viewdef(c.oid) AS def FROM pg_depend d JOIN pg_rewrite w ON w.oid = d.objid JOIN pg_class c ON c.oid = w.ev_class
      WHERE d.refobjid IN ('rounds'::regclass, 'wallet_callbacks'::regclass) AND c.relkind = 'v'`),
  );
  const triggers = rowsOf(
    await knex.raw(
      `SELECT pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE NOT tgisinternal AND tgrelid IN ('rounds'::regclass, 'wallet_callbacks'::regclass)`,
    ),
  );
  const known = new Set([
    'rounds_pkey',
    'rounds_seed_pair_id_nonce_unique',
    'rounds_created_desc',
    'rounds_operator_created_desc',
    'rounds_player_created_desc',
    'rounds_player_recent',
    'rounds_free_bet_campaign',
    'wallet_callbacks_pkey',
    'wallet_callbacks_idempotency_key_unique',
    'wallet_callbacks_round_id_index',
    'wallet_callbacks_operator_id_created_at_index',
    'wallet_callbacks_one_rollback',
    'wallet_callbacks_one_credit',
    'wallet_callbacks_created',
    'wallet_callbacks_extra_rollbacks',
  ]);
  const otherIndexes = rowsOf(
    await knex.raw(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('rounds', 'wallet_callbacks')`,
    ),
  ).filter((i) => !known.has(i.name));
  for (const i of otherIndexes)
    if (/UNIQUE/i.test(i.def)) throw new Error(`unique index ${i.name} on rounds or wallet_callbacks: it needs the partition key (see this migration)`);
  for (const v of views) await knex.raw(`DROP VIEW ${v.name}`);

  await knex.raw('ALTER TABLE wallet_callbacks RENAME TO wallet_callbacks_unpartitioned');
  await knex.raw('ALTER TABLE rounds RENAME TO rounds_unpartitioned');
  for (const i of otherIndexes) await knex.raw(`DROP INDEX ${i.name}`);

  await knex.raw('CREATE TABLE rounds (LIKE rounds_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (created_at)');
  await knex.raw(`CREATE TABLE wallet_callbacks (LIKE wallet_callbacks_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS, round_created_at timestamptz NOT NULL)
    PARTITION BY RANGE (round_created_at)`);
  await knex.raw(`CREATE TABLE time_partitions (
    name text PRIMARY KEY, parent text NOT NULL, from_ts timestamptz NOT NULL, to_ts timestamptz NOT NULL)`);
  await knex.raw(`CREATE TABLE rounds_legacy PARTITION OF rounds FOR VALUES FROM (MINVALUE) TO ('${cutover}') WITH (fillfactor = ${ROUNDS_FILL})`);
  await knex.raw(
    `CREATE TABLE wallet_callbacks_legacy PARTITION OF wallet_callbacks FOR VALUES FROM (MINVALUE) TO ('${cutover}') WITH (fillfactor = ${CALLBACKS_FILL})`,
  );
  await knex.raw(
    `INSERT INTO time_partitions VALUES ('rounds_legacy', 'rounds', '-infinity', '${cutover}'), ('wallet_callbacks_legacy', 'wallet_callbacks', '-infinity', '${cutover}')`,
  );

  await knex.raw('INSERT INTO rounds SELECT * FROM rounds_unpartitioned');
  await knex.raw(
    'INSERT INTO wallet_callbacks SELECT c.*, r.created_at FROM wallet_callbacks_unpartitioned c JOIN rounds_unpartitioned r ON r.round_id = c.round_id',
  );
  await knex.raw('ALTER SEQUENCE wallet_callbacks_id_seq OWNED BY NONE');
  await knex.raw('DROP TABLE wallet_callbacks_unpartitioned');
  await knex.raw('DROP TABLE rounds_unpartitioned');
  await knex.raw('ALTER SEQUENCE wallet_callbacks_id_seq OWNED BY wallet_callbacks.id');

  // rounds: keys (on every partition), the legacy partition's own unique ids and nonces, indexes
  await knex.raw('ALTER TABLE rounds ADD CONSTRAINT rounds_pkey PRIMARY KEY (round_id, created_at)');
  await knex.raw(
    `ALTER TABLE rounds ADD CONSTRAINT rounds_id_time CHECK (CASE WHEN gp_round_time(round_id) IS NULL THEN created_at < '${cutover}' ELSE gp_round_time(round_id) = created_at END)`,
  );
  await knex.raw('CREATE UNIQUE INDEX rounds_legacy_round_id ON rounds_legacy (round_id)');
  await knex.raw('CREATE UNIQUE INDEX rounds_legacy_seed_pair_nonce ON rounds_legacy (seed_pair_id, nonce)');
  await knex.raw('ALTER TABLE rounds ADD CONSTRAINT rounds_seed_pair_id_foreign FOREIGN KEY (seed_pair_id) REFERENCES seed_pairs (id)');
  await knex.raw(
    'ALTER TABLE rounds ADD CONSTRAINT rounds_free_bet_campaign_id_foreign FOREIGN KEY (free_bet_campaign_id) REFERENCES free_bet_campaigns (campaign_id)',
  );
  await knex.raw('CREATE INDEX rounds_created_desc ON rounds (created_at DESC, round_id DESC)');
  await knex.raw('CREATE INDEX rounds_operator_created_desc ON rounds (operator_id, created_at DESC, round_id DESC)');
  await knex.raw('CREATE INDEX rounds_player_created_desc ON rounds (player_ref, created_at DESC, round_id DESC)');
  await knex.raw('CREATE INDEX rounds_player_recent ON rounds (operator_id, player_ref, created_at DESC, round_id DESC)');
  await knex.raw('CREATE INDEX rounds_free_bet_campaign ON rounds (free_bet_campaign_id) WHERE free_bet_campaign_id IS NOT NULL');

  // wallet_callbacks
  await knex.raw('ALTER TABLE wallet_callbacks ADD CONSTRAINT wallet_callbacks_pkey PRIMARY KEY (id, round_created_at)');
  await knex.raw('ALTER TABLE wallet_callbacks ADD CONSTRAINT wallet_callbacks_idempotency_key_unique UNIQUE (idempotency_key, round_created_at)');
  await knex.raw(`ALTER TABLE wallet_callbacks ADD CONSTRAINT wallet_callbacks_key_of_round
    CHECK (starts_with(idempotency_key, round_id || ':') AND (debit_idempotency_key IS NULL OR starts_with(debit_idempotency_key, round_id || ':')))`);
  await knex.raw(`CREATE UNIQUE INDEX wallet_callbacks_one_credit ON wallet_callbacks (round_id, round_created_at) WHERE operation = 'credit'`);
  await knex.raw(
    `CREATE UNIQUE INDEX wallet_callbacks_one_rollback ON wallet_callbacks (debit_idempotency_key, round_created_at) WHERE operation = 'rollback'`,
  );
  await knex.raw(
    'ALTER TABLE wallet_callbacks ADD CONSTRAINT wallet_callbacks_round_id_foreign FOREIGN KEY (round_id, round_created_at) REFERENCES rounds (round_id, created_at)',
  );
  await knex.raw('CREATE INDEX wallet_callbacks_round_id_index ON wallet_callbacks (round_id)');
  await knex.raw('CREATE INDEX wallet_callbacks_operator_id_created_at_index ON wallet_callbacks (operator_id, created_at)');
  await knex.raw('CREATE INDEX wallet_callbacks_created ON wallet_callbacks (created_at)');
  await knex.raw(
    `CREATE INDEX wallet_callbacks_extra_rollbacks ON wallet_callbacks (id) WHERE operation = 'rollback' AND purpose IN ('insurance', 'double', 'split')`,
  );

  for (const i of otherIndexes) await knex.raw(i.def.replace(/ ON (ONLY )?/i, ' ON '));
  for (const t of triggers) await knex.raw(t.def);
  for (const v of views) await knex.raw(`CREATE VIEW ${v.name} AS ${v.def}`);

  // The rounds in flight carry their round's time: the retry job's claims join on (round_id,
  // created_at), and PostgreSQL reads only the months that hold a round in flight.
  await knex.raw('ALTER TABLE rounds_in_flight ADD COLUMN created_at timestamptz');
  await knex.raw('UPDATE rounds_in_flight f SET created_at = r.created_at FROM rounds r WHERE r.round_id = f.round_id');
  await knex.raw(`CREATE OR REPLACE FUNCTION rounds_track_insert() RETURNS trigger AS $$
    BEGIN
      INSERT INTO rounds_in_flight (round_id, created_at) VALUES (NEW.round_id, NEW.created_at);
      IF NEW.game_type IN ('mines', 'blackjack') AND NEW.status IN ('debit_requested', 'active') THEN
        INSERT INTO open_rounds (operator_id, player_ref, game_type, round_id) VALUES (NEW.operator_id, NEW.player_ref, NEW.game_type, NEW.round_id);
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`);

  // The months: created ahead, each with its per-partition unique nonce index and fillfactor.
  await knex.raw(`CREATE FUNCTION gp_ensure_time_partitions(ahead interval DEFAULT interval '3 months') RETURNS integer LANGUAGE plpgsql AS $$
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
        EXECUTE format('CREATE TABLE %I PARTITION OF rounds FOR VALUES FROM (%L) TO (%L) WITH (fillfactor = ${ROUNDS_FILL})', 'rounds_' || suffix, lo, hi);
        EXECUTE format('CREATE UNIQUE INDEX %I ON %I (seed_pair_id, nonce)', 'rounds_' || suffix || '_seed_pair_nonce', 'rounds_' || suffix);
        EXECUTE format('CREATE TABLE %I PARTITION OF wallet_callbacks FOR VALUES FROM (%L) TO (%L) WITH (fillfactor = ${CALLBACKS_FILL})', 'wallet_callbacks_' || suffix, lo, hi);
        INSERT INTO time_partitions VALUES ('rounds_' || suffix, 'rounds', lo, hi), ('wallet_callbacks_' || suffix, 'wallet_callbacks', lo, hi);
        made := made + 1;
        lo := hi;
      END LOOP;
      RETURN made;
    END $$`);
  await knex.raw(`CREATE FUNCTION gp_drop_time_partitions(before timestamptz) RETURNS integer LANGUAGE plpgsql AS $$
    DECLARE
      p record;
      dropped integer := 0;
    BEGIN
      PERFORM pg_advisory_xact_lock(7211202425);
      FOR p IN SELECT name, from_ts, to_ts FROM time_partitions WHERE parent = 'rounds' AND to_ts <= before AND from_ts > '-infinity' ORDER BY from_ts LOOP
        -- a month still holding a round in flight (a credit or rollback pending) stays
        EXIT WHEN EXISTS (SELECT 1 FROM rounds r JOIN rounds_in_flight f ON f.round_id = r.round_id WHERE r.created_at >= p.from_ts AND r.created_at < p.to_ts);
        EXECUTE format('DROP TABLE %I', 'wallet_callbacks_' || substr(p.name, 8));
        EXECUTE format('DROP TABLE %I', p.name);
        DELETE FROM time_partitions WHERE name IN (p.name, 'wallet_callbacks_' || substr(p.name, 8));
        dropped := dropped + 1;
      END LOOP;
      RETURN dropped;
    END $$`);
  await knex.raw('SELECT gp_ensure_time_partitions()');
}

/** @param {import('knex').Knex} knex */
export async function down() {
  throw new Error('20261128131000_time_partitions cannot be undone: restore the database from before it');
}

// Issue 25: each partition a bet's statements carry costs PostgreSQL 15 CPU (≈ 0.07 ms per bet a
// partition, measured in docs/performance.md: its cached generic plans hold every partition and
// lock them before pruning). The service creates the months ahead at every start and in the
// maintenance pass, so one month ahead is enough: the empty months beyond the next are dropped.
//
// Dropping a month: the foreign key wallet_callbacks → rounds makes every month of rounds a
// referenced table, which DROP TABLE refuses; a month is detached first (the callbacks' month
// before the rounds' month: PostgreSQL checks on detaching that no callback still refers to it),
// then dropped. gp_drop_time_partitions is redefined so.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`CREATE FUNCTION gp_drop_time_partition(month_name text) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      cb text := 'wallet_callbacks_' || substr(month_name, 8);
    BEGIN
      EXECUTE format('ALTER TABLE wallet_callbacks DETACH PARTITION %I', cb);
      EXECUTE format('DROP TABLE %I', cb);
      EXECUTE format('ALTER TABLE rounds DETACH PARTITION %I', month_name);
      EXECUTE format('DROP TABLE %I', month_name);
      DELETE FROM time_partitions WHERE name IN (month_name, cb);
    END $$`);
  await knex.raw(`CREATE OR REPLACE FUNCTION gp_drop_time_partitions(before timestamptz) RETURNS integer LANGUAGE plpgsql AS $$
    DECLARE
      p record;
      dropped integer := 0;
    BEGIN
      PERFORM pg_advisory_xact_lock(7211202425);
      FOR p IN SELECT name, from_ts, to_ts FROM time_partitions WHERE parent = 'rounds' AND to_ts <= before AND from_ts > '-infinity' ORDER BY from_ts LOOP
        -- a month still holding a round in flight (a credit or rollback pending) stays, and so do the later ones
        EXIT WHEN EXISTS (SELECT 1 FROM rounds_in_flight f WHERE f.created_at >= p.from_ts AND f.created_at < p.to_ts);
        PERFORM gp_drop_time_partition(p.name);
        dropped := dropped + 1;
      END LOOP;
      RETURN dropped;
    END $$`);
  // the empty months beyond the next one
  await knex.raw(`DO $$
    DECLARE
      p record;
    BEGIN
      PERFORM pg_advisory_xact_lock(7211202425);
      FOR p IN SELECT name, from_ts, to_ts FROM time_partitions
               WHERE parent = 'rounds' AND from_ts >= (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '2 months') AT TIME ZONE 'UTC' LOOP
        CONTINUE WHEN EXISTS (SELECT 1 FROM rounds r WHERE r.created_at >= p.from_ts AND r.created_at < p.to_ts);
        PERFORM gp_drop_time_partition(p.name);
      END LOOP;
    END $$`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw(`SELECT gp_ensure_time_partitions(interval '3 months')`);
  await knex.raw('DROP FUNCTION IF EXISTS gp_drop_time_partition(text)');
}

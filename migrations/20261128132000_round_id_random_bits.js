// Round ids carry at least 122 random bits (CONTRACT.md: GET /api/bets/{roundId} is public, the id
// is the capability). A UUIDv7 alone has 74 random bits besides its 48 bits of time, so a round id
// is a UUIDv7 followed by 12 more random hex digits (48 bits): 74 + 48 = 122
// (`0192f3a4-b5c6-7d8e-9f01-23456789abcd-0123456789ab`; rounds/money-path/opening.ts). Its first 48
// bits are still the round's time, the key of its partition (migration 20261128131000): the
// function that reads it accepts both forms. (`\\?` is knex's escape of a literal question mark.)

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`CREATE OR REPLACE FUNCTION gp_round_time(id text) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}(-[0-9a-f]{12})\\?$'
      THEN to_timestamp((('x' || substr(id, 1, 8) || substr(id, 10, 4))::bit(48)::bigint) / 1000.0) END $$`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw(`CREATE OR REPLACE FUNCTION gp_round_time(id text) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
      THEN to_timestamp((('x' || substr(id, 1, 8) || substr(id, 10, 4))::bit(48)::bigint) / 1000.0) END $$`);
}

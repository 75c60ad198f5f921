// Promotions (issue 30, docs/promotions.md): tournaments with live leaderboards and provably fair
// prize drops, paid as promo credits (a credit with no debit, `promo: true`).
//  - `promotions`: one row per tournament or prize drop of an operator profile (so one currency):
//    its games, window, qualifying minimum bet, prizes (minor units, by rank or in drop order), the
//    tournament's scoring, the drop's chance (1 in `one_in`) and its committed seed (sealed; its
//    hash published at the start, the seed revealed at the end). Status is derived from the times
//    (scheduled, active, ended, cancelled), never stored twice;
//  - `promotion_players`: the players of a promotion that is not open to every player;
//  - `prize_drop_entries`: the qualifying bets of a drop, numbered in the order they were drawn
//    (the public proof lists their tickets in this order);
//  - `promotion_awards`: one row per prize won, committed BEFORE its credit is sent, holding that
//    credit's record (key `<promoId>:prize:<n>`, sealed body, attempts, answer) — the money path
//    (rounds/money-path/promo-credits.ts) sends it until the casino confirms, never twice
//    (UNIQUE (promo_id, prize) and UNIQUE idempotency_key).
// No foreign key to rounds, wallet_callbacks or idempotency_records (those tables are partitioned):
// a drop entry's round_id is plain text. Scores are read from `rounds` by one aggregate query.

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('promotions', (t) => {
    t.text('promo_id').primary();
    t.text('operator_id').notNullable().references('operators.operator_id');
    t.text('kind').notNullable();
    t.text('name');
    t.text('currency').notNullable();
    t.jsonb('games').notNullable();
    t.decimal('min_bet', 40, 0).notNullable().defaultTo(0);
    t.text('scoring');
    t.jsonb('prizes').notNullable();
    t.boolean('all_players').notNullable().defaultTo(true);
    t.integer('one_in');
    t.text('server_seed_enc');
    t.text('server_seed_hash');
    t.timestamp('drawn_until', { useTz: true }); // a drop: bets settled before this were drawn
    t.timestamp('starts_at', { useTz: true }).notNullable();
    t.timestamp('ends_at', { useTz: true }).notNullable();
    t.timestamp('cancelled_at', { useTz: true });
    t.timestamp('finalized_at', { useTz: true }); // a tournament's standings fixed and its awards written; a drop's last draw done
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['operator_id', 'ends_at']);
  });
  await knex.raw(`ALTER TABLE promotions
    ADD CONSTRAINT promotions_kind_check CHECK (kind IN ('tournament', 'prize_drop')),
    ADD CONSTRAINT promotions_window_check CHECK (ends_at > starts_at),
    ADD CONSTRAINT promotions_min_bet_check CHECK (min_bet >= 0),
    ADD CONSTRAINT promotions_prizes_check CHECK (jsonb_typeof(prizes) = 'array' AND jsonb_array_length(prizes) BETWEEN 1 AND 1000),
    ADD CONSTRAINT promotions_games_check CHECK (jsonb_typeof(games) = 'array' AND jsonb_array_length(games) >= 1),
    ADD CONSTRAINT promotions_tournament_check CHECK (kind <> 'tournament' OR scoring IN ('multiplier', 'wagered', 'profit', 'biggestWin')),
    ADD CONSTRAINT promotions_drop_check CHECK (kind <> 'prize_drop' OR (one_in BETWEEN 1 AND 1000000 AND server_seed_enc IS NOT NULL AND server_seed_hash IS NOT NULL))`);

  await knex.schema.createTable('promotion_players', (t) => {
    t.text('promo_id').notNullable().references('promotions.promo_id');
    t.text('player_ref').notNullable();
    t.primary(['promo_id', 'player_ref']);
  });

  await knex.schema.createTable('prize_drop_entries', (t) => {
    t.text('promo_id').notNullable().references('promotions.promo_id');
    t.integer('seq').notNullable();
    t.text('round_id').notNullable();
    t.text('ticket').notNullable();
    t.text('player_ref').notNullable();
    t.primary(['promo_id', 'seq']);
    t.unique(['promo_id', 'round_id']);
  });

  await knex.schema.createTable('promotion_awards', (t) => {
    t.bigIncrements('id').primary();
    t.text('promo_id').notNullable().references('promotions.promo_id');
    t.integer('prize').notNullable(); // a tournament's rank (1, 2, …), a drop's prize index (0, 1, …)
    t.text('operator_id').notNullable();
    t.text('player_ref').notNullable();
    t.decimal('amount', 40, 0).notNullable();
    t.text('currency').notNullable();
    t.text('score'); // a tournament's final score (text: exact)
    t.text('round_id'); // a drop: the winning bet (no foreign key)
    t.integer('seq'); // a drop: the entry that won
    t.text('idempotency_key').notNullable().unique();
    t.text('path').notNullable();
    t.text('request_body').notNullable();
    t.text('request_body_enc').notNullable();
    t.text('callback_status').notNullable().defaultTo('pending');
    t.integer('attempt_count').notNullable().defaultTo(0);
    t.integer('status_code');
    t.text('response_body');
    t.text('error_code');
    t.text('error_message');
    t.text('casino_transaction_id');
    t.timestamp('lease_until', { useTz: true });
    t.integer('retry_attempts').notNullable().defaultTo(0);
    t.timestamp('next_retry_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('confirmed_at', { useTz: true });
    t.unique(['promo_id', 'prize']);
    t.index(['operator_id', 'player_ref']);
  });
  await knex.raw(`ALTER TABLE promotion_awards
    ADD CONSTRAINT promotion_awards_amount_check CHECK (amount > 0),
    ADD CONSTRAINT promotion_awards_status_check CHECK (callback_status IN ('pending', 'succeeded')),
    ADD CONSTRAINT promotion_awards_confirmed_check CHECK ((callback_status = 'succeeded') = (confirmed_at IS NOT NULL))`);
  // the leaderboard shows the display name the casino gave at launch: the player's latest session's
  await knex.raw('CREATE INDEX sessions_operator_player_recent ON sessions (operator_id, player_ref, created_at DESC)');
  await knex.raw(`CREATE INDEX promotion_awards_pending ON promotion_awards (operator_id, next_retry_at) WHERE callback_status = 'pending'`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('DROP INDEX IF EXISTS sessions_operator_player_recent');
  await knex.schema.dropTableIfExists('promotion_awards');
  await knex.schema.dropTableIfExists('prize_drop_entries');
  await knex.schema.dropTableIfExists('promotion_players');
  await knex.schema.dropTableIfExists('promotions');
}

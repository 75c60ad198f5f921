// Free-bet campaigns (issue 17): operator-funded bets that move no stake.
//  - a campaign belongs to one operator profile: its game, fixed bet amount and params defaults,
//    free bets per player, a start and an expiry; `cancelled_at` once cancelled. Its status
//    (scheduled, active, ended, cancelled) is derived from these times, never stored twice;
//  - a grant per player counts the free bets given and used: CHECK used <= granted, so no
//    concurrent or repeated request spends one twice (the money path's UPDATE … WHERE used <
//    granted runs in the transaction that opens the round);
//  - a round records its campaign; the reconciliation view shows it, so free-bet payouts are
//    told apart from paid ones.

const FREE_BET_GAMES = ['dice', 'limbo', 'plinko', 'keno', 'mines'];
const inList = (values) => values.map((v) => `'${v}'`).join(', ');

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.schema.createTable('free_bet_campaigns', (t) => {
    t.text('campaign_id').primary();
    t.text('operator_id').notNullable().references('operators.operator_id');
    t.text('name');
    t.text('game_type').notNullable();
    t.text('currency').notNullable();
    t.decimal('amount', 40, 0).notNullable();
    t.jsonb('params').notNullable().defaultTo('{}');
    t.integer('bets_per_player').notNullable();
    t.timestamp('starts_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('cancelled_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['operator_id', 'expires_at']);
  });
  await knex.raw(`ALTER TABLE free_bet_campaigns
    ADD CONSTRAINT free_bet_campaigns_game_check CHECK (game_type IN (${inList(FREE_BET_GAMES)})),
    ADD CONSTRAINT free_bet_campaigns_amount_check CHECK (amount > 0),
    ADD CONSTRAINT free_bet_campaigns_bets_check CHECK (bets_per_player > 0),
    ADD CONSTRAINT free_bet_campaigns_window_check CHECK (expires_at > starts_at)`);

  await knex.schema.createTable('free_bet_grants', (t) => {
    t.text('campaign_id').notNullable().references('free_bet_campaigns.campaign_id');
    t.text('operator_id').notNullable();
    t.text('player_ref').notNullable();
    t.integer('granted').notNullable();
    t.integer('used').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['campaign_id', 'player_ref']);
    t.index(['operator_id', 'player_ref']);
  });
  await knex.raw(`ALTER TABLE free_bet_grants
    ADD CONSTRAINT free_bet_grants_used_check CHECK (used >= 0 AND granted >= 0 AND used <= granted)`);

  await knex.schema.alterTable('rounds', (t) => {
    t.text('free_bet_campaign_id').references('free_bet_campaigns.campaign_id');
  });
  await knex.raw(`CREATE INDEX rounds_free_bet_campaign ON rounds (free_bet_campaign_id) WHERE free_bet_campaign_id IS NOT NULL`);

  // The same view with the round's campaign as a last column (CREATE OR REPLACE may only add at the end).
  await knex.raw(`CREATE OR REPLACE VIEW reconciliation_rows AS
    SELECT c.id,
      CASE WHEN c.callback_status = 'pending' AND c.operation IN ('credit', 'rollback')
           THEN c.operation || '_pending' ELSE c.operation END AS type,
      c.round_id, c.operator_id, c.player_ref, r.game_type, c.amount, c.currency,
      c.casino_transaction_id, c.idempotency_key, c.callback_status AS status, c.created_at,
      r.free_bet_campaign_id
    FROM wallet_callbacks c JOIN rounds r ON r.round_id = c.round_id`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('DROP VIEW IF EXISTS reconciliation_rows');
  await knex.raw(`CREATE VIEW reconciliation_rows AS
    SELECT c.id,
      CASE WHEN c.callback_status = 'pending' AND c.operation IN ('credit', 'rollback')
           THEN c.operation || '_pending' ELSE c.operation END AS type,
      c.round_id, c.operator_id, c.player_ref, r.game_type, c.amount, c.currency,
      c.casino_transaction_id, c.idempotency_key, c.callback_status AS status, c.created_at
    FROM wallet_callbacks c JOIN rounds r ON r.round_id = c.round_id`);
  await knex.raw('DROP INDEX IF EXISTS rounds_free_bet_campaign');
  await knex.schema.alterTable('rounds', (t) => t.dropColumn('free_bet_campaign_id'));
  await knex.schema.dropTableIfExists('free_bet_grants');
  await knex.schema.dropTableIfExists('free_bet_campaigns');
}

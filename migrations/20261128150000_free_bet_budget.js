// A free-bet campaign's budget (issue 26 item 2: "a free-bet campaign's budget exhausted").
//
// The budget is the stake value the casino is willing to give away in the campaign: the free bets
// granted times the campaign's bet amount (the casino's cost is what those bets win; the stake value
// is what it can decide up front). `granted_bets` counts the free bets granted so far, kept by the
// statement that adds grants (free-bet-store.ts `addGrants`), and the CHECK below is the rule: no
// grant can take the campaign past its budget, whatever requests race. No budget: no limit.
//
// The webhook event `freebet.budget_exhausted` is written by a trigger in the transaction that
// granted the last free bets the budget allows (what is left cannot fund one more player's grant),
// once per campaign (its dedupe key), like the rounds' events (migration 20261128110000).

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`ALTER TABLE free_bet_campaigns
    ADD COLUMN budget numeric(40, 0),
    ADD COLUMN granted_bets bigint NOT NULL DEFAULT 0`);
  await knex.raw(
    `UPDATE free_bet_campaigns c SET granted_bets = coalesce((SELECT sum(g.granted) FROM free_bet_grants g WHERE g.campaign_id = c.campaign_id), 0)`,
  );
  await knex.raw(`ALTER TABLE free_bet_campaigns
    ADD CONSTRAINT free_bet_campaigns_budget_positive CHECK (budget IS NULL OR budget > 0),
    ADD CONSTRAINT free_bet_campaigns_within_budget CHECK (budget IS NULL OR granted_bets * amount <= budget)`);
  await knex.raw(`CREATE FUNCTION webhook_free_bet_budget_events() RETURNS trigger AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.operator_id = NEW.operator_id AND e.enabled AND jsonb_exists(e.events, 'freebet.budget_exhausted')) THEN
        RETURN NULL;
      END IF;
      INSERT INTO webhook_outbox (operator_id, event_type, dedupe_key, payload)
      VALUES (NEW.operator_id, 'freebet.budget_exhausted', 'campaign:' || NEW.campaign_id || ':freebet.budget_exhausted', jsonb_build_object(
        'campaignId', NEW.campaign_id, 'name', NEW.name, 'gameType', NEW.game_type, 'currency', NEW.currency,
        'budgetMinor', NEW.budget::text, 'freeBetsGranted', NEW.granted_bets,
        'grantedValueMinor', (NEW.granted_bets * NEW.amount)::text,
        'remainingMinor', (NEW.budget - NEW.granted_bets * NEW.amount)::text))
      ON CONFLICT (dedupe_key) DO NOTHING;
      RETURN NULL;
    END $$ LANGUAGE plpgsql`);
  await knex.raw(`CREATE TRIGGER webhook_free_bet_budget_events AFTER UPDATE OF granted_bets ON free_bet_campaigns FOR EACH ROW
    WHEN (NEW.budget IS NOT NULL AND NEW.budget - NEW.granted_bets * NEW.amount < NEW.bets_per_player * NEW.amount
          AND OLD.budget - OLD.granted_bets * OLD.amount >= OLD.bets_per_player * OLD.amount)
    EXECUTE FUNCTION webhook_free_bet_budget_events()`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('DROP TRIGGER IF EXISTS webhook_free_bet_budget_events ON free_bet_campaigns');
  await knex.raw('DROP FUNCTION IF EXISTS webhook_free_bet_budget_events()');
  await knex.raw(`ALTER TABLE free_bet_campaigns
    DROP CONSTRAINT free_bet_campaigns_within_budget,
    DROP CONSTRAINT free_bet_campaigns_budget_positive,
    DROP COLUMN granted_bets,
    DROP COLUMN budget`);
}

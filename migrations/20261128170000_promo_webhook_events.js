// Webhook events of promotions (issue 30 with issue 26's outbox; docs/integration.md §11), written
// by triggers in the transaction of the change they report, like the rounds' events
// (migration 20261128110000) and the free-bet budget's (20261128150000):
//  - promo.ended: a tournament's final standings and awards were written, or a prize drop's last
//    draw was done (`promotions.finalized_at` set), once per promotion, with the awards' count and sum;
//  - promo.credit_pending: a prize's first credit attempt was not confirmed and it is left to the
//    retries (once per award); promo.credit_settled: such a credit was confirmed at last.

const SUBSCRIBED = (evt) => `EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.operator_id = NEW.operator_id AND e.enabled AND jsonb_exists(e.events, ${evt}))`;

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`CREATE FUNCTION webhook_promotion_ended() RETURNS trigger AS $$
    BEGIN
      IF NOT ${SUBSCRIBED("'promo.ended'")} THEN
        RETURN NULL;
      END IF;
      INSERT INTO webhook_outbox (operator_id, event_type, dedupe_key, payload)
      SELECT NEW.operator_id, 'promo.ended', 'promo:' || NEW.promo_id || ':promo.ended', jsonb_build_object(
        'promoId', NEW.promo_id, 'kind', NEW.kind, 'name', NEW.name, 'currency', NEW.currency,
        'startsAt', NEW.starts_at, 'endsAt', NEW.ends_at, 'prizes', jsonb_array_length(NEW.prizes),
        'awards', count(a.id), 'awardedMinor', coalesce(sum(a.amount), 0)::text)
      FROM promotion_awards a WHERE a.promo_id = NEW.promo_id
      ON CONFLICT (dedupe_key) DO NOTHING;
      RETURN NULL;
    END $$ LANGUAGE plpgsql`);
  await knex.raw(`CREATE TRIGGER webhook_promotion_ended AFTER UPDATE OF finalized_at ON promotions FOR EACH ROW
    WHEN (OLD.finalized_at IS NULL AND NEW.finalized_at IS NOT NULL) EXECUTE FUNCTION webhook_promotion_ended()`);

  await knex.raw(`CREATE FUNCTION webhook_promo_credit_events() RETURNS trigger AS $$
    DECLARE
      evt text;
    BEGIN
      IF NEW.callback_status = 'pending' AND OLD.retry_attempts = 0 AND NEW.retry_attempts > 0 THEN
        evt := 'promo.credit_pending';
      ELSIF OLD.callback_status = 'pending' AND NEW.callback_status = 'succeeded' THEN
        IF NOT EXISTS (SELECT 1 FROM webhook_outbox WHERE dedupe_key = 'award:' || NEW.idempotency_key || ':promo.credit_pending') THEN
          RETURN NULL;
        END IF;
        evt := 'promo.credit_settled';
      ELSE
        RETURN NULL;
      END IF;
      IF NOT ${SUBSCRIBED('evt')} THEN
        RETURN NULL;
      END IF;
      INSERT INTO webhook_outbox (operator_id, event_type, dedupe_key, payload)
      VALUES (NEW.operator_id, evt, 'award:' || NEW.idempotency_key || ':' || evt, jsonb_build_object(
        'promoId', NEW.promo_id, 'prize', NEW.prize, 'playerRef', NEW.player_ref, 'currency', NEW.currency,
        'amountMinor', NEW.amount::text, 'idempotencyKey', NEW.idempotency_key, 'roundId', NEW.round_id,
        'status', CASE NEW.callback_status WHEN 'succeeded' THEN 'credited' ELSE 'credit_pending' END,
        'errorCode', NEW.error_code, 'statusCode', NEW.status_code, 'pendingSince', NEW.created_at))
      ON CONFLICT (dedupe_key) DO NOTHING;
      RETURN NULL;
    END $$ LANGUAGE plpgsql`);
  await knex.raw(`CREATE TRIGGER webhook_promo_credit_events AFTER UPDATE ON promotion_awards FOR EACH ROW
    WHEN (OLD.callback_status = 'pending') EXECUTE FUNCTION webhook_promo_credit_events()`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('DROP TRIGGER IF EXISTS webhook_promo_credit_events ON promotion_awards');
  await knex.raw('DROP FUNCTION IF EXISTS webhook_promo_credit_events()');
  await knex.raw('DROP TRIGGER IF EXISTS webhook_promotion_ended ON promotions');
  await knex.raw('DROP FUNCTION IF EXISTS webhook_promotion_ended()');
}

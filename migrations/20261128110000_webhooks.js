// Signed webhooks for operators (issue 26 item 2; docs/integration.md "Webhooks").
//
//  - webhook_endpoints: one receiver per operator profile (URL, the event types it wants, on/off).
//  - webhook_outbox: the transactional outbox. A row is written in the same transaction as the
//    state change it reports (for rounds: by the trigger below, so the money path needs no change),
//    and delivered at least once by the pods' dispatcher (webhooks/dispatcher.ts), claimed with
//    FOR UPDATE SKIP LOCKED and a lease. `event_id` is what receivers deduplicate on;
//    `dedupe_key` makes the same fact (a round left pending, a grace period ending) one event.
//  - webhook_deliveries: the delivery log, one row per attempt.

const PENDING = "('credit_pending', 'rollback_pending')";
const FINAL = "('settled', 'cashed_out', 'busted', 'cancelled')";

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`CREATE TABLE webhook_endpoints (
    operator_id text PRIMARY KEY REFERENCES operators (operator_id) ON DELETE CASCADE,
    url text NOT NULL,
    events jsonb NOT NULL DEFAULT '[]'::jsonb,
    enabled boolean NOT NULL DEFAULT true,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT webhook_endpoints_events_array CHECK (jsonb_typeof(events) = 'array')
  )`);
  await knex.raw(`CREATE TABLE webhook_outbox (
    event_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    operator_id text NOT NULL,
    event_type text NOT NULL,
    dedupe_key text,
    payload jsonb NOT NULL,
    status text NOT NULL DEFAULT 'pending',
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    lease_until timestamptz,
    last_status_code integer,
    last_error text,
    delivered_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT webhook_outbox_status_check CHECK (status IN ('pending', 'delivered', 'failed')),
    CONSTRAINT webhook_outbox_delivered_check CHECK ((status = 'delivered') = (delivered_at IS NOT NULL))
  )`);
  await knex.raw('CREATE UNIQUE INDEX webhook_outbox_dedupe ON webhook_outbox (dedupe_key)');
  await knex.raw(`CREATE INDEX webhook_outbox_due ON webhook_outbox (operator_id, next_attempt_at) WHERE status = 'pending'`);
  await knex.raw('CREATE INDEX webhook_outbox_operator_created ON webhook_outbox (operator_id, created_at DESC)');
  await knex.raw(`CREATE TABLE webhook_deliveries (
    id bigserial PRIMARY KEY,
    event_id uuid NOT NULL REFERENCES webhook_outbox (event_id) ON DELETE CASCADE,
    operator_id text NOT NULL,
    attempt integer NOT NULL,
    url text NOT NULL,
    status_code integer,
    error text,
    duration_ms integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`);
  await knex.raw('CREATE INDEX webhook_deliveries_operator ON webhook_deliveries (operator_id, id DESC)');
  await knex.raw('CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id, id)');

  // A round left pending (its worker let go of it while the credit or rollback is unconfirmed), and
  // such a round settling: one event each, in the transaction that changed the round.
  await knex.raw(`CREATE FUNCTION webhook_round_events() RETURNS trigger AS $$
    DECLARE
      kind text;
      evt text;
    BEGIN
      IF NEW.status IN ${PENDING} AND NEW.lease_until IS NULL AND (OLD.status IS DISTINCT FROM NEW.status OR OLD.lease_until IS NOT NULL) THEN
        kind := CASE NEW.status WHEN 'credit_pending' THEN 'credit' ELSE 'rollback' END;
        evt := kind || '.pending';
      ELSIF OLD.status IN ${PENDING} AND NEW.status IN ${FINAL} THEN
        kind := CASE OLD.status WHEN 'credit_pending' THEN 'credit' ELSE 'rollback' END;
        IF NOT EXISTS (SELECT 1 FROM webhook_outbox WHERE dedupe_key = 'round:' || NEW.round_id || ':' || kind || '.pending') THEN
          RETURN NULL;
        END IF;
        evt := kind || '.settled';
      ELSE
        RETURN NULL;
      END IF;
      IF NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.operator_id = NEW.operator_id AND e.enabled AND jsonb_exists(e.events, evt)) THEN
        RETURN NULL;
      END IF;
      INSERT INTO webhook_outbox (operator_id, event_type, dedupe_key, payload)
      VALUES (NEW.operator_id, evt, 'round:' || NEW.round_id || ':' || evt, jsonb_build_object(
        'roundId', NEW.round_id, 'playerRef', NEW.player_ref, 'gameType', NEW.game_type, 'currency', NEW.currency,
        'amountMinor', CASE kind WHEN 'credit' THEN coalesce(NEW.payout, 0)::text ELSE NEW.amount::text END,
        'roundStatus', NEW.status, 'errorCode', NEW.error_code, 'pendingSince', OLD.updated_at))
      ON CONFLICT (dedupe_key) DO NOTHING;
      RETURN NULL;
    END $$ LANGUAGE plpgsql`);
  await knex.raw(`CREATE TRIGGER webhook_round_events AFTER UPDATE ON rounds FOR EACH ROW
    WHEN (NEW.status IN ${PENDING} OR OLD.status IN ${PENDING}) EXECUTE FUNCTION webhook_round_events()`);
}

/** @param {import('knex').Knex} knex */
export async function down(knex) {
  await knex.raw('DROP TRIGGER IF EXISTS webhook_round_events ON rounds');
  await knex.raw('DROP FUNCTION IF EXISTS webhook_round_events()');
  await knex.raw('DROP TABLE IF EXISTS webhook_deliveries');
  await knex.raw('DROP TABLE IF EXISTS webhook_outbox');
  await knex.raw('DROP TABLE IF EXISTS webhook_endpoints');
}

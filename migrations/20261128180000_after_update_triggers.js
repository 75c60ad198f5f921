// Issue 25: a settled bet's WAL and PostgreSQL CPU. A BEFORE UPDATE row trigger makes PostgreSQL
// lock the row before it runs the trigger (trigger.c GetTupleForTrigger): one Heap/LOCK WAL record
// per updated row, whether the trigger does anything or not. pg_waldump of a dice ×64 run showed
// 2 such records a bet on rounds and 2 on wallet_callbacks (docs/performance.md "Issue 25:
// PostgreSQL writes per bet"), and 4 PL/pgSQL calls a bet (rounds_final_is_final and
// webhook_round_events on both updates of the round) that mostly decided there was nothing to do.
//
// The same rules, as AFTER UPDATE row triggers with WHEN conditions (evaluated by the executor,
// no PL/pgSQL call; an AFTER trigger reads the old row without locking it):
//  - a final round or callback cannot change: the trigger raises, which aborts the whole statement
//    (the update is undone with it), as the BEFORE trigger did;
//  - a status change keeps open_rounds (the one-open-round rule) and rounds_in_flight, as before;
//  - the webhook events of rounds left pending and of such rounds settling, as before.
// One function (rounds_after_update) does all three for a round, so the dice bet's first update
// (debit_requested → credit_pending, leased) calls nothing and its last (→ settled) calls one
// function once. Deletes keep the BEFORE DELETE trigger (deletes are not on any hot path).

const FINAL = "('settled', 'cashed_out', 'busted', 'cancelled', 'error')";
const WEBHOOK_FINAL = "('settled', 'cashed_out', 'busted', 'cancelled')";
const PENDING = "('credit_pending', 'rollback_pending')";
const OPEN = "('debit_requested', 'active')";
const HELD = "('mines', 'blackjack')";

/** @param {import('knex').Knex} knex */
export async function up(knex) {
  await knex.raw(`CREATE FUNCTION rounds_after_update() RETURNS trigger AS $$
    DECLARE
      kind text;
      evt text;
    BEGIN
      IF OLD.status IN ${FINAL} THEN
        RAISE EXCEPTION 'round % is final (%) and cannot change', OLD.round_id, OLD.status;
      END IF;
      IF NEW.status <> OLD.status THEN
        IF OLD.game_type IN ${HELD} THEN
          IF OLD.status IN ${OPEN} AND NEW.status NOT IN ${OPEN} THEN
            DELETE FROM open_rounds WHERE operator_id = OLD.operator_id AND player_ref = OLD.player_ref AND game_type = OLD.game_type AND round_id = OLD.round_id;
          ELSIF OLD.status NOT IN ${OPEN} AND NEW.status IN ${OPEN} THEN
            INSERT INTO open_rounds (operator_id, player_ref, game_type, round_id) VALUES (NEW.operator_id, NEW.player_ref, NEW.game_type, NEW.round_id);
          END IF;
        END IF;
        IF NEW.status IN ${FINAL} THEN
          DELETE FROM rounds_in_flight WHERE round_id = OLD.round_id;
        END IF;
      END IF;
      -- webhook events (migration 20261128110000): a round left pending, and such a round settling
      IF NEW.status IN ${PENDING} AND NEW.lease_until IS NULL AND (OLD.status IS DISTINCT FROM NEW.status OR OLD.lease_until IS NOT NULL) THEN
        kind := CASE NEW.status WHEN 'credit_pending' THEN 'credit' ELSE 'rollback' END;
        evt := kind || '.pending';
      ELSIF OLD.status IN ${PENDING} AND NEW.status IN ${WEBHOOK_FINAL} THEN
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
  await knex.raw('DROP TRIGGER webhook_round_events ON rounds');
  await knex.raw('DROP FUNCTION webhook_round_events()');
  await knex.raw('DROP TRIGGER rounds_final_is_final ON rounds');
  await knex.raw('CREATE TRIGGER rounds_final_is_final BEFORE DELETE ON rounds FOR EACH ROW EXECUTE FUNCTION rounds_final_is_final()');
  // the function runs only when one of its branches can apply
  await knex.raw(`CREATE TRIGGER rounds_after_update AFTER UPDATE ON rounds FOR EACH ROW WHEN (
      OLD.status IN ${FINAL}
      OR (NEW.status <> OLD.status AND (NEW.status IN ${FINAL} OR (OLD.game_type IN ${HELD} AND (OLD.status IN ${OPEN}) <> (NEW.status IN ${OPEN}))))
      OR (NEW.status IN ${PENDING} AND NEW.lease_until IS NULL AND (NEW.status <> OLD.status OR OLD.lease_until IS NOT NULL))
    ) EXECUTE FUNCTION rounds_after_update()`);

  await knex.raw('DROP TRIGGER wallet_callbacks_final_is_final ON wallet_callbacks');
  await knex.raw(`CREATE TRIGGER wallet_callbacks_final_is_final AFTER UPDATE ON wallet_callbacks FOR EACH ROW
    WHEN (OLD.callback_status IN ('succeeded', 'failed') AND NEW.callback_status <> OLD.callback_status) EXECUTE FUNCTION wallet_callbacks_final_is_final()`);
}

/** @param {import('knex').Knex} knex */
export async function down() {
  throw new Error('20261128180000_after_update_triggers cannot be undone: restore the database from before it');
}

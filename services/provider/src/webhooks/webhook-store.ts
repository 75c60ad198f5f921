/**
 * Operators' webhooks (issue 26 item 2; docs/integration.md "Webhooks"): the receiver of each
 * profile, the transactional outbox and the delivery log (migration 20261128110000).
 *
 * Events about rounds are written by a trigger on `rounds`, in the transaction that changed the
 * round; the others through `enqueueEvent`, in the caller's transaction when it has one. A fact is
 * one event: `dedupeKey` (unique) makes a second write of it a no-op.
 */
import type { Knex } from 'knex';
import { toIso, LIMIT_IN_TEXT, sqlLimit } from '../store/db.js';

export const WEBHOOK_EVENTS = [
  'credit.pending',
  'credit.settled',
  'rollback.pending',
  'rollback.settled',
  'round.stuck',
  'wallet.circuit_opened',
  'wallet.circuit_closed',
  'secret.grace_ended',
  'freebet.budget_exhausted',
  'promo.ended',
  'promo.credit_pending',
  'promo.credit_settled',
  'webhook.test',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

type Queryable = Knex | Knex.Transaction;

export interface WebhookEndpoint {
  operatorId: string;
  url: string;
  events: WebhookEvent[];
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

interface EndpointRow {
  operator_id: string;
  url: string;
  events: WebhookEvent[];
  enabled: boolean;
  created_at: Date | string;
  updated_at: Date | string;
}

const endpointFromRow = (r: EndpointRow): WebhookEndpoint => ({
  operatorId: r.operator_id,
  url: r.url,
  events: r.events,
  enabled: r.enabled,
  createdAt: toIso(r.created_at),
  updatedAt: toIso(r.updated_at),
});

export async function getEndpoint(db: Queryable, operatorId: string): Promise<WebhookEndpoint | null> {
  const row = await db<EndpointRow>('webhook_endpoints').where({ operator_id: operatorId }).first();
  return row ? endpointFromRow(row) : null;
}

export async function putEndpoint(db: Queryable, operatorId: string, e: { url: string; events: WebhookEvent[]; enabled: boolean }): Promise<WebhookEndpoint> {
  const [row] = await db('webhook_endpoints')
    .insert({ operator_id: operatorId, url: e.url, events: JSON.stringify(e.events), enabled: e.enabled })
    .onConflict('operator_id')
    .merge({ url: e.url, events: JSON.stringify(e.events), enabled: e.enabled, updated_at: db.fn.now() })
    .returning('*');
  return endpointFromRow(row as EndpointRow);
}

export async function deleteEndpoint(db: Queryable, operatorId: string): Promise<boolean> {
  return (await db('webhook_endpoints').where({ operator_id: operatorId }).delete()) > 0;
}

export interface OutboxEvent {
  eventId: string;
  operatorId: string;
  type: WebhookEvent;
  payload: Record<string, unknown>;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: string;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  createdAt: string;
}

interface OutboxRow {
  event_id: string;
  operator_id: string;
  event_type: WebhookEvent;
  payload: Record<string, unknown>;
  status: OutboxEvent['status'];
  attempts: number;
  next_attempt_at: Date | string;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Date | string | null;
  created_at: Date | string;
}

export const eventFromRow = (r: OutboxRow): OutboxEvent => ({
  eventId: r.event_id,
  operatorId: r.operator_id,
  type: r.event_type,
  payload: r.payload,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: toIso(r.next_attempt_at),
  lastStatusCode: r.last_status_code,
  lastError: r.last_error,
  deliveredAt: r.delivered_at === null ? null : toIso(r.delivered_at),
  createdAt: toIso(r.created_at),
});

/**
 * Writes an event to the outbox when the operator's receiver wants it (in `db`'s transaction when
 * it is one). Answers the event id, or null when nobody subscribed or the fact was written before.
 */
export async function enqueueEvent(
  db: Queryable,
  operatorId: string,
  type: WebhookEvent,
  payload: Record<string, unknown>,
  dedupeKey: string | null,
  opts: { force?: boolean } = {},
): Promise<string | null> {
  const { rows } = await db.raw(
    `INSERT INTO webhook_outbox (operator_id, event_type, dedupe_key, payload)
     SELECT ?, ?, ?, ?::jsonb WHERE ? OR EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.operator_id = ? AND e.enabled AND jsonb_exists(e.events, ?))
     ON CONFLICT (dedupe_key) DO NOTHING RETURNING event_id`,
    [operatorId, type, dedupeKey, JSON.stringify(payload), opts.force === true, operatorId, type],
  );
  return (rows as { event_id: string }[])[0]?.event_id ?? null;
}

/**
 * Facts found by looking (no transaction reports them): rounds pending past `stuckMinutes`, and
 * secret rotations whose grace period ended. One event each, ever (dedupe keys).
 */
export async function enqueueObservedEvents(db: Knex, stuckMinutes: number): Promise<number> {
  const stuck = await db.raw(
    `INSERT INTO webhook_outbox (operator_id, event_type, dedupe_key, payload)
     SELECT r.operator_id, 'round.stuck', 'round:' || r.round_id || ':round.stuck',
            jsonb_build_object('roundId', r.round_id, 'playerRef', r.player_ref, 'gameType', r.game_type, 'currency', r.currency,
                               'roundStatus', r.status, 'pendingSince', r.updated_at, 'retryAttempts', r.retry_attempts, 'errorCode', r.error_code)
       FROM rounds r JOIN webhook_endpoints e ON e.operator_id = r.operator_id AND e.enabled AND jsonb_exists(e.events, 'round.stuck')
      WHERE r.round_id IN (SELECT round_id FROM rounds_in_flight) AND r.status IN ('credit_pending', 'rollback_pending', 'debit_requested') AND r.created_at < now() - make_interval(mins => ?)
     ON CONFLICT (dedupe_key) DO NOTHING`,
    [stuckMinutes],
  );
  const grace = await db.raw(
    `INSERT INTO webhook_outbox (operator_id, event_type, dedupe_key, payload)
     SELECT o.operator_id, 'secret.grace_ended', 'secret:' || o.operator_id || ':' || o.previous_secret_until::text,
            jsonb_build_object('previousSecretValidUntil', o.previous_secret_until)
       FROM operators o JOIN webhook_endpoints e ON e.operator_id = o.operator_id AND e.enabled AND jsonb_exists(e.events, 'secret.grace_ended')
      WHERE o.previous_secret_until IS NOT NULL AND o.previous_secret_until <= now()
     ON CONFLICT (dedupe_key) DO NOTHING`,
    [],
  );
  return (stuck.rowCount ?? 0) + (grace.rowCount ?? 0);
}

/**
 * Retention: removes up to `batch` delivered or failed events created more than `days` ago (their
 * delivery log goes with them, ON DELETE CASCADE). Pending events are never removed. Answers how
 * many went.
 */
export async function purgeOldEvents(db: Knex, days: number, batch = 5000): Promise<number> {
  const { rowCount } = await db.raw(
    `DELETE FROM webhook_outbox WHERE event_id IN (
       SELECT event_id FROM webhook_outbox WHERE status IN ('delivered', 'failed') AND created_at < now() - make_interval(days => ?) LIMIT ${sqlLimit(batch)})`,
    [days],
  );
  return (rowCount as number | null) ?? 0;
}

/** Operators with events due now. */
export async function operatorsWithDueEvents(db: Knex): Promise<string[]> {
  const { rows } = await db.raw(
    `SELECT DISTINCT operator_id FROM webhook_outbox WHERE status = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())`,
  );
  return (rows as { operator_id: string }[]).map((r) => r.operator_id);
}

/** Claims the operator's oldest due event (SKIP LOCKED + lease) and moves its backoff on. */
export async function claimEvent(db: Knex, operatorId: string, leaseMs: number, backoffSeconds: number[]): Promise<OutboxEvent | null> {
  const { rows } = await db.raw(
    `UPDATE webhook_outbox SET lease_until = now() + make_interval(secs => ?), attempts = attempts + 1,
            next_attempt_at = now() + make_interval(secs => (?::int[])[least(attempts + 1, ?)])
      WHERE event_id = (SELECT event_id FROM webhook_outbox WHERE operator_id = ? AND status = 'pending' AND next_attempt_at <= now()
                          AND (lease_until IS NULL OR lease_until < now()) ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    [leaseMs / 1000, backoffSeconds, backoffSeconds.length, operatorId],
  );
  const row = (rows as OutboxRow[])[0];
  return row ? eventFromRow(row) : null;
}

/** Claims one pending event by id (the console's test delivery, sent at once). */
export async function claimEventById(db: Knex, eventId: string, leaseMs: number, backoffSeconds: number[]): Promise<OutboxEvent | null> {
  const { rows } = await db.raw(
    `UPDATE webhook_outbox SET lease_until = now() + make_interval(secs => ?), attempts = attempts + 1,
            next_attempt_at = now() + make_interval(secs => (?::int[])[least(attempts + 1, ?)])
      WHERE event_id = ? AND status = 'pending' AND (lease_until IS NULL OR lease_until < now())
      RETURNING *`,
    [leaseMs / 1000, backoffSeconds, backoffSeconds.length, eventId],
  );
  const row = (rows as OutboxRow[])[0];
  return row ? eventFromRow(row) : null;
}

export interface DeliveryResult {
  url: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** Records one attempt in the log and in the event: delivered on a 2xx, failed for good past `maxAttempts`. */
export async function recordDelivery(db: Knex, event: OutboxEvent, result: DeliveryResult, maxAttempts: number): Promise<void> {
  const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  await db.transaction(async (tx) => {
    await tx('webhook_deliveries').insert({
      event_id: event.eventId,
      operator_id: event.operatorId,
      attempt: event.attempts,
      url: result.url,
      status_code: result.statusCode,
      error: result.error,
      duration_ms: result.durationMs,
    });
    await tx('webhook_outbox')
      .where({ event_id: event.eventId, status: 'pending' })
      .update({
        lease_until: null,
        last_status_code: result.statusCode,
        last_error: result.error,
        ...(ok ? { status: 'delivered', delivered_at: tx.fn.now() } : event.attempts >= maxAttempts ? { status: 'failed' } : {}),
      });
  });
}

/** Nobody to deliver to (receiver removed, switched off, or no longer wanting the type): the event ends failed. */
export async function dropEvent(db: Knex, event: OutboxEvent, reason: string): Promise<void> {
  await db('webhook_outbox').where({ event_id: event.eventId, status: 'pending' }).update({ status: 'failed', lease_until: null, last_error: reason });
}

/** Sends a delivered or failed event again (the console's "redeliver"): the same event id. */
export async function redeliver(db: Queryable, operatorId: string, eventId: string): Promise<OutboxEvent | null> {
  const [row] = await db('webhook_outbox')
    .where({ event_id: eventId, operator_id: operatorId })
    .update({ status: 'pending', delivered_at: null, next_attempt_at: db.fn.now(), lease_until: null, attempts: 0 })
    .returning('*');
  return row ? eventFromRow(row as OutboxRow) : null;
}

export async function listEvents(
  db: Queryable,
  operatorId: string,
  opts: { status?: OutboxEvent['status'] | undefined; before?: string | undefined; limit: number },
): Promise<OutboxEvent[]> {
  const q = db<OutboxRow>('webhook_outbox')
    .where({ operator_id: operatorId })
    .orderBy('created_at', 'desc')
    .orderBy('event_id', 'desc')
    .limit(opts.limit, LIMIT_IN_TEXT);
  if (opts.status) q.andWhere({ status: opts.status });
  if (opts.before) q.andWhere('created_at', '<', opts.before);
  return (await q).map(eventFromRow);
}

export interface DeliveryLogEntry {
  id: string;
  eventId: string;
  attempt: number;
  url: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  createdAt: string;
}

export async function listDeliveries(
  db: Queryable,
  operatorId: string,
  opts: { eventId?: string | undefined; beforeId?: string | undefined; limit: number },
): Promise<DeliveryLogEntry[]> {
  const q = db('webhook_deliveries').where({ operator_id: operatorId }).orderBy('id', 'desc').limit(opts.limit, LIMIT_IN_TEXT);
  if (opts.eventId) q.andWhere({ event_id: opts.eventId });
  if (opts.beforeId) q.andWhere('id', '<', opts.beforeId);
  const rows = (await q) as {
    id: string | number;
    event_id: string;
    attempt: number;
    url: string;
    status_code: number | null;
    error: string | null;
    duration_ms: number;
    created_at: Date | string;
  }[];
  return rows.map((r) => ({
    id: String(r.id),
    eventId: r.event_id,
    attempt: r.attempt,
    url: r.url,
    statusCode: r.status_code,
    error: r.error,
    durationMs: r.duration_ms,
    createdAt: toIso(r.created_at),
  }));
}

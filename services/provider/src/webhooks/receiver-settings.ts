/**
 * A profile's webhook receiver as the admin API and console change it (issue 26 item 2; moved out
 * of the route file by issue 24 item 3): the receiver URL's rules, setting and removing the
 * receiver with its audit record, and the test delivery answered at once.
 */
import type { Knex } from 'knex';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { checkCallbackBase } from '../operators/callback-address.js';
import type { Operator } from '../operators/operator-schema.js';
import type { OperatorStore } from '../operators/operator-store.js';
import { recordChange, type Actor } from '../staff/config-audit.js';
import { sendWebhook } from './dispatcher.js';
import {
  claimEventById,
  deleteEndpoint,
  enqueueEvent,
  getEndpoint,
  listDeliveries,
  putEndpoint,
  recordDelivery,
  type DeliveryLogEntry,
  type WebhookEndpoint,
  type WebhookEvent,
} from './webhook-store.js';

export interface ReceiverDeps {
  db: Knex;
  operators: OperatorStore;
  config: Pick<Config, 'production' | 'webhooks'>;
}

/** The receiver's URL: the rules of a callback base (https in production, no internal address, no user info), a query allowed. */
export function checkReceiverUrl(url: string, production: boolean): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'url must be an absolute URL');
  }
  try {
    checkCallbackBase(`${parsed.origin}${parsed.pathname}`, production);
  } catch (err) {
    if (err instanceof AppError)
      throw new AppError(
        'VALIDATION_ERROR',
        err.message.replace('callbackBaseUrl', 'url').replace(' (or sandbox://demo-casino)', '').replace(' or sandbox://demo-casino', ''),
      );
    throw err;
  }
  if (parsed.username || parsed.password || parsed.hash) throw new AppError('VALIDATION_ERROR', 'url must not carry user info or a fragment');
}

/** Sets the receiver (URL, events, on/off) and audits the change in the same transaction. */
export async function setReceiver(
  deps: ReceiverDeps,
  actor: Actor,
  op: Operator,
  body: { url: string; events: WebhookEvent[]; enabled: boolean },
): Promise<WebhookEndpoint> {
  checkReceiverUrl(body.url, deps.config.production);
  const before = await getEndpoint(deps.db, op.operatorId);
  return deps.db.transaction(async (tx) => {
    const saved = await putEndpoint(tx, op.operatorId, { url: body.url, events: [...new Set(body.events)], enabled: body.enabled });
    await recordChange(tx, actor, {
      action: 'webhook.set',
      tenantId: op.tenantId,
      operatorId: op.operatorId,
      targetType: 'operator',
      targetId: op.operatorId,
      before,
      after: saved,
    });
    return saved;
  });
}

/** Removes the receiver (events not delivered yet end failed); audited when there was one. */
export async function removeReceiver(deps: ReceiverDeps, actor: Actor, op: Operator): Promise<boolean> {
  const before = await getEndpoint(deps.db, op.operatorId);
  const deleted = await deleteEndpoint(deps.db, op.operatorId);
  if (deleted)
    await recordChange(deps.db, actor, {
      action: 'webhook.deleted',
      tenantId: op.tenantId,
      operatorId: op.operatorId,
      targetType: 'operator',
      targetId: op.operatorId,
      before,
      after: null,
    });
  return deleted;
}

/** Sends a signed `webhook.test` event to the receiver now and answers its logged delivery. */
export async function sendTestEvent(deps: ReceiverDeps, actor: Actor, op: Operator): Promise<DeliveryLogEntry> {
  const { db, config } = deps;
  const endpoint = await getEndpoint(db, op.operatorId);
  if (!endpoint) throw new AppError('VALIDATION_ERROR', 'the profile has no webhook receiver; set one first');
  const withSecret = await deps.operators.getWithSecret(db, op.operatorId);
  const eventId = await enqueueEvent(db, op.operatorId, 'webhook.test', { requestedBy: actor.kind, at: new Date().toISOString() }, null, { force: true });
  const event = eventId ? await claimEventById(db, eventId, config.webhooks.timeoutMs + 10_000, config.webhooks.backoffSeconds) : null;
  if (!event || !withSecret) throw new AppError('VALIDATION_ERROR', 'the test event could not be written');
  const result = await sendWebhook(withSecret, endpoint.url, event, config.webhooks.timeoutMs, config.production);
  await recordDelivery(db, event, result, config.webhooks.maxAttempts);
  const [logged] = await listDeliveries(db, op.operatorId, { eventId: event.eventId, limit: 1 });
  return logged!;
}

/**
 * The webhook dispatcher (issue 26 item 2; docs/integration.md "Webhooks"): every pod delivers the
 * outbox (webhook-store.ts) at least once, off the request path.
 *
 *  - Claims: one event at a time, FOR UPDATE SKIP LOCKED plus a lease, the backoff moved on at the
 *    claim (WEBHOOK_BACKOFF_S: 5 s, 15 s, 1 min, 5 min, 30 min…), so a pod that dies mid-delivery
 *    leaves the event to be sent again after the lease: at least once, with the same event id.
 *  - Own bounds per operator: one worker per operator per pod, a few events per tick, each attempt
 *    cut at WEBHOOK_TIMEOUT_MS; the answer's body is read up to 4 KiB and dropped. A receiver that
 *    hangs, fails or answers gigabytes holds only its own worker: bets never wait for a webhook
 *    (the only cost on the money path is the outbox row its transaction writes).
 *  - Signed like our wallet callbacks (CONTRACT.md §6) with the operator's secret: PATH is the
 *    receiver URL's path and query as sent; X-Event-Id and X-Event-Type name the event.
 *  - Retention: delivered and failed events (with their delivery log) go after
 *    WEBHOOK_RETENTION_DAYS, a bounded batch per pod every 10 minutes; pending ones stay.
 */
import type { Knex } from 'knex';
import type { Config } from '../config.js';
import { amountJson, type CurrencyCode } from '@gp/game-core/money';
import { stringifyJson } from '../infra/json.js';
import { callableUrl } from '../operators/callback-address.js';
import type { OperatorStore } from '../operators/operator-store.js';
import type { OperatorWithSecret } from '../operators/operator-schema.js';
import { signedHeaders } from '../wallet/signing.js';
import {
  claimEvent,
  dropEvent,
  enqueueObservedEvents,
  getEndpoint,
  operatorsWithDueEvents,
  purgeOldEvents,
  recordDelivery,
  type DeliveryResult,
  type OutboxEvent,
} from './webhook-store.js';

/** The dispatcher's settings are the configuration's (WEBHOOK_* in config.ts). */
export type DispatcherSettings = Config['webhooks'];

export interface WebhookDispatcher {
  start(): void;
  stop(): Promise<void>;
  /** One pass now (tests): observed facts enqueued, due events delivered. */
  tick(): Promise<number>;
}

const MAX_ANSWER_BYTES = 4096;
/** How often a pod removes the delivered and failed events past WEBHOOK_RETENTION_DAYS (a bounded batch each time). */
const PURGE_EVERY_MS = 10 * 60_000;

/** The JSON body a receiver gets (docs/integration.md "Webhooks"). */
export function webhookBody(event: OutboxEvent): string {
  const data: Record<string, unknown> = { ...event.payload };
  // money is stored as minor units (`amountMinor`, `budgetMinor`, …) and sent in the currency's decimals (`amount`, `budget`, …)
  for (const [key, value] of Object.entries(event.payload)) {
    if (!key.endsWith('Minor')) continue;
    delete data[key];
    if (typeof value !== 'string' || typeof data.currency !== 'string') continue;
    try {
      data[key.slice(0, -'Minor'.length)] = amountJson(BigInt(value), data.currency as CurrencyCode);
    } catch {
      data[key] = value; // an unknown currency: the minor units stay alone
    }
  }
  return stringifyJson({ eventId: event.eventId, type: event.type, operatorId: event.operatorId, createdAt: event.createdAt, attempt: event.attempts, data });
}

/** One POST to the receiver; never throws. */
export async function sendWebhook(
  operator: OperatorWithSecret,
  url: string,
  event: OutboxEvent,
  timeoutMs: number,
  production: boolean,
): Promise<DeliveryResult> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null): DeliveryResult => ({
    url,
    statusCode,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  if (!callableUrl(url, production)) return done(null, 'the receiver URL points at an address the service may not call');
  const body = webhookBody(event);
  const target = new URL(url);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'game-provider-webhooks/1',
    'x-event-id': event.eventId,
    'x-event-type': event.type,
    ...signedHeaders(operator.operatorId, operator.sharedSecret, 'POST', `${target.pathname}${target.search}`, body, Date.now()),
  };
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: abort.signal });
    // The answer is not needed: read a little (so the connection can be reused), drop the rest.
    const reader = res.body?.getReader();
    let read = 0;
    while (reader && read < MAX_ANSWER_BYTES) {
      const chunk = await reader.read();
      if (chunk.done) break;
      read += chunk.value.byteLength;
    }
    await reader?.cancel().catch(() => undefined);
    return done(res.status, res.status >= 200 && res.status < 300 ? null : `the receiver answered HTTP ${res.status}`);
  } catch (err) {
    return done(
      null,
      abort.signal.aborted
        ? `no answer within ${timeoutMs} ms`
        : `the receiver could not be reached (${(err as { cause?: { code?: string } }).cause?.code ?? 'network error'})`,
    );
  } finally {
    clearTimeout(timer);
  }
}

export function createWebhookDispatcher(
  deps: { db: Knex; operators: OperatorStore; production: boolean },
  settings: DispatcherSettings,
  log?: (msg: string, err: unknown) => void,
): WebhookDispatcher {
  const running = new Map<string, Promise<number>>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  const leaseMs = settings.timeoutMs + 10_000;

  async function deliverOne(operatorId: string): Promise<boolean> {
    const event = await claimEvent(deps.db, operatorId, leaseMs, settings.backoffSeconds);
    if (!event) return false;
    const [endpoint, operator] = await Promise.all([getEndpoint(deps.db, operatorId), deps.operators.getWithSecret(deps.db, operatorId)]);
    if (!operator || !endpoint || !endpoint.enabled || (event.type !== 'webhook.test' && !endpoint.events.includes(event.type))) {
      await dropEvent(deps.db, event, 'no receiver wants this event any more');
      return true;
    }
    const result = await sendWebhook(operator, endpoint.url, event, settings.timeoutMs, deps.production);
    await recordDelivery(deps.db, event, result, settings.maxAttempts);
    return result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  }

  async function work(operatorId: string): Promise<number> {
    let sent = 0;
    for (let i = 0; i < settings.perOperator; i++) {
      const ok = await deliverOne(operatorId);
      if (!ok) break; // nothing due, or the receiver failed: its next try waits for the backoff
      sent += 1;
    }
    return sent;
  }

  let lastPurge = 0;
  async function tick(): Promise<number> {
    await enqueueObservedEvents(deps.db, settings.stuckMinutes);
    if (Date.now() - lastPurge >= PURGE_EVERY_MS) {
      lastPurge = Date.now();
      await purgeOldEvents(deps.db, settings.retentionDays);
    }
    const started: Promise<number>[] = [];
    for (const operatorId of await operatorsWithDueEvents(deps.db)) {
      if (running.has(operatorId)) continue; // a slow receiver holds only its own worker
      const p = work(operatorId)
        .catch((err: unknown) => {
          log?.('webhooks: an operator pass failed', err);
          return 0;
        })
        .finally(() => running.delete(operatorId));
      running.set(operatorId, p);
      started.push(p);
    }
    return (await Promise.all(started)).reduce((a, b) => a + b, 0);
  }

  const loop = () => {
    if (stopped) return;
    void tick().catch((err: unknown) => log?.('webhooks: a tick failed', err));
    timer = setTimeout(loop, settings.tickMs);
    timer.unref();
  };

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setTimeout(loop, settings.tickMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await Promise.allSettled([...running.values()]);
    },
    tick,
  };
}

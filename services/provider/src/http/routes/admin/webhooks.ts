/**
 * Operators' webhooks in the admin API and console (issue 26 item 2): the receiver of a profile
 * (URL, events, on/off), a test delivery answered at once, the events of the outbox and the
 * delivery log, and redelivery of an event (same event id). Changes are in the config audit; the
 * receiver's rules and audit in webhooks/receiver-settings.ts.
 */
import { z } from 'zod';
import type { Services } from '../../../services.js';
import type { AppInstance } from '../../zod-provider.js';
import { AppError } from '../../../errors.js';
import { removeReceiver, sendTestEvent, setReceiver } from '../../../webhooks/receiver-settings.js';
import { getEndpoint, listDeliveries, listEvents, redeliver, WEBHOOK_EVENTS } from '../../../webhooks/webhook-store.js';
import { operatorIdText, queryInt, queryTime } from '../../schemas.js';
import { actorOf } from './actor.js';

const params = z.object({ operatorId: operatorIdText });
const eventParams = z.object({ operatorId: operatorIdText, eventId: z.string().uuid() });
const eventType = z.enum(WEBHOOK_EVENTS);
const endpointBody = z
  .object({
    url: z.string().min(1).max(2000),
    events: z.array(eventType).max(WEBHOOK_EVENTS.length),
    enabled: z.boolean().default(true),
  })
  .strict();
const endpointAnswer = z.object({
  operatorId: z.string(),
  url: z.string(),
  events: z.array(eventType),
  enabled: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const endpointView = z.object({ endpoint: endpointAnswer.nullable(), events: z.array(eventType) });
const eventAnswer = z.object({
  eventId: z.string(),
  type: eventType,
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number(),
  nextAttemptAt: z.string(),
  lastStatusCode: z.number().nullable(),
  lastError: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
  data: z.record(z.string(), z.unknown()),
});
const deliveryAnswer = z.object({
  id: z.string(),
  eventId: z.string(),
  attempt: z.number(),
  url: z.string(),
  statusCode: z.number().nullable(),
  error: z.string().nullable(),
  durationMs: z.number(),
  createdAt: z.string(),
});
const eventsQuery = z.object({ status: z.enum(['pending', 'delivered', 'failed']).optional(), before: queryTime.optional(), limit: queryInt(1, 200, 50) });
const deliveriesQuery = z.object({
  eventId: z.string().uuid().optional(),
  beforeId: z
    .string()
    .regex(/^[0-9]{1,18}$/)
    .optional(),
  limit: queryInt(1, 200, 50),
});

export function adminWebhookRoutes(app: AppInstance, s: Services): void {
  const deps = { db: s.db, operators: s.operators, config: s.config };
  const known = async (operatorId: string) => {
    const op = await s.operators.get(s.db, operatorId);
    if (!op) throw new AppError('NOT_FOUND', 'no such operator');
    return op;
  };

  app.get(
    '/api/admin/operators/:operatorId/webhook',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'operator' } },
      schema: {
        operationId: 'getWebhook',
        summary: "The profile's webhook receiver (null when none) and the event types there are",
        tags: ['admin'],
        params,
        response: { 200: endpointView },
      },
    },
    async (request) => {
      await known(request.params.operatorId);
      return { endpoint: await getEndpoint(s.db, request.params.operatorId), events: [...WEBHOOK_EVENTS] };
    },
  );

  app.put(
    '/api/admin/operators/:operatorId/webhook',
    {
      config: { auth: 'staff', staff: { role: 'admin', scope: 'operator' } },
      schema: {
        operationId: 'putWebhook',
        summary: "Set the profile's webhook receiver: URL, event types, on/off",
        tags: ['admin'],
        params,
        body: endpointBody,
        response: { 200: endpointAnswer },
      },
    },
    async (request) => setReceiver(deps, actorOf(request), await known(request.params.operatorId), request.body),
  );

  app.delete(
    '/api/admin/operators/:operatorId/webhook',
    {
      config: { auth: 'staff', staff: { role: 'admin', scope: 'operator' } },
      schema: {
        operationId: 'deleteWebhook',
        summary: "Remove the profile's webhook receiver (events not delivered yet end failed)",
        tags: ['admin'],
        params,
        response: { 200: z.object({ deleted: z.boolean() }) },
      },
    },
    async (request) => ({ deleted: await removeReceiver(deps, actorOf(request), await known(request.params.operatorId)) }),
  );

  app.post(
    '/api/admin/operators/:operatorId/webhook/test',
    {
      config: { auth: 'staff', staff: { role: 'admin', scope: 'operator' } },
      schema: {
        operationId: 'testWebhook',
        summary: 'Send a signed `webhook.test` event to the receiver now; answers the delivery',
        tags: ['admin'],
        params,
        response: { 200: deliveryAnswer },
      },
    },
    async (request) => sendTestEvent(deps, actorOf(request), await known(request.params.operatorId)),
  );

  app.get(
    '/api/admin/operators/:operatorId/webhook/events',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'operator' } },
      schema: {
        operationId: 'listWebhookEvents',
        summary: 'Events of the outbox, newest first',
        tags: ['admin'],
        params,
        querystring: eventsQuery,
        response: { 200: z.object({ events: z.array(eventAnswer) }) },
      },
    },
    async (request) => {
      const events = await listEvents(s.db, request.params.operatorId, request.query);
      return {
        events: events.map((e) => ({
          eventId: e.eventId,
          type: e.type,
          status: e.status,
          attempts: e.attempts,
          nextAttemptAt: e.nextAttemptAt,
          lastStatusCode: e.lastStatusCode,
          lastError: e.lastError,
          deliveredAt: e.deliveredAt,
          createdAt: e.createdAt,
          data: e.payload,
        })),
      };
    },
  );

  app.get(
    '/api/admin/operators/:operatorId/webhook/deliveries',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'operator' } },
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'The delivery log (one row per attempt), newest first',
        tags: ['admin'],
        params,
        querystring: deliveriesQuery,
        response: { 200: z.object({ deliveries: z.array(deliveryAnswer) }) },
      },
    },
    async (request) => ({ deliveries: await listDeliveries(s.db, request.params.operatorId, request.query) }),
  );

  app.post(
    '/api/admin/operators/:operatorId/webhook/events/:eventId/redeliver',
    {
      config: { auth: 'staff', staff: { role: 'admin', scope: 'operator' } },
      schema: {
        operationId: 'redeliverWebhookEvent',
        summary: 'Deliver an event again (same event id) on the next dispatcher pass',
        tags: ['admin'],
        params: eventParams,
        response: { 200: eventAnswer },
      },
    },
    async (request) => {
      const e = await redeliver(s.db, request.params.operatorId, request.params.eventId);
      if (!e) throw new AppError('NOT_FOUND', 'no such event for this operator');
      return {
        eventId: e.eventId,
        type: e.type,
        status: e.status,
        attempts: e.attempts,
        nextAttemptAt: e.nextAttemptAt,
        lastStatusCode: e.lastStatusCode,
        lastError: e.lastError,
        deliveredAt: e.deliveredAt,
        createdAt: e.createdAt,
        data: e.payload,
      };
    },
  );
}

/**
 * Admission control per casino (issue 23, docs/reliability.md "Tenants"): the player requests of
 * one operator profile — session creation, bets, round actions and reads, balance — that a pod
 * works on at once are capped at PLAYER_MAX_IN_FLIGHT_PER_OPERATOR. Past the cap the request is
 * refused at once with 429 `RATE_LIMITED` (`Retry-After: 1`), before any database statement of
 * its own and before any wallet call, so it stores nothing and may simply be retried.
 *
 * Why admission control and not a pool per tenant: the database pool (10 connections a pod) and
 * the Redis connection are shared, and their queues are first come, first served. A casino's
 * flood can only be in those queues with the requests it has in progress, so capping those caps
 * how far ahead of another casino's statement it can be: with the default 64, a statement of the
 * calm casino waits behind at most 64 of the flood's, a few milliseconds. Pools per tenant would
 * multiply the connections PostgreSQL must hold by the number of casinos. The wallet has its own
 * bulkhead (wallet/operator-bulkhead.ts): a slow wallet holds its casino's requests here, in its
 * own share, and never a database connection while it waits.
 *
 * The operator of a request: the session's (player routes, from the session cache), or the body's
 * `operatorId` (session creation). A request whose session is unknown is refused by the session
 * lookup itself (INVALID_SESSION), as it would be by its handler.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions, preHandlerAsyncHookHandler } from 'fastify';
import { AppError } from '../errors.js';
import type { Services } from '../services.js';
import { createOperatorBulkheads, type Release } from '../wallet/operator-bulkhead.js';

const kRelease = Symbol('gp.tenantShare');
type Admitted = FastifyRequest & { [kRelease]?: Release };

function operatorOf(s: Pick<Services, 'db' | 'sessions'>, request: FastifyRequest): Promise<string | null> | string | null {
  const body = request.body as { sessionId?: unknown; operatorId?: unknown } | undefined;
  const query = request.query as { sessionId?: unknown } | undefined;
  const params = request.params as { sessionId?: unknown } | undefined;
  const sessionId = [body?.sessionId, query?.sessionId, params?.sessionId].find((v): v is string => typeof v === 'string');
  if (sessionId !== undefined) return s.sessions.get(s.db, sessionId).then((session) => session.operatorId);
  return typeof body?.operatorId === 'string' ? body.operatorId : null;
}

/** Hangs the per-operator admission check on every player route and on session creation. Call before the routes. */
export function registerTenantShare(app: FastifyInstance, s: Pick<Services, 'db' | 'sessions' | 'config'>): void {
  const lanes = createOperatorBulkheads({ maxInFlight: s.config.tenantShare.playerMaxInFlight, maxQueued: 0 });

  const admit: preHandlerAsyncHookHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const operatorId = await operatorOf(s, request);
    if (operatorId === null) return;
    const release = await lanes.acquire(operatorId, 0);
    if (!release) {
      void reply.header('retry-after', '1');
      throw new AppError('RATE_LIMITED', "this casino's players have too many requests in progress on this server; retry in a second");
    }
    (request as Admitted)[kRelease] = release;
    // A client that goes away before its answer (a closed tab, a load generator stopping) gets no
    // onResponse: the socket's close releases the share then, or the casino's lane leaks a slot.
    reply.raw.once('close', () => releaseOnce(request));
  };

  const releaseOnce = (request: FastifyRequest) => {
    const release = (request as Admitted)[kRelease];
    if (release) {
      (request as Admitted)[kRelease] = undefined;
      release();
    }
  };

  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const sessionCreation = route.url === '/api/sessions' && methods.includes('POST');
    if (route.config?.auth !== 'player' && !sessionCreation) return;
    const existing = route.preHandler;
    route.preHandler = existing === undefined ? [admit] : Array.isArray(existing) ? [admit, ...existing] : [admit, existing];
  });
  // Released when the work is done and its answer sent (also to a client that went away: the
  // work went on until then, so it held its share until then).
  app.addHook('onResponse', async (request) => releaseOnce(request));
}

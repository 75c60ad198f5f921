/**
 * Rate limits (@fastify/rate-limit), counted in Redis and so shared by every pod (in this
 * process without REDIS_URL). A route picks a policy in its config, beside its `auth`:
 *
 *   config: { auth: 'player', rateLimitPolicy: 'session' }
 *
 *   session  bets and round actions: per session id (hashed in the key), each route its own
 *            budget; RATE_LIMIT_SESSION_PER_MIN. Counted after validation (the id is in the body
 *            or the query).
 *   ip       session creation, sandbox launch, verify: per client IP; RATE_LIMIT_IP_PER_MIN.
 *   login    staff login: per client IP; RATE_LIMIT_LOGIN_PER_MIN.
 *
 * The session policy's counts are leased by each pod in small blocks (rate-limit-store.ts): no
 * Redis round trip for most requests, and still never more than the limit across pods.
 *
 * Past the limit: 429 `RATE_LIMITED` in the error envelope (CONTRACT.md §2) with `Retry-After`
 * (seconds until the window ends). Fixed windows of one minute. A Redis failure lets the request
 * through (the limit protects capacity; money safety never depends on it). Failed authentication
 * has its own counter (authentication.ts, RATE_LIMIT_AUTH_FAILURES_PER_MIN).
 */
import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { KeyValueStore } from '../infra/kv.js';
import { redisRateLimitStore } from './rate-limit-store.js';

export const RATE_LIMIT_POLICIES = ['session', 'ip', 'login'] as const;
export type RateLimitPolicy = (typeof RATE_LIMIT_POLICIES)[number];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's rate limit (http/rate-limits.ts); none when absent. */
    rateLimitPolicy?: RateLimitPolicy;
  }
}

const WINDOW_MS = 60_000;

/** The session id of a player request (body or query), as a hash: the id is the player's key and never stored in clear. */
function sessionKey(request: FastifyRequest): string {
  const body = request.body as { sessionId?: unknown } | undefined;
  const query = request.query as { sessionId?: unknown } | undefined;
  const id = typeof body?.sessionId === 'string' ? body.sessionId : typeof query?.sessionId === 'string' ? query.sessionId : null;
  return id === null ? `ip:${request.ip}` : `s:${createHash('sha256').update(id).digest('base64url').slice(0, 22)}`;
}

function policyOptions(policy: RateLimitPolicy, config: Config) {
  switch (policy) {
    case 'session':
      return { max: config.rateLimits.sessionPerMinute, timeWindow: WINDOW_MS, hook: 'preHandler' as const, keyGenerator: sessionKey, leased: true };
    case 'ip':
      return { max: config.rateLimits.ipPerMinute, timeWindow: WINDOW_MS };
    case 'login':
      return { max: config.rateLimits.loginPerMinute, timeWindow: WINDOW_MS };
  }
}

/**
 * Registers the limiter; call (and await) before any route. A route's `rateLimitPolicy` becomes
 * the plugin's per-route `rateLimit` options.
 */
export async function registerRateLimits(app: FastifyInstance, deps: { config: Config; kv: KeyValueStore }): Promise<void> {
  app.addHook('onRoute', (route: RouteOptions) => {
    const policy = route.config?.rateLimitPolicy;
    if (policy === undefined) return;
    if (!(RATE_LIMIT_POLICIES as readonly string[]).includes(policy)) throw new Error(`route ${route.url}: unknown rateLimitPolicy ${String(policy)}`);
    route.config = { ...route.config, rateLimit: policyOptions(policy, deps.config) } as typeof route.config;
  });
  await app.register(rateLimit, {
    global: false,
    ...(deps.kv.redis ? { store: redisRateLimitStore(deps.kv.redis, `${deps.config.redisKeyPrefix}rl:`) } : {}),
    skipOnError: true,
    errorResponseBuilder: (_request, context) => new AppError('RATE_LIMITED', `too many requests; retry in ${context.after}`),
  });
}

/**
 * Who may call which route. Every route declares `config.auth` when it is registered, and this
 * plugin hangs the matching check on that route (its own onRequest / preValidation hooks), so
 * authentication follows the route the router matched, never the text of the URL: a percent-
 * encoded, doubled-slash or differently cased path reaches either the protected route with its
 * check or no route at all. A route without a declaration fails at start.
 *
 *   public             anybody (health, docs, the game page, verify, public config)
 *   player             anybody with a `sessionId` (checked by the service: INVALID_SESSION)
 *   admin              Bearer ADMIN_TOKEN (CONTRACT.md §7)
 *   cron               Bearer CRON_SECRET (SPEC.md Authentication 5)
 *   admin-or-operator  Bearer ADMIN_TOKEN, or a request signed with an operator secret (§6)
 *   player-or-operator public by capability (a round id), or signed: then scoped to the operator
 *
 * Failed authentication is counted per client IP (Redis, shared by all pods); past
 * RATE_LIMIT_AUTH_FAILURES_PER_MIN the IP gets 429 RATE_LIMITED until its window ends.
 * Every comparison of a secret is timing-safe; no secret appears in an answer or a log line.
 */
import type { FastifyInstance, FastifyRequest, RouteOptions, onRequestHookHandler, preValidationHookHandler } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { KeyValueStore } from '../infra/kv.js';
import type { OperatorStore } from '../operators/operator-store.js';
import type { Db } from '../store/db.js';
import { NONCE_PATTERN, secretEquals, sign, signatureMatches } from '../wallet/signing.js';

export const ROUTE_AUTH = ['public', 'player', 'admin', 'cron', 'admin-or-operator', 'player-or-operator'] as const;
export type RouteAuth = (typeof ROUTE_AUTH)[number];
/** Routes that refuse an anonymous caller. */
export const PROTECTED_AUTH: readonly RouteAuth[] = ['admin', 'cron', 'admin-or-operator'];

export type Caller = { kind: 'anonymous' } | { kind: 'admin' } | { kind: 'cron' } | { kind: 'operator'; operatorId: string };

/** A registered route and who may call it (tests enumerate these; so will the admin console's rule table). */
export interface RouteEntry {
  method: string;
  url: string;
  auth: RouteAuth;
  schema: Record<string, unknown> | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered, with its `config.auth`. */
    routeTable: RouteEntry[];
  }
  interface FastifyContextConfig {
    /** Who may call the route (http/authentication.ts); required on every route. */
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    /** Set by the route's authentication hook. */
    caller: Caller;
    /** The exact body text (signed operator requests sign it). */
    rawBody?: string;
  }
}

export interface AuthDeps {
  db: Db;
  operators: OperatorStore;
  kv: KeyValueStore;
  config: Config;
  now?: () => number;
}

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  return m?.[1] ?? null;
}

const tokenMatches = (expected: string | undefined, token: string | null) => Boolean(expected && token && secretEquals(expected, token));

export function hasSignatureHeaders(request: FastifyRequest): boolean {
  return ['x-operator-id', 'x-timestamp', 'x-nonce', 'x-signature'].some((h) => request.headers[h] !== undefined);
}

/** Verifies a request signed with an operator secret (CONTRACT.md §6); answers the operator id it is scoped to. */
export async function verifyOperatorSignature(request: FastifyRequest, deps: AuthDeps): Promise<string> {
  const h = (name: string) => {
    const v = request.headers[name];
    return typeof v === 'string' ? v : undefined;
  };
  const operatorId = h('x-operator-id');
  const timestamp = h('x-timestamp');
  const nonce = h('x-nonce');
  const signature = h('x-signature');
  if (!operatorId || !timestamp || !nonce || !signature) throw new AppError('SIGNATURE_REQUIRED', 'signature headers are missing');
  const nowS = Math.floor((deps.now ?? Date.now)() / 1000);
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowS - Number(timestamp)) > deps.config.clockSkewSeconds) {
    throw new AppError('SIGNATURE_STALE', 'the request timestamp is outside the allowed clock skew');
  }
  if (!NONCE_PATTERN.test(nonce) || !/^[A-Za-z0-9._-]{1,64}$/.test(operatorId)) throw new AppError('SIGNATURE_INVALID', 'the request signature is not valid');
  const operator = await deps.operators.getWithSecret(deps.db, operatorId);
  if (!operator) throw new AppError('SIGNATURE_INVALID', 'the request signature is not valid');
  const expected = sign(operator.sharedSecret, request.method, request.raw.url ?? request.url, timestamp, nonce, request.rawBody ?? '');
  if (!signatureMatches(expected, signature.toLowerCase() === signature ? signature : '')) {
    throw new AppError('SIGNATURE_INVALID', 'the request signature is not valid');
  }
  const fresh = await deps.kv.claimOnce(`nonce:${operatorId}:${nonce}`, (deps.config.clockSkewSeconds * 2 + 60) * 1000);
  if (!fresh) throw new AppError('SIGNATURE_REPLAYED', 'this request nonce was already used');
  return operatorId;
}

const FAILURE_WINDOW_MS = 60_000;
const failureKey = (request: FastifyRequest) => `authfail:${request.ip}`;

/**
 * Runs an authentication check under the per-IP failure limit: an IP past the limit is refused
 * (429) before the check; a failed check counts one more failure.
 */
function guarded<T>(deps: AuthDeps, check: (request: FastifyRequest) => Promise<T> | T) {
  return async (request: FastifyRequest): Promise<T> => {
    const limit = deps.config.rateLimits.authFailuresPerMinute;
    if ((await deps.kv.hits(failureKey(request))) >= limit) {
      throw new AppError('RATE_LIMITED', 'too many failed authentication attempts; wait a minute');
    }
    try {
      return await check(request);
    } catch (err) {
      if (err instanceof AppError && (err.statusCode === 401 || err.statusCode === 403)) await deps.kv.hit(failureKey(request), FAILURE_WINDOW_MS);
      throw err;
    }
  };
}

function checks(deps: AuthDeps) {
  const admin = guarded(deps, (request) => {
    if (!tokenMatches(deps.config.adminToken, bearerToken(request))) throw new AppError('UNAUTHORIZED', 'a valid administrator bearer token is required');
    return { kind: 'admin' } as const;
  });
  const cron = guarded(deps, (request) => {
    if (!tokenMatches(deps.config.cronSecret, bearerToken(request))) throw new AppError('UNAUTHORIZED', 'a valid cron bearer token is required');
    return { kind: 'cron' } as const;
  });
  const operator = guarded(deps, async (request) => ({ kind: 'operator', operatorId: await verifyOperatorSignature(request, deps) }) as const);
  return { admin, cron, operator };
}

/** Registers the hook that equips every route with the check its `config.auth` names. Call before any route. */
export function registerAuthentication(app: FastifyInstance, deps: AuthDeps): void {
  const c = checks(deps);
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.decorateRequest('caller', null as never);

  const onRequest: Partial<Record<RouteAuth, onRequestHookHandler>> = {
    admin: async (request) => {
      request.caller = await c.admin(request);
    },
    cron: async (request) => {
      request.caller = await c.cron(request);
    },
  };
  // Signatures cover the body, so they are checked once it is read (and before it is validated).
  const preValidation: Partial<Record<RouteAuth, preValidationHookHandler>> = {
    'admin-or-operator': async (request) => {
      if (bearerToken(request) !== null) request.caller = await c.admin(request);
      else if (hasSignatureHeaders(request)) request.caller = await c.operator(request);
      else throw new AppError('UNAUTHORIZED', 'an administrator token or an operator signature is required');
    },
    'player-or-operator': async (request) => {
      request.caller = hasSignatureHeaders(request) ? await c.operator(request) : { kind: 'anonymous' };
    },
  };

  app.addHook('onRoute', (route: RouteOptions) => {
    const auth = (route.config as { auth?: RouteAuth } | undefined)?.auth;
    if (!auth || !(ROUTE_AUTH as readonly string[]).includes(auth)) {
      throw new Error(`route ${String(route.method)} ${route.url} declares no config.auth (http/authentication.ts)`);
    }
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      table.push({ method, url: route.url, auth, schema: route.schema as Record<string, unknown> | undefined });
    }
    const first = onRequest[auth];
    if (first) route.onRequest = [first, ...toArray(route.onRequest)];
    const second = preValidation[auth];
    if (second) route.preValidation = [second, ...toArray(route.preValidation)];
  });
  app.addHook('onRequest', async (request) => {
    request.caller = { kind: 'anonymous' };
  });
}

function toArray<T>(v: T | T[] | undefined): T[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

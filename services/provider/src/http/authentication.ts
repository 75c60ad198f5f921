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
 *   staff              the admin console (issue 13): a staff session cookie, or Bearer ADMIN_TOKEN
 *                      (a platform admin). The route also declares `config.staff`: the least role
 *                      it needs and how its data maps to a tenant (see StaffRule below); a request
 *                      with a session cookie that changes state must carry the CSRF token.
 *
 * Failed authentication is counted per client IP (Redis, shared by all pods); past
 * RATE_LIMIT_AUTH_FAILURES_PER_MIN the IP gets 429 RATE_LIMITED until its window ends.
 * Every comparison of a secret is timing-safe; no secret appears in an answer or a log line.
 */
import type { FastifyInstance, FastifyRequest, RouteOptions, onRequestAsyncHookHandler, preValidationAsyncHookHandler } from 'fastify';
import type {} from '@fastify/cookie';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { KeyValueStore } from '../infra/kv.js';
import type { OperatorStore } from '../operators/operator-store.js';
import type { Db } from '../store/db.js';
import { getCampaign } from '../rounds/free-bet-store.js';
import { getPromotion } from '../rounds/promotions/promotion-store.js';
import { getRound } from '../rounds/round-store/reads.js';
import { getAccount } from '../staff/staff-store.js';
import { meetsRole, principalOfSession, seesTenant, TOKEN_PRINCIPAL, type RequiredRole, type StaffPrincipal } from '../staff/staff.js';
import { NONCE_PATTERN, secretEquals, sign, signatureMatches } from '../wallet/signing.js';

export const ROUTE_AUTH = ['public', 'player', 'admin', 'cron', 'admin-or-operator', 'player-or-operator', 'staff'] as const;
export type RouteAuth = (typeof ROUTE_AUTH)[number];
/** Routes that refuse an anonymous caller. */
export const PROTECTED_AUTH: readonly RouteAuth[] = ['admin', 'cron', 'admin-or-operator', 'staff'];

export type Caller =
  { kind: 'anonymous' } | { kind: 'admin' } | { kind: 'cron' } | { kind: 'operator'; operatorId: string } | { kind: 'staff'; staff: StaffPrincipal };

/**
 * What an `auth: 'staff'` route declares besides: the least role (`viewer`: any staff member;
 * `admin`: a casino's admin or a platform admin — every change; `platform`: platform admins only)
 * and how the data it touches maps to a tenant, checked before the handler runs:
 *
 *   self       the caller's own account and session only (me, logout, password)
 *   list       lists: `request.staffScope.operatorIds` is the caller's tenant's profiles (null: all);
 *              a `?operatorId=` of another tenant is 403
 *   operator   the `:operatorId` path parameter's profile must be the caller's tenant's
 *              (`allowNew`: an unknown id passes; the handler places the new profile in the tenant)
 *   round      the `:roundId` path parameter's round must belong to one of the tenant's profiles
 *   staff      the `:staffId` path parameter's account must be of the caller's tenant
 *   campaign   the `:campaignId` path parameter's free-bet campaign must be of one of the tenant's profiles
 *   promotion  the `:promoId` path parameter's tournament or prize drop must be of one of the tenant's profiles
 *
 * Casino staff reaching another tenant's data get 403 FORBIDDEN, as does a viewer on a route
 * that needs `admin`. The console's isolation test lists every staff route with its rule.
 */
export interface StaffRule {
  role: RequiredRole;
  scope: 'self' | 'list' | 'operator' | 'round' | 'staff' | 'campaign' | 'promotion';
  allowNew?: boolean;
}

/** The cookie of a staff session (httpOnly, SameSite=Strict, Secure in production). */
export const STAFF_SESSION_COOKIE = 'gp_admin_session';
export const CSRF_COOKIE = 'gp_admin_csrf';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A registered route and who may call it (tests enumerate these; so will the admin console's rule table). */
export interface RouteEntry {
  method: string;
  url: string;
  auth: RouteAuth;
  staff?: StaffRule | undefined;
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
    /** `auth: 'staff'` routes: the least role and the tenant rule (StaffRule). */
    staff?: StaffRule;
  }
  interface FastifyRequest {
    /** Set by the route's authentication hook. */
    caller: Caller;
    /** The exact body text (signed operator requests sign it). */
    rawBody?: string;
    /** `staff` routes with scope `list`: the profiles the caller may see (null: every profile). */
    staffScope: { operatorIds: string[] | null };
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
  // During a rotation's grace period the previous secret verifies too (issue 13 item 3).
  const secrets = [operator.sharedSecret];
  if (operator.previousSharedSecret && operator.previousSecretValidUntil && Date.parse(operator.previousSecretValidUntil) > nowS * 1000)
    secrets.push(operator.previousSharedSecret);
  const received = signature.toLowerCase() === signature ? signature : '';
  const matches = secrets.map((secret) =>
    signatureMatches(sign(secret, request.method, request.raw.url ?? request.url, timestamp, nonce, request.rawBody ?? ''), received),
  );
  if (!matches.includes(true)) {
    throw new AppError('SIGNATURE_INVALID', 'the request signature is not valid');
  }
  // A disabled profile is refused on every signed route (issue 23 defect 5b; docs/DECISIONS.md):
  // 403 after a valid signature, so only the holder of the secret learns the profile's state.
  if (!operator.enabled) throw new AppError('FORBIDDEN', 'this operator profile is disabled; ask the provider to enable it');
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
  const staffCaller = guarded(deps, async (request) => {
    if (bearerToken(request) !== null) {
      if (!tokenMatches(deps.config.adminToken, bearerToken(request)))
        throw new AppError('UNAUTHORIZED', 'a valid administrator bearer token or staff session is required');
      return TOKEN_PRINCIPAL;
    }
    const cookie = request.cookies?.[STAFF_SESSION_COOKIE];
    const principal = cookie ? await principalOfSession(deps.db, cookie) : null;
    if (!principal) throw new AppError('UNAUTHORIZED', 'sign in to the admin console (or use the administrator bearer token)');
    return principal;
  });
  return { admin, cron, operator, staff: staffCaller };
}

/** The staff member calling a `staff` route (set by its authentication hook). */
export function staffOf(request: FastifyRequest): StaffPrincipal {
  if (request.caller.kind !== 'staff') throw new AppError('UNAUTHORIZED', 'a staff session is required');
  return request.caller.staff;
}

/**
 * The CSRF check of a state-changing request made with a session cookie (@fastify/csrf-protection:
 * the token of GET /api/admin/auth/csrf in the `x-csrf-token` header, against the secret in its
 * httpOnly cookie). Bearer-token requests carry no ambient credential and need none.
 */
export async function checkCsrf(app: FastifyInstance, request: FastifyRequest): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const refuse = { send: () => reject(new AppError('FORBIDDEN', 'missing or invalid CSRF token (x-csrf-token)')) };
    (app as unknown as { csrfProtection: (r: FastifyRequest, reply: unknown, next: () => void) => void }).csrfProtection(request, refuse, resolve);
  });
}

/** Enforces a staff route's tenant rule once its params and query are validated. */
async function enforceStaffRule(deps: AuthDeps, request: FastifyRequest, rule: StaffRule): Promise<void> {
  const p = staffOf(request);
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  const query = (request.query ?? {}) as Record<string, unknown>;
  const forbid = () => new AppError('FORBIDDEN', 'this belongs to another casino');
  const operatorTenant = async (operatorId: string) => {
    const op = await deps.operators.get(deps.db, operatorId);
    return op ? { tenantId: op.tenantId } : null;
  };
  switch (rule.scope) {
    case 'self':
      return;
    case 'list': {
      const asked = typeof query.operatorId === 'string' ? query.operatorId : undefined;
      if (asked) {
        const op = await operatorTenant(asked);
        if (op ? !seesTenant(p, op.tenantId) : p.tenantId !== null) throw forbid();
        request.staffScope = { operatorIds: [asked] };
      } else if (p.tenantId === null) {
        request.staffScope = { operatorIds: null };
      } else {
        request.staffScope = { operatorIds: (await deps.operators.list(deps.db)).filter((o) => o.tenantId === p.tenantId).map((o) => o.operatorId) };
      }
      return;
    }
    case 'operator': {
      const op = await operatorTenant(params.operatorId ?? '');
      if (op ? !seesTenant(p, op.tenantId) : !rule.allowNew && p.tenantId !== null) throw forbid();
      return;
    }
    case 'round': {
      const round = await getRound(deps.db, params.roundId ?? '');
      if (!round) {
        if (p.tenantId !== null) throw forbid();
        return;
      }
      const op = await operatorTenant(round.operatorId);
      if (!op || !seesTenant(p, op.tenantId)) throw forbid();
      return;
    }
    case 'campaign': {
      const campaign = await getCampaign(deps.db, params.campaignId ?? '');
      if (!campaign) {
        if (p.tenantId !== null) throw forbid();
        return;
      }
      const op = await operatorTenant(campaign.operatorId);
      if (!op || !seesTenant(p, op.tenantId)) throw forbid();
      return;
    }
    case 'promotion': {
      const promo = await getPromotion(deps.db, params.promoId ?? '');
      if (!promo) {
        if (p.tenantId !== null) throw forbid();
        return;
      }
      const op = await operatorTenant(promo.operatorId);
      if (!op || !seesTenant(p, op.tenantId)) throw forbid();
      return;
    }
    case 'staff': {
      const account = /^[0-9a-f-]{36}$/.test(params.staffId ?? '') ? await getAccount(deps.db, params.staffId!) : null;
      if (account ? !seesTenant(p, account.tenantId) : p.tenantId !== null) throw forbid();
      return;
    }
  }
}

/** Registers the hook that equips every route with the check its `config.auth` names. Call before any route. */
export function registerAuthentication(app: FastifyInstance, deps: AuthDeps): void {
  const c = checks(deps);
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.decorateRequest('caller', null as never);
  app.decorateRequest('staffScope', null as never);

  const onRequest: Partial<Record<RouteAuth, onRequestAsyncHookHandler>> = {
    admin: async (request) => {
      request.caller = await c.admin(request);
    },
    cron: async (request) => {
      request.caller = await c.cron(request);
    },
    staff: async (request) => {
      const staff = await c.staff(request);
      request.caller = { kind: 'staff', staff };
      const rule = (request.routeOptions.config as { staff?: StaffRule }).staff!;
      if (!meetsRole(staff, rule.role))
        throw new AppError('FORBIDDEN', rule.role === 'platform' ? 'only a platform admin may do this' : 'your role may only read');
      if (staff.via === 'session' && !SAFE_METHODS.has(request.method)) await checkCsrf(app, request);
    },
  };
  // Signatures cover the body, so they are checked once it is read (and before it is validated).
  const preValidation: Partial<Record<RouteAuth, preValidationAsyncHookHandler>> = {
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
    const staffRule = (route.config as { staff?: StaffRule } | undefined)?.staff;
    if (auth === 'staff' && !staffRule) throw new Error(`staff route ${String(route.method)} ${route.url} declares no config.staff (role and scope)`);
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      table.push({ method, url: route.url, auth, staff: staffRule, schema: route.schema as Record<string, unknown> | undefined });
    }
    if (auth === 'staff') route.preHandler = [async (request) => enforceStaffRule(deps, request, staffRule!), ...toArray(route.preHandler)];
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

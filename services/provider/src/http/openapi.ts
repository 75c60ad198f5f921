/**
 * GET /openapi.json (CONTRACT.md §8): an OpenAPI 3.1 document generated from the very zod
 * schemas that validate the requests and write the answers, collected as routes are registered.
 * Each operation has its operationId, its security (from the route's `config.auth`), its answer
 * and the error envelope of CONTRACT.md §2 on every 4xx and 5xx. CI lints it with Redocly.
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import { z } from 'zod';
import type { RouteAuth } from './authentication.js';

export const API_VERSION = '0.1.0';

interface CollectedRoute {
  method: string;
  url: string;
  auth: RouteAuth | undefined;
  schema: Record<string, unknown>;
}

function jsonSchema(schema: unknown, io: 'input' | 'output'): Record<string, unknown> {
  if (!(schema instanceof z.ZodType)) return {};
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

function parameters(schema: unknown, where: 'query' | 'path'): unknown[] {
  const js = jsonSchema(schema, 'input') as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, s]) => {
    const { description, ...rest } = s;
    return { name, in: where, required: where === 'path' || (js.required ?? []).includes(name), ...(description ? { description } : {}), schema: rest };
  });
}

/** Who may call a route, as OpenAPI security requirements (`{}`: anonymous allowed). */
const SECURITY: Record<RouteAuth, Record<string, string[]>[]> = {
  public: [],
  player: [],
  admin: [{ adminToken: [] }],
  cron: [{ cronSecret: [] }],
  'admin-or-operator': [{ adminToken: [] }, { operatorId: [], operatorTimestamp: [], operatorNonce: [], operatorSignature: [] }],
  'player-or-operator': [{}, { operatorId: [], operatorTimestamp: [], operatorNonce: [], operatorSignature: [] }],
  staff: [{ staffSession: [], csrfToken: [] }, { adminToken: [] }],
};

const TAGS = [
  { name: 'player', description: 'The game page: sessions, balance and settled bets, identified by the sessionId a casino-validated launch token gave.' },
  { name: 'mines', description: 'Mines active rounds: one debit at start, one credit at the close.' },
  { name: 'blackjack', description: 'Blackjack active rounds: one debit at start, extra debits for insurance, double and split, one credit at the close.' },
  { name: 'fairness', description: 'Provably fair seeds: rotation reveals the server seed; verify recomputes any result (CONTRACT.md §9).' },
  { name: 'operator', description: 'Casino backends, signed with their operator secret (CONTRACT.md §6).' },
  { name: 'operators', description: 'The public configuration of an operator-currency profile.' },
  { name: 'admin', description: 'The platform administrator (Bearer ADMIN_TOKEN) and operator staff.' },
  { name: 'operations', description: 'Health, readiness and the wallet retry job.' },
  { name: 'sandbox', description: 'The demo casino (not in production).' },
];

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

export function buildOpenApi(routes: CollectedRoute[], serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const s = r.schema;
    if (s.hide) continue;
    const path = r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const responses: Record<string, unknown> = {};
    for (const [status, schema] of Object.entries((s.response as Record<string, unknown> | undefined) ?? {})) {
      const ok = Number(status) < 400;
      responses[status] = { description: ok ? 'OK' : 'Failed', content: { 'application/json': { schema: jsonSchema(schema, 'output') } } };
    }
    if (Object.keys(responses).length === 0) responses['200'] = { description: 'OK' };
    responses['4XX'] = errorResponse('Refused: a code of CONTRACT.md §2 (400 validation and rules, 401 credentials, 403 another operator, 404 no such route, 409 in progress, 429 rate limited)');
    if (!responses['503']) responses['5XX'] = errorResponse('The casino failed (502 CASINO_HTTP_*, 504 CASINO_TIMEOUT) or the service is not ready (503)');
    const op: Record<string, unknown> = {
      operationId: s.operationId,
      summary: s.summary,
      ...(s.description ? { description: s.description } : {}),
      tags: s.tags,
      security: r.auth ? SECURITY[r.auth] : [],
      parameters: [...parameters(s.querystring, 'query'), ...parameters(s.params, 'path')],
      responses,
    };
    if (s.body) op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(s.body, 'input') } } };
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Game provider API',
      version: API_VERSION,
      description:
        'Provably fair casino games (dice, limbo, plinko, keno, mines, blackjack) for casinos that keep the money: every debit, credit and rollback is a signed callback to the casino wallet (see /wallet-openapi.json when served). Amounts are exact JSON numbers in the currency’s decimals.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: serverUrl, description: 'this deployment' }],
    tags: TAGS,
    paths,
    components: {
      securitySchemes: {
        adminToken: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <ADMIN_TOKEN>' },
        cronSecret: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <CRON_SECRET>' },
        staffSession: { type: 'apiKey', in: 'cookie', name: 'gp_admin_session', description: 'The admin console session (POST /api/admin/auth/login); httpOnly, SameSite=Strict' },
        csrfToken: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token', description: 'With a session cookie, every state-changing request carries the token of GET /api/admin/auth/csrf' },
        operatorId: { type: 'apiKey', in: 'header', name: 'X-Operator-Id', description: 'Signed operator request (CONTRACT.md §6): the operator profile' },
        operatorTimestamp: { type: 'apiKey', in: 'header', name: 'X-Timestamp', description: 'Unix time in whole seconds' },
        operatorNonce: { type: 'apiKey', in: 'header', name: 'X-Nonce', description: '16 to 128 characters of [A-Za-z0-9_-], new for every request' },
        operatorSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Signature',
          description: 'lowercase hex HMAC-SHA256(operator secret, METHOD\\nREQUEST_TARGET\\nX-Timestamp\\nX-Nonce\\nRAW_BODY), the request target as sent (query string included)',
        },
      },
      schemas: {
        Error: {
          type: 'object',
          description: 'The error envelope (CONTRACT.md §2)',
          required: ['statusCode', 'error', 'code', 'message'],
          properties: {
            statusCode: { type: 'integer' },
            error: { type: 'string' },
            code: { type: 'string' },
            message: { type: 'string' },
            roundId: { type: 'string' },
            roundStatus: { type: 'string' },
            casinoCode: { type: 'string' },
            casinoMessage: { type: 'string', description: "the casino's own words of a 4xx refusal (at most 300 characters, no control characters, plain text); never on SIGNATURE_* or IDEMPOTENCY_CONFLICT" },
          },
        },
      },
    },
  };
}

/** Collects every route with a schema; must be registered before the routes. */
export function registerOpenApi(app: FastifyInstance, serverUrl: string): void {
  const routes: CollectedRoute[] = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.schema) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      routes.push({ method, url: route.url, auth: (route.config as { auth?: RouteAuth } | undefined)?.auth, schema: route.schema as Record<string, unknown> });
    }
  });
  let cached: Record<string, unknown> | null = null;
  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => (cached ??= buildOpenApi(routes, serverUrl)));
}

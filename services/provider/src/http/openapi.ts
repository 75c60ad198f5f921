/**
 * GET /openapi.json (CONTRACT.md §8): an OpenAPI 3.1 document generated from the very zod
 * schemas that validate the requests and write the answers, collected as routes are registered.
 * Each operation has its operationId, its security (from the route's `config.auth`), its answer
 * and the error envelope of CONTRACT.md §2 on every 4xx and 5xx. CI lints it with Redocly.
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import { GAME_TYPES, GAMES } from '@gp/game-core/games';
import { z } from 'zod';
import { errorAnswer } from './answers.js';
import type { RouteAuth } from './authentication.js';

export const API_VERSION = '0.1.0';

interface CollectedRoute {
  method: string;
  url: string;
  auth: RouteAuth | undefined;
  schema: Record<string, unknown>;
}

type Json = Record<string, unknown>;
const COMPONENT = '#/components/schemas/';

/** `#/$defs/X` (zod's reference to a schema with `.meta({ id })`) → `#/components/schemas/X`. */
function toComponentRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponentRefs);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Json).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? v.replace(/^#\/\$defs\//, COMPONENT) : toComponentRefs(v)]),
    );
  }
  return value;
}

/**
 * The JSON Schema of a zod schema; the named schemas it uses (`.meta({ id })`, answers.ts) land in
 * `components` and are referenced. A name is one schema: the same name with another shape (an
 * input and an output that differ) is a bug in the names, refused at start.
 */
function jsonSchema(schema: unknown, io: 'input' | 'output', components: Record<string, Json>): Json {
  if (!(schema instanceof z.ZodType)) return {};
  const out = toComponentRefs(z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' })) as Json;
  for (const [name, def] of Object.entries((out.$defs ?? {}) as Record<string, Json>)) addComponent(components, name, def);
  delete out.$schema;
  delete out.$defs;
  delete out.id;
  return out;
}

function addComponent(components: Record<string, Json>, name: string, def: Json): void {
  const { id: _id, ...rest } = def;
  if (name === 'GameParams') return; // documented as the union of the games' params (gameParams below)
  const known = components[name];
  if (known && JSON.stringify(known) !== JSON.stringify(rest))
    throw new Error(`/openapi.json: the named schema ${name} has two shapes (input and output differ): name them apart`);
  components[name] = rest;
}

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * `GameParams`: the union of every game's params (game-core's schemas, as a request sends them);
 * which one applies is named by the `gameType` beside it. `anyOf`, not `oneOf`: Blackjack's params
 * are `{}`, which any object matches, so no params object matches exactly one.
 */
function gameParams(components: Record<string, Json>): void {
  const refs: Json[] = [];
  for (const game of GAME_TYPES) {
    const name = `${pascal(game)}Params`;
    components[name] = { ...jsonSchema(GAMES[game].paramsSchema, 'input', components), description: `the params of a ${game} round` };
    refs.push({ $ref: `${COMPONENT}${name}` });
  }
  components.GameParams = {
    description: "a game's params: the schema of the game named by the `gameType` beside them (each game checks its own, INVALID_GAME_PARAMS)",
    anyOf: refs,
  };
}

function parameters(schema: unknown, where: 'query' | 'path', components: Record<string, Json>): unknown[] {
  const js = jsonSchema(schema, 'input', components) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
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
  const components: Record<string, Json> = {};
  jsonSchema(errorAnswer, 'output', components); // `Error`, the envelope every 4xx and 5xx refers to
  gameParams(components);
  for (const r of routes) {
    const s = r.schema;
    if (s.hide) continue;
    const path = r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const responses: Record<string, unknown> = {};
    for (const [status, schema] of Object.entries((s.response as Record<string, unknown> | undefined) ?? {})) {
      const ok = Number(status) < 400;
      responses[status] = { description: ok ? 'OK' : 'Failed', content: { 'application/json': { schema: jsonSchema(schema, 'output', components) } } };
    }
    if (Object.keys(responses).length === 0) responses['200'] = { description: 'OK' };
    responses['4XX'] = errorResponse(
      'Refused: a code of CONTRACT.md §2 (400 validation and rules, 401 credentials, 403 another operator, 404 no such route, 409 in progress, 429 rate limited)',
    );
    if (!responses['503']) responses['5XX'] = errorResponse('The casino failed (502 CASINO_HTTP_*, 504 CASINO_TIMEOUT) or the service is not ready (503)');
    const op: Record<string, unknown> = {
      operationId: s.operationId,
      summary: s.summary,
      ...(s.description ? { description: s.description } : {}),
      tags: s.tags,
      security: r.auth ? SECURITY[r.auth] : [],
      parameters: [...parameters(s.querystring, 'query', components), ...parameters(s.params, 'path', components)],
      responses,
    };
    if (s.body) op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(s.body, 'input', components) } } };
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
        staffSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'gp_admin_session',
          description: 'The admin console session (POST /api/admin/auth/login); httpOnly, SameSite=Strict',
        },
        csrfToken: {
          type: 'apiKey',
          in: 'header',
          name: 'X-CSRF-Token',
          description: 'With a session cookie, every state-changing request carries the token of GET /api/admin/auth/csrf',
        },
        operatorId: { type: 'apiKey', in: 'header', name: 'X-Operator-Id', description: 'Signed operator request (CONTRACT.md §6): the operator profile' },
        operatorTimestamp: { type: 'apiKey', in: 'header', name: 'X-Timestamp', description: 'Unix time in whole seconds' },
        operatorNonce: { type: 'apiKey', in: 'header', name: 'X-Nonce', description: '16 to 128 characters of [A-Za-z0-9_-], new for every request' },
        operatorSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Signature',
          description:
            'lowercase hex HMAC-SHA256(operator secret, METHOD\\nREQUEST_TARGET\\nX-Timestamp\\nX-Nonce\\nRAW_BODY), the request target as sent (query string included)',
        },
      },
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
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

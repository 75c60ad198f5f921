/**
 * GET /openapi.json (CONTRACT.md §8): an OpenAPI 3.1 document generated from the very zod
 * schemas that validate the requests, collected as routes are registered.
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import { z } from 'zod';

export const API_VERSION = '0.1.0';

interface CollectedRoute {
  method: string;
  url: string;
  schema: Record<string, unknown>;
}

function jsonSchema(schema: unknown): Record<string, unknown> {
  if (!(schema instanceof z.ZodType)) return {};
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

function parameters(schema: unknown, where: 'query' | 'path'): unknown[] {
  const js = jsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (js.required ?? []).includes(name),
    schema: s,
  }));
}

export function buildOpenApi(routes: CollectedRoute[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const s = r.schema;
    if (s.hide) continue;
    const ok = (s.response as Record<string, unknown> | undefined)?.['200'];
    const op: Record<string, unknown> = {
      summary: s.summary,
      tags: s.tags,
      parameters: [...parameters(s.querystring, 'query'), ...parameters(s.params, 'path')],
      responses: {
        200: { description: 'OK', content: ok ? { 'application/json': { schema: jsonSchema(ok) } } : undefined },
        default: { description: 'Error (CONTRACT.md §2)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    };
    if (s.body) op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(s.body) } } };
    if (s.security) op.security = s.security;
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Game provider API', version: API_VERSION },
    paths,
    components: {
      securitySchemes: {
        adminToken: { type: 'http', scheme: 'bearer' },
        cronSecret: { type: 'http', scheme: 'bearer' },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['statusCode', 'error', 'code', 'message'],
          properties: {
            statusCode: { type: 'integer' },
            error: { type: 'string' },
            code: { type: 'string' },
            message: { type: 'string' },
            roundId: { type: 'string' },
            roundStatus: { type: 'string' },
            casinoCode: { type: 'string' },
          },
        },
      },
    },
  };
}

/** Collects every route with a schema; must be registered before the routes. */
export function registerOpenApi(app: FastifyInstance): void {
  const routes: CollectedRoute[] = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.schema) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      routes.push({ method, url: route.url, schema: route.schema as Record<string, unknown> });
    }
  });
  let cached: Record<string, unknown> | null = null;
  app.get('/openapi.json', { config: { auth: 'public' } }, async () => (cached ??= buildOpenApi(routes)));
}

/**
 * /openapi.json (CONTRACT.md §8, issue "one home for each rule"): generated from the schemas that
 * validate requests and write answers; every operation has an operationId, its security and its
 * answers with the error envelope on 4xx; Redocly's recommended rules pass with no error.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

let t: TestApp;
let doc: {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { securitySchemes: Record<string, unknown> };
};
beforeAll(async () => {
  t = await createTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
});
afterAll(async () => t?.close());

const operations = () =>
  Object.entries(doc.paths).flatMap(([p, ops]) => Object.entries(ops).map(([method, op]) => ({ id: `${method.toUpperCase()} ${p}`, op })));

describe('the machine-readable interface', () => {
  it('is OpenAPI 3.1, version 0.1.0, with every route but itself and static files', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.0');
    const documented = new Set(operations().map((o) => o.id));
    for (const r of t.app.routeTable) {
      if (r.method === 'HEAD' || r.schema?.hide) continue;
      expect(documented, `${r.method} ${r.url}`).toContain(`${r.method} ${r.url.replace(/:([A-Za-z]+)/g, '{$1}')}`);
    }
  });

  it('gives each operation a unique operationId, its answer schema and the error envelope on 4xx', () => {
    const ids = operations().map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { id, op } of operations()) {
      expect(op.operationId, id).toMatch(/^[a-zA-Z]+$/);
      const responses = op.responses as Record<string, { content?: Record<string, { schema: unknown }> }>;
      const ok = responses['200'] ?? responses['201'];
      expect(ok?.content?.['application/json']?.schema, `${id} answer`).toBeTruthy();
      expect(responses['4XX']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Error' });
    }
  });

  it('states the security of each operation from its route rule', () => {
    const byId = Object.fromEntries(operations().map((o) => [o.id, o.op]));
    expect(byId['GET /api/admin/operators']!.security).toEqual([{ staffSession: [], csrfToken: [] }, { adminToken: [] }]);
    expect(byId['GET /api/cron/wallet-retries']!.security).toEqual([{ cronSecret: [] }]);
    expect(byId['GET /api/reconciliation']!.security).toHaveLength(2);
    expect(byId['POST /api/bets']!.security).toEqual([]);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      'adminToken',
      'cronSecret',
      'csrfToken',
      'operatorId',
      'operatorNonce',
      'operatorSignature',
      'operatorTimestamp',
      'staffSession',
    ]);
  });

  it('passes `redocly lint` (recommended rules) with no error', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'openapi-'));
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    if (process.env.OPENAPI_OUT) writeFileSync(process.env.OPENAPI_OUT, JSON.stringify(doc, null, 2));
    const run = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file, '--format=json'], {
      encoding: 'utf8',
      cwd: dir,
      timeout: 60_000,
    });
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
    };
    const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 90_000);
});

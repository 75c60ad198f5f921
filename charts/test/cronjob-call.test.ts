/**
 * The wallet-retries CronJobs as rendered do what issue 15 asks: each runs its container's command
 * with its environment against an HTTP server standing in for the API Service, which sees
 * GET /api/cron/wallet-retries with the profile's operatorId (decoded exactly) and the bearer
 * CRON_SECRET; a 2xx passes the Job, a non-2xx or a network error fails it, and the secret is
 * never printed. Both clients: the provider image's node cron-call.js and the curl image's script.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IContainer } from 'kubernetes-models/v1';
import { runCronContainer, startStubApi, type StubApi } from './helpers/cron-job.js';
import { byKind, envValue, podTemplates, render, type K8sObject } from './helpers/manifests.js';

const SECRET = 'cron-secret-for-the-chart-test-5b1e';
const tmp = mkdtempSync(path.join(tmpdir(), 'gp-cron-'));
let api: StubApi;

beforeAll(async () => {
  api = await startStubApi();
});
afterAll(async () => {
  await api.close();
  rmSync(tmp, { recursive: true, force: true });
});

const runJob = (c: IContainer, origin = api.origin) => runCronContainer(c, { origin, secret: SECRET, tmpDir: tmp });
const jobContainer = (cj: K8sObject) => podTemplates(cj)[0]!.spec.containers[0]!;

describe.each(['node', 'curl'])('the rendered CronJobs with walletRetries.client=%s', (client) => {
  let cronJobs: K8sObject[];
  beforeAll(async () => {
    cronJobs = byKind(await render({ valuesFiles: ['ci/profiles-values.yaml'], set: [`walletRetries.client=${client}`] }), 'CronJob');
  });

  it('call GET /api/cron/wallet-retries?operatorId=<their profile> with the bearer, print the summary and pass on a 2xx', async () => {
    expect(cronJobs.length).toBeGreaterThan(5);
    for (const cj of cronJobs) {
      const operatorId = cj.metadata.annotations!['game-provider/operator-id']!;
      api.seen.length = 0;
      api.answer = { status: 200, body: JSON.stringify({ scanned: 2, retried: 2, succeeded: 2, stillPending: 0, items: [] }) };
      const r = await runJob(jobContainer(cj));
      expect(r.code, `${operatorId}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toContain('"succeeded":2');
      expect(api.seen).toHaveLength(1);
      const url = new URL(api.seen[0]!.url!, api.origin);
      expect(api.seen[0]!.method).toBe('GET');
      expect(url.pathname).toBe('/api/cron/wallet-retries');
      expect(url.searchParams.get('operatorId')).toBe(operatorId);
      expect(api.seen[0]!.authorization).toBe(`Bearer ${SECRET}`);
      expect(r.stdout + r.stderr).not.toContain(SECRET);
    }
  });

  it.each([
    { status: 401, body: '{"statusCode":401,"code":"UNAUTHORIZED","message":"bad bearer"}' },
    { status: 400, body: '{"statusCode":400,"code":"VALIDATION_ERROR"}' },
    { status: 503, body: '{"statusCode":503,"code":"NOT_READY"}' },
    { status: 302, body: '', headers: { location: 'http://127.0.0.1:1/elsewhere' } },
    { status: 204, body: '' },
  ])('on HTTP $status: the Job fails unless the answer is a 2xx', async (a) => {
    api.answer = a;
    const r = await runJob(jobContainer(cronJobs[0]!));
    if (a.status === 204) expect(r.code, r.stderr).toBe(0);
    else {
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(String(a.status));
    }
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('fail the Job when the API is unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const r = await runJob(jobContainer(cronJobs[0]!), `http://127.0.0.1:${port}`);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('never put the secret in a process argument', () => {
    for (const cj of cronJobs) {
      const c = jobContainer(cj);
      const text = (c.command ?? []).join(' ') + (c.args ?? []).join(' ');
      expect(text).not.toContain('$(CRON_SECRET)');
      if (client === 'curl') {
        // Only the shell builtin printf sees it, and hands it to curl on stdin (-H @-).
        expect(text.match(/CRON_SECRET/g)).toHaveLength(1);
        expect(text).toMatch(/printf 'Authorization: Bearer %s\\n' "\$CRON_SECRET" \| curl [^\n]*-H @-/);
      } else {
        expect(text).not.toContain('CRON_SECRET');
      }
      expect(envValue(c, 'CRON_SECRET')?.valueFrom?.secretKeyRef).toBeDefined();
    }
  });
});

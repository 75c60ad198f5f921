/**
 * The wallet-retries command of the image (OPS-CONTRACT.md: node services/provider/dist/cron-call.js,
 * run by one CronJob per operator-currency profile): it calls CRON_URL with the bearer CRON_SECRET,
 * prints the summary, fails the Job on a non-2xx or a network error, and never prints the secret.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRON_SECRET } from '../helpers/app.js';
import { startWorld, type World } from '../helpers/casino.js';
import { runCli } from '../helpers/cli.js';

let w: World;
let stub: Server;
let stubUrl: string;
let stubAnswer: { status: number; headers?: Record<string, string>; body: string } = { status: 200, body: '{}' };

beforeAll(async () => {
  w = await startWorld([{ operatorId: 'op-cli' }, { operatorId: 'op-other' }], { listen: true });
  // A plain HTTP server for answers the provider never gives (redirects, a secret echoed back).
  stub = createServer((_req, res) => {
    res.writeHead(stubAnswer.status, { 'content-type': 'application/json', ...stubAnswer.headers });
    res.end(stubAnswer.body);
  });
  await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
  stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await w?.close();
  await new Promise((r) => stub?.close(r));
});

const cronUrl = (operatorId: string) => `${w.t.url}/api/cron/wallet-retries?operatorId=${encodeURIComponent(operatorId)}&limit=100`;
const noSecret = (out: string) => expect(out).not.toContain(CRON_SECRET);

describe('cron-call', () => {
  it('retries the pending credits of its profile only, prints the summary and exits 0', async () => {
    const mine = await w.player('cli-a', { operatorId: 'op-cli' });
    const other = await w.player('cli-b', { operatorId: 'op-other' });
    const pending: string[] = [];
    for (const p of [mine, other]) {
      w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503, times: 2 }]);
      const res = await w.bet(p, 'dice', 1, { target: 50, direction: 'over' });
      w.casino.clearFaults();
      expect(res.body.roundStatus, res.text).toBe('credit_pending');
      pending.push(res.body.roundId!);
    }
    const run = await runCli('cron-call', { CRON_URL: cronUrl('op-cli'), CRON_SECRET });
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout) as { succeeded: number; stillPending: number; items: { roundId: string }[] };
    expect(summary.items.map((i) => i.roundId)).toEqual([pending[0]]);
    expect(summary).toMatchObject({ succeeded: 1, stillPending: 0 });
    expect((await w.dbRound(pending[0]!)).status).toBe('settled');
    expect((await w.dbRound(pending[1]!)).status).toBe('credit_pending');
    noSecret(run.stdout + run.stderr);
  });

  it('exits 1 on a 401 (wrong secret) and prints the answer without the secret it sent', async () => {
    const wrong = 'wrong-cron-secret-0123456789';
    const run = await runCli('cron-call', { CRON_URL: cronUrl('op-cli'), CRON_SECRET: wrong });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/HTTP 401.*UNAUTHORIZED/);
    expect(run.stdout + run.stderr).not.toContain(wrong);
  });

  it('exits 1 on a 400 (the route refuses the query)', async () => {
    const run = await runCli('cron-call', { CRON_URL: `${w.t.url}/api/cron/wallet-retries?limit=0`, CRON_SECRET });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/HTTP 400.*VALIDATION_ERROR/);
    noSecret(run.stdout + run.stderr);
  });

  it('exits 1 on a 5xx and on a redirect (not followed), and masks a secret echoed by the server', async () => {
    stubAnswer = { status: 503, body: JSON.stringify({ code: 'NOT_READY', echo: `Bearer ${CRON_SECRET}` }) };
    const failed = await runCli('cron-call', { CRON_URL: `${stubUrl}/api/cron/wallet-retries?operatorId=x`, CRON_SECRET });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/HTTP 503.*\[redacted\]/);
    noSecret(failed.stdout + failed.stderr);

    stubAnswer = { status: 302, headers: { location: `${w.t.url}/api/cron/wallet-retries?operatorId=op-cli` }, body: '' };
    const redirected = await runCli('cron-call', { CRON_URL: `${stubUrl}/api/cron/wallet-retries?operatorId=x`, CRON_SECRET });
    expect(redirected.code).toBe(1);
    expect(redirected.stderr).toMatch(/HTTP 302/);

    stubAnswer = { status: 200, body: JSON.stringify({ scanned: 0, echo: CRON_SECRET }) };
    const echoed = await runCli('cron-call', { CRON_URL: `${stubUrl}/api/cron/wallet-retries?operatorId=x`, CRON_SECRET });
    expect(echoed.code).toBe(0);
    noSecret(echoed.stdout + echoed.stderr);
  });

  it('exits 1 on a network error (nothing listening) and on a timeout', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await runCli('cron-call', { CRON_URL: `http://127.0.0.1:${port}/api/cron/wallet-retries?operatorId=x`, CRON_SECRET });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/failed: .*ECONNREFUSED/);
    noSecret(refused.stdout + refused.stderr);

    // A server that accepts the request and never answers.
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const run = await runCli('cron-call', { CRON_URL: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/x`, CRON_SECRET, CRON_TIMEOUT_MS: '300' });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/no answer within 300 ms/);
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });

  it('exits 2 when CRON_URL or CRON_SECRET is missing or CRON_URL is not http(s)', async () => {
    expect((await runCli('cron-call', { CRON_SECRET })).code).toBe(2);
    expect((await runCli('cron-call', { CRON_URL: cronUrl('op-cli') })).code).toBe(2);
    expect((await runCli('cron-call', { CRON_URL: 'ftp://example/x', CRON_SECRET })).code).toBe(2);
  });
});

/**
 * The embedded default (CONTRACT.md §1): no DATABASE_URL and no REDIS_URL → PGlite in DATA_DIR
 * with the same migrations, in-process replay cache and locks, the demo operator, a bet.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type AppInstance } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';

let app: AppInstance;
const dataDir = mkdtempSync(path.join(tmpdir(), 'gp-embedded-'));

beforeAll(async () => {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ADMIN_TOKEN: 'embedded-admin-token-123' });
  ({ app } = await buildApp(config, { logger: false }));
  await app.ready();
}, 120_000);
afterAll(async () => {
  await app?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('embedded default', () => {
  it('is ready on PGlite with the in-process store', async () => {
    const res = await app.inject({ method: 'GET', url: '/ready?operatorId=demo-usd' });
    expect(res.json()).toEqual({ ready: true, checks: { database: 'ok', redis: 'in-process', operator: 'ok' } });
  });

  it('takes a demo bet end to end', async () => {
    const launch = await app.inject({ method: 'POST', url: '/sandbox/launch', payload: { operatorId: 'demo-usd', playerRef: 'emb', gameType: 'limbo' } });
    const session = await app.inject({
      method: 'POST',
      url: '/api/sessions',
      payload: { operatorId: 'demo-usd', launchToken: launch.json().launchToken, gameType: 'limbo' },
    });
    expect(session.statusCode).toBe(200);
    const bet = await app.inject({
      method: 'POST',
      url: '/api/bets',
      payload: { sessionId: session.json().sessionId, gameType: 'limbo', amount: 1, idempotencyKey: 'e1', params: { target: 2 } },
    });
    expect(bet.statusCode, bet.body).toBe(200);
    expect(bet.json().roundStatus).toBe('settled');
    const replay = await app.inject({
      method: 'POST',
      url: '/api/bets',
      payload: { sessionId: session.json().sessionId, gameType: 'limbo', amount: 1, idempotencyKey: 'e1', params: { target: 2 } },
    });
    expect(replay.json().roundId).toBe(bet.json().roundId);
  });
});

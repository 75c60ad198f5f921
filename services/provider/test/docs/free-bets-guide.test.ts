/**
 * docs/free-bets.md: the signed curl function of the guide, run as written (through bash, curl
 * and openssl) against a listening service, creates a campaign, lists it and cancels it.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, createTestApp, type TestApp } from '../helpers/app.js';

const guide = readFileSync(new URL('../../../../docs/free-bets.md', import.meta.url), 'utf8');
const secret = 'guide-secret-0123456789abcdef';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ listen: true });
  const put = await t.app.inject({
    method: 'PUT',
    url: '/api/admin/operators/guide-usd',
    headers: adminHeaders,
    payload: { currency: 'USD', callbackBaseUrl: 'http://127.0.0.1:9', sharedSecret: secret, minBet: 0.1, stakeStep: 0.01, maxPayout: 1000 },
  });
  expect(put.statusCode, put.body).toBe(201);
});
afterAll(async () => t?.close());

/** The guide's `gp_signed` function, with the guide's GP, OP and SECRET lines replaced. */
function script(): string {
  const block = /```sh\n(GP=[\s\S]*?)```/.exec(guide)?.[1];
  if (!block) throw new Error('docs/free-bets.md has no curl example');
  const fn = /gp_signed\(\) \{[\s\S]*?\n\}/.exec(block)?.[0];
  if (!fn) throw new Error('the curl example has no gp_signed function');
  return `GP='${t.url}'\nOP=guide-usd\nSECRET='${secret}'\n${fn}\n`;
}

/** Runs asynchronously: the service answers from this very process. */
const run = async (lines: string) =>
  JSON.parse((await promisify(execFile)('bash', ['-c', `set -euo pipefail\n${script()}${lines}`], { encoding: 'utf8', timeout: 20_000 })).stdout) as Record<
    string,
    unknown
  >;

describe('docs/free-bets.md', () => {
  it('the signed curl example creates, lists and cancels a campaign', async () => {
    const created = await run(
      `gp_signed POST /api/free-bet-campaigns '{"name":"Welcome","gameType":"dice","amount":1,"params":{"target":50,"direction":"over"},"betsPerPlayer":20,"playerRefs":["player-42","player-43"],"expiresAt":"${new Date(Date.now() + 86_400_000).toISOString()}"}'`,
    );
    expect(created).toMatchObject({ operatorId: 'guide-usd', status: 'active', players: 2, freeBetsGranted: 40 });
    const list = await run(`gp_signed GET '/api/free-bet-campaigns?status=active'`);
    expect((list.campaigns as { campaignId: string }[]).map((c) => c.campaignId)).toContain(created.campaignId);
    expect(await run(`gp_signed POST /api/free-bet-campaigns/${String(created.campaignId)}/cancel`)).toMatchObject({ status: 'cancelled' });
    expect(await run(`gp_signed GET "/api/reconciliation/totals?operatorId=$OP"`)).toEqual({ totals: [] });
  });
});

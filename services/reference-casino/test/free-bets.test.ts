/** Free-bet credits (docs/free-bets.md): accepted without a debit, checked, ledgered with their campaign. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceCasino, signRequest, type ReferenceCasino } from '../src/index.js';

let casino: ReferenceCasino;
const secret = 'secret-fb-0123456789abcdef';
beforeAll(async () => {
  casino = await startReferenceCasino({ operators: { 'op-fb': { secret, currency: 'USD', decimals: 2 } } });
  casino.createPlayer({ playerRef: 'p1', balance: '10.00', currency: 'USD' });
});
afterAll(async () => casino?.close());

let seq = 0;
async function call(path: string, body: Record<string, unknown>, key = `k-${++seq}`) {
  const raw = JSON.stringify({ operatorId: 'op-fb', playerRef: 'p1', launchToken: 'lt', gameType: 'dice', currency: 'USD', ...body });
  const headers = { ...signRequest({ operatorId: 'op-fb', secret, method: 'POST', path, body: raw }), 'x-idempotency-key': key };
  const res = await fetch(`${casino.url}${path}`, { method: 'POST', headers, body: raw });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('free-bet credits at the reference casino', () => {
  it('ledgers a credit with freeBet and campaignId and no debit, once per key', async () => {
    const body = { roundId: 'r-free-1', amount: 1.5, freeBet: true, campaignId: 'c-1' };
    const first = await call('/wallet/credit', body, 'r-free-1:credit');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const again = await call('/wallet/credit', body, 'r-free-1:credit');
    expect(again.body.casinoTransactionId).toBe(first.body.casinoTransactionId);
    const txs = casino.transactions().filter((t) => t.roundId === 'r-free-1');
    expect(txs).toHaveLength(1);
    expect(txs[0]).toMatchObject({ type: 'credit', amount: 150n, freeBet: true, campaignId: 'c-1' });
    expect(casino.balanceOf('p1', 'USD')).toBe(1150n);
  });

  it('refuses malformed free-bet fields and a free-bet credit for a round with a debit', async () => {
    expect((await call('/wallet/credit', { roundId: 'r-x', amount: 1, freeBet: 'yes', campaignId: 'c-1' })).body.code).toBe('VALIDATION_ERROR');
    expect((await call('/wallet/credit', { roundId: 'r-x', amount: 1, freeBet: true })).body.code).toBe('VALIDATION_ERROR');
    const token = casino.issueLaunchToken('p1');
    expect((await call('/wallet/debit', { roundId: 'r-paid', amount: 1, launchToken: token }, 'r-paid:debit')).status).toBe(200);
    const res = await call('/wallet/credit', { roundId: 'r-paid', amount: 2, launchToken: token, freeBet: true, campaignId: 'c-1' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it('once campaigns are registered, refuses an unknown one', async () => {
    casino.addFreeBetCampaign('op-fb', 'c-known');
    expect((await call('/wallet/credit', { roundId: 'r-f2', amount: 1, freeBet: true, campaignId: 'c-known' })).status).toBe(200);
    const res = await call('/wallet/credit', { roundId: 'r-f3', amount: 1, freeBet: true, campaignId: 'c-other' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('FREE_BET_CAMPAIGN_UNKNOWN');
  });
});

/**
 * A casino's admission share (http/tenant-share.ts) is given back when a client goes away before
 * its answer (a closed tab, a load generator stopping): found while measuring the promotions'
 * leaderboard (docs/promotions.md). With a share of 2, two balance requests held by a slow casino
 * are abandoned by their clients; once the casino has answered them, the casino's players are
 * admitted again (before the fix every later request of that casino was 429 RATE_LIMITED).
 */
import { request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type Player, type World } from '../helpers/casino.js';

let w: World;
let base = '';
let p: Player;
beforeAll(async () => {
  w = await startWorld([{ operatorId: 'share-abort' }], { listen: true, env: { PLAYER_MAX_IN_FLIGHT_PER_OPERATOR: '2' } });
  base = w.t.url;
  p = await w.player('share-abort-1', { operatorId: 'share-abort' });
});
afterAll(async () => w?.close());

/** A GET whose client gives up after `ms`. */
function abandoned(url: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const req = httpRequest(url);
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    req.end();
    setTimeout(() => req.destroy(), ms);
  });
}

describe('the admission share of a casino', () => {
  it('is given back when the client goes away before its answer', async () => {
    w.casino.setFaults([{ path: '/wallet/balance', kind: 'delay', ms: 600, times: 2 }]);
    const url = `${base}/api/balance?sessionId=${p.sessionId}`;
    await Promise.all([abandoned(url, 150), abandoned(url, 150)]);
    await sleep(900); // the casino answered both; nobody was there to hear it
    const res = await fetch(url);
    expect(res.status, await res.text()).toBe(200);
  });
});

/**
 * Issue 26 item 1: the in-service wallet retry scheduler (rounds/retry-scheduler.ts) against the
 * reference casino over real HTTP. A win whose credit the casino could not take settles by itself
 * once the casino is back: no cron call, no new session. The backoff lives in the round, the
 * retries reuse the original idempotency key, and two pods sharing the database never send one
 * callback at once. The schedule is shortened (1 s steps) so the test runs in seconds.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startWorld, type Player, type World } from '../helpers/casino.js';

const FAST = {
  WALLET_RETRY_SCHEDULER: 'on',
  WALLET_RETRY_BACKOFF_S: '1,1,2',
  WALLET_RETRY_TICK_MS: '100',
  WALLET_RETRY_PROBE_S: '1',
  WALLET_RETRY_PER_OPERATOR: '5',
};

let w: World;
let second: TestApp;
let pl: Player;
beforeAll(async () => {
  w = await startWorld([{ operatorId: 'sched-a' }, { operatorId: 'sched-off' }], { env: FAST });
  // a second pod on the same database: both schedulers compete for the same rounds
  second = await createTestApp({ env: FAST, databaseUrl: w.t.config.databaseUrl!, redisKeyPrefix: w.t.config.redisKeyPrefix });
  pl = await w.player('sched-p1', { operatorId: 'sched-a' });
});
afterAll(async () => {
  await second?.close();
  await w?.close();
});

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(100);
  }
}

/** Intervals [receivedAt, answered] of one key's requests at the casino must not overlap. */
function overlaps(key: string): string[] {
  const reqs = w
    .requestsOf(key)
    .map((r) => [Date.parse(r.receivedAt), Date.parse(r.time)] as const)
    .sort((a, b) => a[0] - b[0]);
  const found: string[] = [];
  for (let i = 1; i < reqs.length; i++) if (reqs[i]![0] < reqs[i - 1]![1]) found.push(`${key}: ${reqs[i - 1]!.join('-')} and ${reqs[i]!.join('-')}`);
  return found;
}

describe('pending credits settle by themselves', () => {
  it('a win whose credit failed is credited with its original key once the casino is back, with no cron call and no new session', async () => {
    const sessionsBefore = Number((await w.t.services.db('sessions').count<{ n: string }[]>({ n: '*' }))[0]!.n);
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503 }]); // the casino's credits are down
    let won: { roundId: string; payout: number } | null = null;
    const rounds: string[] = [];
    const startBalance = w.balance(pl);
    let staked = 0n;
    let payouts = 0n;
    for (let i = 0; i < 10 && !won; i++) {
      const res = await w.bet(pl, 'dice', 1, { target: 5, direction: 'over' });
      expect(res.status, res.text).toBe(200);
      expect(res.body.roundStatus).toBe('credit_pending');
      staked += 100n;
      rounds.push(res.body.roundId!);
      const bet = res.body.bet as { won: boolean; payout: number };
      payouts += BigInt(Math.round(bet.payout * 100));
      if (bet.won) won = { roundId: res.body.roundId!, payout: bet.payout };
    }
    expect(won, 'a 95% dice bet won within 10 tries').not.toBeNull();
    const key = `${won!.roundId}:credit`;

    // while the casino is down the scheduler keeps trying the same credit, backing off
    await until('three scheduled attempts of the credit', async () => w.requestsOf(key).length >= 1 + 2 + 3);
    const row = await w.t.services.db('rounds').where({ round_id: won!.roundId }).first();
    expect(row.status).toBe('credit_pending');
    expect(row.retry_attempts).toBeGreaterThanOrEqual(2);
    expect(new Date(row.next_retry_at).getTime()).toBeGreaterThan(new Date(row.last_retry_at).getTime());

    w.casino.clearFaults();
    for (const id of rounds) await until(`round ${id} final`, async () => ['settled'].includes((await w.dbRound(id)).status));

    // one credit per round in the ledger, all sent with the round's own key and the same body
    for (const id of rounds) {
      const credits = w.ledger(id).filter((t) => t.type === 'credit');
      expect(credits, id).toHaveLength(1);
      const bodies = new Set(w.requestsOf(`${id}:credit`).map((r) => r.idempotencyKey));
      expect([...bodies]).toEqual([`${id}:credit`]);
    }
    expect(w.balance(pl)).toBe(startBalance - staked + payouts);
    // nothing but the scheduler: the same sessions as before, and no callback sent twice at once by the two pods
    expect(Number((await w.t.services.db('sessions').count<{ n: string }[]>({ n: '*' }))[0]!.n)).toBe(sessionsBefore);
    for (const id of rounds) expect(overlaps(`${id}:credit`)).toEqual([]);
  });

  it('pending rollbacks too', async () => {
    // this pod's circuit may still be open from the outage above (the other pod's retries closed only its own)
    await until('the circuit of this pod closed', async () => !w.t.services.wallet.circuitOpen('sched-a'));
    w.casino.setFaults([
      { path: '/wallet/rollback', kind: 'status', status: 503 },
      { path: '/wallet/debit', kind: 'status', status: 503, times: 2 },
    ]);
    const res = await w.bet(pl, 'dice', 1, { target: 50, direction: 'over' });
    expect(res.body.roundStatus, res.text).toBe('rollback_pending');
    const key = `${res.body.roundId}:debit:rollback`;
    await until('a scheduled rollback attempt', async () => w.requestsOf(key).length >= 3);
    w.casino.clearFaults();
    await until('the rollback confirmed', async () => (await w.dbRound(res.body.roundId!)).status === 'cancelled');
    expect(overlaps(key)).toEqual([]);
  });

  it('a disabled profile is left to the cron route', async () => {
    const off = await w.player('sched-off-p', { operatorId: 'sched-off' });
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503 }]);
    const res = await w.bet(off, 'dice', 1, { target: 50, direction: 'over' });
    expect(res.body.roundStatus, res.text).toBe('credit_pending');
    await w.t.services.db('operators').where({ operator_id: 'sched-off' }).update({ enabled: false });
    await sleep(1500); // the pods' profile caches (1 s) see it
    w.casino.clearFaults();
    const tried = w.requestsOf(`${res.body.roundId}:credit`).length;
    await sleep(2500); // several ticks and backoff steps: the scheduler does not touch it
    expect(w.requestsOf(`${res.body.roundId}:credit`).length).toBe(tried);
    expect((await w.dbRound(res.body.roundId!)).status).toBe('credit_pending');
    const summary = await w.cron('operatorId=sched-off');
    expect(summary.body).toMatchObject({ succeeded: 1 });
  });
});

describe('the cron route stays as the fallback', () => {
  it('refuses an unknown operatorId with 400 WALLET_RETRY_OPERATOR_REQUIRED, so a misconfigured CronJob fails', async () => {
    const res = await w.cron('operatorId=no-such-profile');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('WALLET_RETRY_OPERATOR_REQUIRED');
    expect(res.body.message).toMatch(/no-such-profile/);
    expect((await w.cron('operatorId=sched-a')).status).toBe(200);
  });
});

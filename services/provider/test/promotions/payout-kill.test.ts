/**
 * Issue 30, "Done when": a tournament ends and pays each rank once also when the process is killed
 * mid-payout. A real process (`node dist/server.js`, PROMOTIONS=on) fixes the standings and
 * commits the three awards, sends the first promo credit — which the casino holds for a while —
 * and is killed with SIGKILL while that credit is in flight (the others not sent yet). The casino
 * then applies the held credit. A new process pays what is still pending: the first prize again
 * with the same key (the casino replays it), the others for the first time. Each rank is one
 * transaction at the casino.
 */
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { startReferenceCasino, type ReferenceCasino } from '@gp/reference-casino';
import knexPkg, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestDatabase } from '../helpers/app.js';
import { httpCall, startServerProcess } from '../helpers/server-process.js';
import { secretOf } from '../helpers/casino.js';

const OP = 'op-promo-kill';

let casino: ReferenceCasino;
let database: { url: string; drop(): Promise<void> };
let db: Knex;
const children: ChildProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  db = knexPkg.knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 } });
  casino = await startReferenceCasino({ operators: { [OP]: { secret: secretOf(OP), currency: 'USD', decimals: 2 } } });
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await casino?.close();
  await db?.destroy();
  await database?.drop();
});

const startServer = (env: Record<string, string>) => startServerProcess(database.url, { WEBHOOKS: 'off', ...env }, children);
const call = httpCall;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function until<T>(what: string, f: () => Promise<T | null | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('a tournament payout survives a SIGKILL mid-payout', () => {
  it('pays each rank exactly once after a new process starts', { timeout: 120_000 }, async () => {
    const env = { PROMOTIONS: 'on', PROMOTION_TICK_MS: '100', PROMOTION_GRACE_S: '0' };
    const first = await startServer(env);
    const put = await call(
      first.base,
      'PUT',
      `/api/admin/operators/${OP}`,
      { currency: 'USD', callbackBaseUrl: casino.url, sharedSecret: secretOf(OP), minBet: 0.1, stakeStep: 0.01, maxPayout: 10000, enabledGames: ['dice'] },
      admin,
    );
    expect(put.status, put.text).toBe(201);
    const created = await call(
      first.base,
      'POST',
      '/api/promotions',
      { kind: 'tournament', operatorId: OP, scoring: 'wagered', prizes: [30, 20, 10], endsAt: new Date(Date.now() + 3_600_000).toISOString() },
      admin,
    );
    expect(created.status, created.text).toBe(201);
    const promoId = String(created.body.promoId);

    for (const [i, ref] of ['pk1', 'pk2', 'pk3'].entries()) {
      casino.createPlayer({ playerRef: ref, displayName: `Kill ${ref}`, balance: '100', currency: 'USD' });
      const session = await call(first.base, 'POST', '/api/sessions', {
        operatorId: OP,
        launchToken: casino.issueLaunchToken(ref, { operatorId: OP }),
        gameType: 'dice',
      });
      expect(session.status, session.text).toBe(200);
      const bet = await call(first.base, 'POST', '/api/bets', {
        sessionId: session.body.sessionId,
        gameType: 'dice',
        amount: 3 - i,
        idempotencyKey: `pk-${ref}`,
        params: { target: 50, direction: 'over' },
      });
      expect(bet.status, bet.text).toBe(200);
    }

    // the casino holds the first promo credit; the tournament ends
    casino.setFaults([{ path: '/wallet/credit', kind: 'delay', ms: 1500, times: 1 }]);
    await db('promotions').where({ promo_id: promoId }).update({ ends_at: db.fn.now() });

    // the awards are committed before any credit; one credit is in flight: kill the process now
    const inFlight = await until('a promo credit in flight', async () => {
      const rows: { prize: number; lease_until: Date | null; callback_status: string }[] = await db('promotion_awards').where({ promo_id: promoId });
      return rows.length === 3 && rows.find((r) => r.lease_until !== null && r.callback_status === 'pending');
    });
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    expect(inFlight.prize).toBe(1);
    await sleep(1700); // the casino applies the held credit after its delay; nobody hears its answer
    expect(
      casino
        .transactions()
        .filter((t) => t.idempotencyKey.startsWith(`${promoId}:prize:`))
        .map((t) => t.idempotencyKey),
    ).toEqual([`${promoId}:prize:1`]);
    const pending = await db('promotion_awards').where({ promo_id: promoId, callback_status: 'pending' });
    expect(pending).toHaveLength(3);

    // the dead worker's lease runs out (time passes); a new process pays what is pending
    await db('promotion_awards')
      .where({ promo_id: promoId })
      .update({ lease_until: db.raw("now() - interval '1 second'") });
    const second = await startServer(env);
    await until('every award confirmed', async () => (await db('promotion_awards').where({ promo_id: promoId, callback_status: 'succeeded' })).length === 3);
    await sleep(500); // more passes: nothing is sent again

    const txs = casino.transactions().filter((t) => t.idempotencyKey.startsWith(`${promoId}:prize:`));
    expect(txs.map((t) => [t.idempotencyKey, t.playerRef, t.amount]).sort()).toEqual([
      [`${promoId}:prize:1`, 'pk1', 3000n],
      [`${promoId}:prize:2`, 'pk2', 2000n],
      [`${promoId}:prize:3`, 'pk3', 1000n],
    ]);
    expect(casino.requests().filter((r) => r.idempotencyKey === `${promoId}:prize:1`).length).toBe(2); // sent twice, applied once
    for (const ref of ['pk1', 'pk2', 'pk3']) expect(txs.filter((t) => t.playerRef === ref)).toHaveLength(1);
    second.child.kill('SIGTERM');
  });
});

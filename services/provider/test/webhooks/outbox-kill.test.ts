/**
 * Issue 26 item 2, "Done when": a real process (`node dist/server.js`) commits a round whose credit
 * the casino did not confirm — the outbox row is written in that transaction — and is killed with
 * SIGKILL before its dispatcher delivered anything. A new process delivers the event; the receiver
 * gets that event id exactly once, signed with the operator's secret, and the delivery is logged.
 */
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { startReferenceCasino, type ReferenceCasino } from '@gp/reference-casino';
import knexPkg, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, CRON_SECRET, createTestDatabase } from '../helpers/app.js';
import { httpCall, startServerProcess } from '../helpers/server-process.js';
import { secretOf } from '../helpers/casino.js';
import { startReceiver, type Receiver } from './helpers.js';

const OP = 'op-hook-kill';

let casino: ReferenceCasino;
let receiver: Receiver;
let database: { url: string; drop(): Promise<void> };
let db: Knex;
const children: ChildProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  db = knexPkg.knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 } });
  casino = await startReferenceCasino({ operators: { [OP]: { secret: secretOf(OP), currency: 'USD', decimals: 2 } } });
  receiver = await startReceiver(secretOf(OP));
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await receiver?.close();
  await casino?.close();
  await db?.destroy();
  await database?.drop();
});

const startServer = (env: Record<string, string>) => startServerProcess(database.url, env, children);
const call = httpCall;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe('the outbox survives a SIGKILL between the commit and the delivery', () => {
  it('delivers the event once per event id, signed, after a new process starts', { timeout: 120_000 }, async () => {
    // the first process: its dispatcher's first pass is an hour away
    const first = await startServer({ WEBHOOKS: 'on', WEBHOOK_TICK_MS: '3600000' });
    const put = await call(
      first.base,
      'PUT',
      `/api/admin/operators/${OP}`,
      { currency: 'USD', callbackBaseUrl: casino.url, sharedSecret: secretOf(OP), minBet: 0.1, stakeStep: 0.01, maxPayout: 10000, enabledGames: ['dice'] },
      admin,
    );
    expect(put.status, put.text).toBe(201);
    const hook = await call(
      first.base,
      'PUT',
      `/api/admin/operators/${OP}/webhook`,
      { url: receiver.url, events: ['credit.pending', 'credit.settled'], enabled: true },
      admin,
    );
    expect(hook.status, hook.text).toBe(200);

    casino.createPlayer({ playerRef: 'hk1', displayName: 'Hook', balance: '100', currency: 'USD' });
    const token = casino.issueLaunchToken('hk1', { operatorId: OP });
    const session = await call(first.base, 'POST', '/api/sessions', { operatorId: OP, launchToken: token, gameType: 'dice' });
    expect(session.status, session.text).toBe(200);
    casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503 }]);
    const bet = await call(first.base, 'POST', '/api/bets', {
      sessionId: session.body.sessionId,
      gameType: 'dice',
      amount: 1,
      idempotencyKey: 'hook-kill-1',
      params: { target: 50, direction: 'over' },
    });
    expect(bet.status, bet.text).toBe(200);
    expect(bet.body.roundStatus).toBe('credit_pending');
    const roundId = String(bet.body.roundId);

    // committed with the round: the event waits in the outbox; then the process dies
    const rows = await db('webhook_outbox').where({ operator_id: OP });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ event_type: 'credit.pending', status: 'pending' });
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    expect(receiver.deliveries).toEqual([]);

    // a new process (any pod) delivers it
    const second = await startServer({ WEBHOOKS: 'on', WEBHOOK_TICK_MS: '100' });
    const eventId = String(rows[0].event_id);
    const deadline = Date.now() + 30_000;
    while (!receiver.deliveries.some((d) => d.eventId === eventId) && Date.now() < deadline) await sleep(50);
    // the credit settles now (cron route), which is one more event; wait for it too
    casino.clearFaults();
    const cron = await call(second.base, 'GET', `/api/cron/wallet-retries?operatorId=${OP}`, undefined, { authorization: `Bearer ${CRON_SECRET}` });
    expect(cron.body).toMatchObject({ succeeded: 1 });
    while (receiver.deliveries.filter((d) => d.type === 'credit.settled').length === 0 && Date.now() < deadline) await sleep(50);
    await sleep(500); // a few more dispatcher passes: nothing is sent again

    const pending = receiver.deliveries.filter((d) => d.eventId === eventId);
    expect(pending, 'exactly once per event id').toHaveLength(1);
    expect(pending[0]!.signatureValid).toBe(true);
    expect(pending[0]!.body).toMatchObject({
      eventId,
      type: 'credit.pending',
      operatorId: OP,
      data: { roundId, playerRef: 'hk1', currency: 'USD', roundStatus: 'credit_pending' },
    });
    const settled = receiver.deliveries.filter((d) => d.type === 'credit.settled');
    expect(settled).toHaveLength(1);
    expect(settled[0]!.body).toMatchObject({ data: { roundId, roundStatus: 'settled' } });
    expect(new Set(receiver.deliveries.map((d) => d.eventId)).size).toBe(receiver.deliveries.length);
    const log = await db('webhook_deliveries').where({ event_id: eventId });
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ status_code: 200, attempt: 1 });
    expect((await db('webhook_outbox').where({ event_id: eventId }).first()).status).toBe('delivered');
    second.child.kill('SIGTERM');
  });
});

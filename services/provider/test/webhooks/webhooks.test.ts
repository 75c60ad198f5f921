/**
 * Issue 26 item 2: operators' signed webhooks against a real receiver. The receiver is set per
 * profile in the admin API (URL rules, event types), a test delivery answers at once, events are
 * written with the round's change and delivered at least once with their event id, signed with
 * the operator's secret, retried with backoff past failures, logged, and redelivered on request.
 * A receiver that hangs, fails or answers megabytes does not hold bets up: they are answered while
 * its delivery is still outstanding.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from '../helpers/app.js';
import { secretOf, startWorld, type Player, type World } from '../helpers/casino.js';
import { startReceiver, type Receiver } from './helpers.js';

const OP = 'hook-a';
let w: World;
let rx: Receiver;
let pl: Player;
beforeAll(async () => {
  w = await startWorld([{ operatorId: OP }, { operatorId: 'hook-b' }], {
    env: { WEBHOOKS: 'on', WEBHOOK_TICK_MS: '100', WEBHOOK_TIMEOUT_MS: '8000', WEBHOOK_BACKOFF_S: '1,1,2' },
  });
  rx = await startReceiver(secretOf(OP));
  pl = await w.player('hook-p1', { operatorId: OP });
});
afterAll(async () => {
  await rx?.close();
  await w?.close();
});

const hook = (method: 'GET' | 'PUT' | 'POST', suffix = '', body?: unknown, op = OP) =>
  w.call(method, `/api/admin/operators/${op}/webhook${suffix}`, body, adminHeaders);

async function until<T>(what: string, probe: () => T | null | undefined | false | Promise<T | null | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(50);
  }
}

async function pendingCredit(): Promise<string> {
  w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503, times: 2 }]);
  const res = await w.bet(pl, 'dice', 1, { target: 50, direction: 'over' });
  w.casino.clearFaults();
  expect(res.body.roundStatus, res.text).toBe('credit_pending');
  return res.body.roundId!;
}

describe('the receiver of a profile', () => {
  it('is none at first, and refuses bad URLs and unknown event types', async () => {
    const none = await hook('GET');
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ endpoint: null });
    expect((none.body.events as string[]).sort()).toContain('credit.pending');
    for (const url of ['not a url', 'ftp://example.com/x', 'http://user:pw@example.com/x']) {
      const res = await hook('PUT', '', { url, events: ['credit.pending'] });
      expect(res.status, url).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
    const bad = await hook('PUT', '', { url: rx.url, events: ['credit.pendingx'] });
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    expect((await w.call('PUT', '/api/admin/operators/nope/webhook', { url: rx.url, events: [] }, adminHeaders)).status).toBe(404);
  });

  it('is set with its URL and events, and a test delivery is signed and answered at once', async () => {
    const put = await hook('PUT', '', { url: rx.url, events: ['credit.pending', 'credit.settled', 'rollback.pending', 'rollback.settled', 'round.stuck'] });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ operatorId: OP, url: rx.url, enabled: true });
    const test = await hook('POST', '/test');
    expect(test.status, test.text).toBe(200);
    expect(test.body).toMatchObject({ statusCode: 200, attempt: 1, error: null });
    const got = rx.deliveries.find((d) => d.eventId === test.body.eventId);
    expect(got).toMatchObject({ type: 'webhook.test', signatureValid: true, path: '/hooks/gp?tenant=a' });
    expect(got!.body).toMatchObject({ eventId: test.body.eventId, type: 'webhook.test', operatorId: OP });
  });
});

describe('events and their delivery', () => {
  it('a credit left pending and its settlement are delivered once each, signed, with the amounts as JSON numbers', async () => {
    const roundId = await pendingCredit();
    const pending = await until('credit.pending', () =>
      rx.deliveries.find((d) => d.type === 'credit.pending' && (d.body.data as { roundId: string }).roundId === roundId),
    );
    expect(pending.signatureValid).toBe(true);
    expect(pending.body.data).toMatchObject({ roundId, playerRef: 'hook-p1', currency: 'USD', roundStatus: 'credit_pending', gameType: 'dice' });
    expect(pending.raw).toMatch(/"amount":\d/);
    expect((await w.cron(`operatorId=${OP}`)).body).toMatchObject({ succeeded: 1 });
    const settled = await until('credit.settled', () =>
      rx.deliveries.find((d) => d.type === 'credit.settled' && (d.body.data as { roundId: string }).roundId === roundId),
    );
    expect(settled.body.data).toMatchObject({ roundId, roundStatus: 'settled' });
    // a round that never was pending reports nothing
    const before = rx.deliveries.length;
    expect((await w.bet(pl, 'dice', 1, { target: 50, direction: 'over' })).body.roundStatus).toBe('settled');
    await sleep(500);
    expect(rx.deliveries.length).toBe(before);
  });

  it('a failing receiver gets the same event id again after a backoff, until it answers 2xx; every attempt is logged', async () => {
    rx.mode = 'fail';
    const roundId = await pendingCredit();
    await until('two failed attempts', () => rx.deliveries.filter((d) => (d.body.data as { roundId?: string })?.roundId === roundId).length >= 2);
    rx.mode = 'ok';
    const ok = await until('the event accepted', async () => {
      const events = await hook('GET', '/events?status=delivered');
      return (events.body.events as { eventId: string; data: { roundId: string }; attempts: number }[]).find((e) => e.data.roundId === roundId);
    });
    const seen = rx.deliveries.filter((d) => d.eventId === ok.eventId);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(new Set(seen.map((d) => d.eventId)).size).toBe(1);
    const log = await hook('GET', `/deliveries?eventId=${ok.eventId}`);
    const attempts = log.body.deliveries as { statusCode: number; attempt: number }[];
    expect(attempts.length).toBe(seen.length);
    expect(attempts[0]).toMatchObject({ statusCode: 200 });
    expect(attempts.slice(1).every((a) => a.statusCode === 500)).toBe(true);

    // redelivery: the same event id once more
    const again = await hook('POST', `/events/${ok.eventId}/redeliver`);
    expect(again.status, again.text).toBe(200);
    await until('the redelivery', () => rx.deliveries.filter((d) => d.eventId === ok.eventId).length === seen.length + 1);
  });

  it('a receiver that hangs or answers megabytes does not hold bets up', async () => {
    rx.mode = 'hang';
    await pendingCredit();
    await until('a delivery held by the receiver', () => rx.held >= 1);
    const held = await w.t.services.db('webhook_outbox').where({ operator_id: OP, status: 'pending' }).whereNotNull('lease_until');
    expect(held.length).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 5; i++) {
      const res = await w.bet(pl, 'dice', 1, { target: 50, direction: 'over' });
      expect(res.status, res.text).toBe(200);
    }
    // still outstanding after those bets: the bets did not wait for it
    expect(
      (
        await w.t.services.db('webhook_deliveries').whereIn(
          'event_id',
          held.map((h: { event_id: string }) => h.event_id),
        )
      ).length,
    ).toBe(0);
    rx.mode = 'huge';
    await pendingCredit();
    await until(
      'a huge answer taken as delivered',
      async () => (await w.t.services.db('webhook_deliveries').where({ operator_id: OP, status_code: 200 })).length > 3,
    );
  });
});

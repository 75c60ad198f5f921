/**
 * Webhook events of promotions (docs/integration.md §11, migration 20261128170000): a tournament's
 * end (`promo.ended`, with its awards' count and sum), a prize credit the casino did not confirm
 * at first (`promo.credit_pending`) and its confirmation later (`promo.credit_settled`) — each
 * delivered once, signed, with the amounts in the currency's decimals.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from '../helpers/app.js';
import { operatorSigned, rawJson, secretOf, startWorld, type World } from '../helpers/casino.js';
import { startReceiver, type Delivery, type Receiver } from '../webhooks/helpers.js';

const OP = 'pw-a';
let w: World;
let rx: Receiver;
beforeAll(async () => {
  w = await startWorld([{ operatorId: OP }], { env: { WEBHOOKS: 'on', WEBHOOK_TICK_MS: '100', WEBHOOK_BACKOFF_S: '1,1,2' } });
  w.t.services.config.promotions.graceSeconds = 0;
  w.t.services.config.promotions.leaderboardCacheMs = 0;
  rx = await startReceiver(secretOf(OP));
  const put = await w.call(
    'PUT',
    `/api/admin/operators/${OP}/webhook`,
    { url: rx.url, events: ['promo.ended', 'promo.credit_pending', 'promo.credit_settled'] },
    adminHeaders,
  );
  expect(put.status, put.text).toBe(200);
});
afterAll(async () => {
  await rx?.close();
  await w?.close();
});

async function until(what: string, probe: () => Delivery | undefined, ms = 20_000): Promise<Delivery> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(50);
  }
}

describe('webhook events of promotions', () => {
  it('a tournament that ends, a prize credit left pending and its confirmation: one signed event each', async () => {
    const url = '/api/promotions';
    const body = rawJson({
      kind: 'tournament',
      name: 'Hook race',
      scoring: 'wagered',
      games: ['dice'],
      prizes: [7.5, 2],
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const made = await w.call('POST', url, body, operatorSigned(OP, 'POST', url, { body }));
    expect(made.status, made.text).toBe(201);
    const promoId = made.body.promoId as string;
    const p = await w.player('pw-p1', { operatorId: OP });
    expect((await w.bet(p, 'dice', 2, { target: 50, direction: 'over' })).status).toBe(200);
    await w.t.services.db('promotions').where({ promo_id: promoId }).update({ ends_at: w.t.services.db.fn.now() });

    w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503, times: 2 }]);
    const first = await w.t.services.promotions.tick();
    expect(first.paid).toEqual([expect.objectContaining({ prize: 1, outcome: 'pending' })]);
    w.casino.clearFaults();

    const ended = await until('promo.ended', () => rx.deliveries.find((d) => d.type === 'promo.ended'));
    expect(ended.signatureValid).toBe(true);
    expect(ended.body.data).toMatchObject({ promoId, kind: 'tournament', name: 'Hook race', currency: 'USD', prizes: 2, awards: 1, awarded: 7.5 });
    expect(ended.raw).toMatch(/"awarded":7\.5[,}]/);

    const pending = await until('promo.credit_pending', () => rx.deliveries.find((d) => d.type === 'promo.credit_pending'));
    expect(pending.body.data).toMatchObject({
      promoId,
      prize: 1,
      playerRef: 'pw-p1',
      currency: 'USD',
      amount: 7.5,
      idempotencyKey: `${promoId}:prize:1`,
      status: 'credit_pending',
      statusCode: 503,
    });

    await w.t.services.db('promotion_awards').where({ promo_id: promoId }).update({ next_retry_at: w.t.services.db.fn.now() });
    expect((await w.t.services.promotions.tick()).paid).toEqual([expect.objectContaining({ prize: 1, outcome: 'succeeded' })]);
    const settled = await until('promo.credit_settled', () => rx.deliveries.find((d) => d.type === 'promo.credit_settled'));
    expect(settled.body.data).toMatchObject({ promoId, prize: 1, amount: 7.5, status: 'credited' });

    await sleep(500);
    for (const type of ['promo.ended', 'promo.credit_pending', 'promo.credit_settled'])
      expect(
        rx.deliveries.filter((d) => d.type === type),
        type,
      ).toHaveLength(1);
  });
});

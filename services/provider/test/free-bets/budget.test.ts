/**
 * Issue 26: a free-bet campaign's budget (docs/free-bets.md "The budget"). The budget counts the
 * stake value granted; players it cannot fund are refused with nothing granted, concurrent
 * additions never take the campaign past it (the database CHECK and the counting UPDATE), and the
 * profile's webhook receiver gets `freebet.budget_exhausted` once, signed, when what is left
 * cannot fund one more player.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from '../helpers/app.js';
import { operatorSigned, rawJson, secretOf, startWorld, type Answer, type World } from '../helpers/casino.js';
import { startReceiver, type Receiver } from '../webhooks/helpers.js';

const OP = 'fbb-a';
let w: World;
let rx: Receiver;
beforeAll(async () => {
  w = await startWorld([{ operatorId: OP }], { env: { WEBHOOKS: 'on', WEBHOOK_TICK_MS: '100', WEBHOOK_BACKOFF_S: '1,1,2' } });
  rx = await startReceiver(secretOf(OP));
  const put = await w.call('PUT', `/api/admin/operators/${OP}/webhook`, { url: rx.url, events: ['freebet.budget_exhausted'] }, adminHeaders);
  expect(put.status, put.text).toBe(200);
});
afterAll(async () => {
  await rx?.close();
  await w?.close();
});

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
function signed(method: 'GET' | 'POST', url: string, body?: unknown): Promise<Answer> {
  const raw = body === undefined ? undefined : rawJson(body);
  return w.call(method, url, raw, operatorSigned(OP, method, url, { body: raw ?? '' }));
}
const create = (body: Record<string, unknown>) => signed('POST', '/api/free-bet-campaigns', { gameType: 'dice', amount: 1, expiresAt: inAnHour(), ...body });
const addPlayers = (campaignId: string, playerRefs: string[]) => signed('POST', `/api/free-bet-campaigns/${campaignId}/players`, { playerRefs });

async function until<T>(what: string, probe: () => T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(50);
  }
}

describe('a free-bet campaign with a budget', () => {
  it('refuses a budget below one player’s free bets', async () => {
    const res = await create({ betsPerPlayer: 3, budget: 2.5 });
    expect(res.status, res.text).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    // more players named at creation than the budget funds: refused as a whole, no campaign made
    const over = await create({ name: 'Too many', betsPerPlayer: 2, budget: 5, playerRefs: ['v-1', 'v-2', 'v-3'] });
    expect(over.status, over.text).toBe(400);
    expect(over.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(over.body.message).toMatch(/funds 2 player/);
    expect(await w.t.services.db('free_bet_campaigns').where({ name: 'Too many' })).toEqual([]);
  });

  it('grants while the budget funds the players, refuses the rest with nothing granted, and tells the receiver once', async () => {
    const made = await create({ name: 'Budgeted', betsPerPlayer: 2, budget: 5, playerRefs: ['b-1'] });
    expect(made.status, made.text).toBe(201);
    const id = made.body.campaignId as string;
    expect(made.body).toMatchObject({ budget: 5, budgetUsed: 2, budgetLeft: 3, freeBetsGranted: 2, players: 1 });

    const tooMany = await addPlayers(id, ['b-2', 'b-3']);
    expect(tooMany.status, tooMany.text).toBe(400);
    expect(tooMany.body.code).toBe('ACTION_NOT_AVAILABLE');
    expect(tooMany.body.message).toMatch(/budget.*1 more player/);
    const after = await signed('GET', `/api/free-bet-campaigns/${id}`);
    expect(after.body).toMatchObject({ players: 1, freeBetsGranted: 2, budgetLeft: 3 });
    expect((after.body.grants as { playerRef: string }[]).map((g) => g.playerRef)).toEqual(['b-1']);
    expect(rx.deliveries.filter((d) => d.type === 'freebet.budget_exhausted')).toEqual([]);

    const one = await addPlayers(id, ['b-2', 'b-1']); // b-1 is in already: only b-2 counts
    expect(one.status, one.text).toBe(200);
    expect(one.body).toMatchObject({ added: 1, players: 2, freeBetsGranted: 4, budgetUsed: 4, budgetLeft: 1 });

    const event = await until('freebet.budget_exhausted', () => rx.deliveries.find((d) => d.type === 'freebet.budget_exhausted'));
    expect(event.signatureValid).toBe(true);
    expect(event.body.data).toEqual({
      campaignId: id,
      name: 'Budgeted',
      gameType: 'dice',
      currency: 'USD',
      budget: 5,
      freeBetsGranted: 4,
      grantedValue: 4,
      remaining: 1,
    });
    expect(event.raw).toMatch(/"budget":5[,}]/);

    expect((await addPlayers(id, ['b-3'])).body.code).toBe('ACTION_NOT_AVAILABLE');
    await sleep(600);
    expect(rx.deliveries.filter((d) => d.type === 'freebet.budget_exhausted')).toHaveLength(1);
  });

  it('concurrent additions never take the campaign past its budget', async () => {
    const made = await create({ betsPerPlayer: 1, budget: 10 });
    expect(made.status, made.text).toBe(201);
    const id = made.body.campaignId as string;
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => addPlayers(id, [`c-${i}`])));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    expect(answers.filter((a) => a.status !== 200).every((a) => a.body.code === 'ACTION_NOT_AVAILABLE')).toBe(true);
    const detail = await signed('GET', `/api/free-bet-campaigns/${id}`);
    expect(detail.body).toMatchObject({ players: 10, freeBetsGranted: 10, budgetUsed: 10, budgetLeft: 0 });
    await until('the second campaign’s event', () =>
      rx.deliveries.find((d) => d.type === 'freebet.budget_exhausted' && (d.body.data as { campaignId: string }).campaignId === id),
    );
  });

  it('a campaign without a budget has no limit and says so', async () => {
    const made = await create({ betsPerPlayer: 1, playerRefs: ['n-1'] });
    expect(made.body).toMatchObject({ budget: null, budgetLeft: null, budgetUsed: 1 });
  });
});

describe('webhook retention', () => {
  it('removes delivered and failed events past WEBHOOK_RETENTION_DAYS with their log, never pending ones', async () => {
    const db = w.t.services.db;
    const old = "now() - interval '31 days'";
    const ids = (
      await db.raw(
        `INSERT INTO webhook_outbox (operator_id, event_type, payload, status, delivered_at, created_at) VALUES
         (?, 'webhook.test', '{}', 'delivered', now(), ${old}),
         (?, 'webhook.test', '{}', 'failed', NULL, ${old}),
         (?, 'webhook.test', '{}', 'pending', NULL, ${old}),
         (?, 'webhook.test', '{}', 'delivered', now(), now() - interval '29 days')
       RETURNING event_id`,
        [OP, OP, OP, OP],
      )
    ).rows.map((r: { event_id: string }) => r.event_id) as string[];
    // the pending one is due in a year, so this test's dispatcher leaves it alone
    await db('webhook_outbox')
      .where({ event_id: ids[2] })
      .update({ next_attempt_at: db.raw("now() + interval '1 year'") });
    await db('webhook_deliveries').insert({ event_id: ids[0], operator_id: OP, attempt: 1, url: rx.url, status_code: 200, duration_ms: 1 });
    const { purgeOldEvents } = await import('../../src/webhooks/webhook-store.js');
    expect(await purgeOldEvents(db, 30)).toBe(2);
    const left = (await db('webhook_outbox').whereIn('event_id', ids).select('event_id')).map((r: { event_id: string }) => r.event_id);
    expect(left.sort()).toEqual([ids[2], ids[3]].sort());
    expect(await db('webhook_deliveries').where({ event_id: ids[0] })).toEqual([]);
  });
});

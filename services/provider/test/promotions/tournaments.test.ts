/**
 * Tournaments (issue 30, docs/promotions.md) against the reference casino over HTTP: a tournament
 * made through the signed operator API scores only settled paid rounds (a free bet and a
 * rolled-back round never count, a stake under the minimum neither), ties break by who reached
 * the score first, the leaderboard and the game page's panel show masked names, another casino is
 * refused, and at the end each prize rank is paid once as a promo credit (no debit, `promo: true`,
 * key `<promoId>:prize:<rank>`), also when the casino fails the first attempt; a cancelled
 * tournament pays nothing. Creation and cancellation are in the config audit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from '../helpers/app.js';
import { newKey, operatorSigned, rawJson, startWorld, type Answer, type World } from '../helpers/casino.js';

let w: World;
beforeAll(async () => {
  w = await startWorld([{ operatorId: 'tn-a' }, { operatorId: 'tn-b' }], { config: {} });
  w.t.services.config.promotions.graceSeconds = 0;
  w.t.services.config.promotions.leaderboardCacheMs = 0;
});
afterAll(async () => w?.close());

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

function signed(operatorId: string, method: 'GET' | 'POST', url: string, body?: unknown): Promise<Answer> {
  const raw = body === undefined ? undefined : rawJson(body);
  return w.call(method, url, raw, operatorSigned(operatorId, method, url, { body: raw ?? '' }));
}

async function tournament(operatorId: string, body: Record<string, unknown>) {
  const res = await signed(operatorId, 'POST', '/api/promotions', { kind: 'tournament', scoring: 'wagered', prizes: [10, 5, 2], endsAt: inAnHour(), ...body });
  expect(res.status, res.text).toBe(201);
  return res.body as Record<string, unknown> & { promoId: string };
}

/** The clock passes the tournament's end (its rounds were all made before). */
const endNow = (promoId: string) => w.t.services.db('promotions').where({ promo_id: promoId }).update({ ends_at: w.t.services.db.fn.now() });

const dice = { target: 50, direction: 'over' };

describe('tournaments', () => {
  it('tells the game page when to ask again: 60 s with nothing running, until a start coming soon, 4 s while one runs or has just ended', async () => {
    const p = await w.player('tn-poller', { operatorId: 'tn-b' });
    const hint = async () => {
      const res = await w.call('GET', `/api/sessions/${p.sessionId}/promotions`);
      expect(res.status, res.text).toBe(200);
      return res.body.nextPollSeconds as number;
    };
    expect(await hint()).toBe(60);
    const later = await tournament('tn-b', { startsAt: new Date(Date.now() + 600_000).toISOString() });
    expect(later.status).toBe('scheduled');
    expect(await hint()).toBe(60); // starts in 10 minutes: nothing to see before
    const soon = await tournament('tn-b', { startsAt: new Date(Date.now() + 20_000).toISOString() });
    const untilStart = await hint();
    expect(untilStart).toBeGreaterThanOrEqual(4);
    expect(untilStart).toBeLessThanOrEqual(20); // asks again when it starts
    await w.t.services.db('promotions').where({ promo_id: soon.promoId }).update({ starts_at: w.t.services.db.fn.now() });
    expect(await hint()).toBe(4); // running
    await endNow(soon.promoId);
    expect(await hint()).toBe(4); // ended, prizes not fixed yet: the win notice follows
    await w.t.services.promotions.tick();
    expect(await hint()).toBe(60); // final
    expect((await signed('tn-b', 'POST', `/api/promotions/${later.promoId}/cancel`)).status).toBe(200);
    expect(await hint()).toBe(60);
  });

  it('scores settled paid rounds only, breaks ties by who got there first, and pays each rank once at the end', async () => {
    const t = await tournament('tn-a', { name: 'Weekend race', games: ['dice', 'limbo'], minBet: 1 });
    expect(t).toMatchObject({ kind: 'tournament', scoring: 'wagered', status: 'active', currency: 'USD', prizes: [10, 5, 2], prizePool: 17, allPlayers: true });

    const a = await w.player('tn-alice', { operatorId: 'tn-a' });
    const b = await w.player('tn-bob', { operatorId: 'tn-a' });
    const c = await w.player('tn-carol', { operatorId: 'tn-a' });
    const e = await w.player('tn-eve', { operatorId: 'tn-a' });
    expect((await w.bet(a, 'dice', 1, dice)).status).toBe(200); // alice reaches 1 first
    expect((await w.bet(b, 'dice', 1, dice)).status).toBe(200); // bob reaches 1 after her
    expect((await w.bet(c, 'limbo', 3, { target: 2 })).status).toBe(200);
    expect((await w.bet(e, 'dice', 0.5, dice)).status).toBe(200); // under the minimum: never counts
    // a rolled-back round never counts (dice's window is refused after the debit, which is rolled back)
    const rolledBack = await w.bet(b, 'dice', 5, { target: 99, direction: 'over' });
    expect(rolledBack.body).toMatchObject({ code: 'INVALID_GAME_PARAMS', roundStatus: 'cancelled' });
    // a free bet never counts
    const campaign = await signed('tn-a', 'POST', '/api/free-bet-campaigns', {
      gameType: 'dice',
      amount: 5,
      betsPerPlayer: 1,
      playerRefs: [c.playerRef],
      params: dice,
      expiresAt: inAnHour(),
    });
    expect(campaign.status, campaign.text).toBe(201);
    const free = await w.call('POST', '/api/bets', {
      sessionId: c.sessionId,
      gameType: 'dice',
      amount: 5,
      idempotencyKey: newKey('free'),
      params: dice,
      freeBetCampaignId: campaign.body.campaignId,
    });
    expect(free.status, free.text).toBe(200);

    const board = await signed('tn-a', 'GET', `/api/promotions/${t.promoId}/leaderboard`);
    expect(board.status, board.text).toBe(200);
    expect(board.body.entries).toEqual([
      expect.objectContaining({ rank: 1, playerRef: 'tn-carol', name: 'P***l', score: 3, rounds: 1, prize: 10 }),
      expect.objectContaining({ rank: 2, playerRef: 'tn-alice', name: 'P***e', score: 1, prize: 5 }),
      expect.objectContaining({ rank: 3, playerRef: 'tn-bob', name: 'P***b', score: 1, prize: 2 }),
    ]);

    // the game page's panel: the top with masked names only, the player's own rank
    const panel = await w.call('GET', `/api/sessions/${a.sessionId}/promotions`);
    expect(panel.status, panel.text).toBe(200);
    const mine = (panel.body.tournaments as Record<string, unknown>[]).find((x) => x.promoId === t.promoId)!;
    expect(mine.you).toMatchObject({ rank: 2, score: 1, prize: 5 });
    expect(JSON.stringify(mine.top)).not.toContain('tn-');

    // the end: standings fixed, each prize rank credited once
    await endNow(t.promoId);
    const pass = await w.t.services.promotions.tick();
    expect(pass.paid.map((p) => p.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    await w.t.services.promotions.tick(); // again: nothing more
    const credits = w.casino.transactions().filter((x) => (x as { promoId?: string }).promoId === t.promoId);
    expect(credits.map((x) => [x.playerRef, x.type, x.amount, x.idempotencyKey])).toEqual([
      ['tn-carol', 'credit', 1000n, `${t.promoId}:prize:1`],
      ['tn-alice', 'credit', 500n, `${t.promoId}:prize:2`],
      ['tn-bob', 'credit', 200n, `${t.promoId}:prize:3`],
    ]);
    expect(w.requestsOf(`${t.promoId}:prize:1`)).toHaveLength(1);
    expect(credits[0]).toMatchObject({ promo: true, promoId: t.promoId, promoType: 'tournament', prize: 1, roundId: '' });
    // what was sent: the credit's money fields and the promotion, no launch token, no round (the recorded body)
    const recorded = await w.t.services.db('promotion_awards').where({ promo_id: t.promoId, prize: 1 }).first();
    expect(JSON.parse(w.t.services.box.open(recorded.request_body_enc))).toEqual({
      operatorId: 'tn-a',
      playerRef: 'tn-carol',
      amount: 10,
      currency: 'USD',
      promo: true,
      promoId: t.promoId,
      promoType: 'tournament',
      prize: 1,
    });

    const awards = await signed('tn-a', 'GET', `/api/promotions/${t.promoId}/awards`);
    expect(awards.body.awards).toEqual([
      expect.objectContaining({ prize: 1, playerRef: 'tn-carol', amount: 10, status: 'credited', score: '3' }),
      expect.objectContaining({ prize: 2, playerRef: 'tn-alice', status: 'credited' }),
      expect.objectContaining({ prize: 3, playerRef: 'tn-bob', status: 'credited' }),
    ]);
    expect((await signed('tn-a', 'POST', `/api/promotions/${t.promoId}/cancel`)).body.code).toBe('ACTION_NOT_AVAILABLE');

    // reconciliation: promo rows on request, a promo block in the totals, the GGR report apart from the games
    const rows = await signed('tn-a', 'GET', '/api/reconciliation?promo=true&limit=10');
    expect(rows.status, rows.text).toBe(200);
    expect(rows.body.rows).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'credit',
          roundId: null,
          gameType: null,
          playerRef: 'tn-carol',
          amount: 10,
          promo: true,
          promoId: t.promoId,
          prize: 1,
          idempotencyKey: `${t.promoId}:prize:1`,
          status: 'succeeded',
        }),
      ]),
    );
    const paidRows = await signed('tn-a', 'GET', '/api/reconciliation?limit=500');
    expect((paidRows.body.rows as { idempotencyKey: string }[]).some((r) => r.idempotencyKey.includes(':prize:'))).toBe(false);
    const totals = await signed('tn-a', 'GET', '/api/reconciliation/totals');
    const usd = (totals.body.totals as { currency: string; promo: { credits: { count: number; amount: number } } }[]).find((x) => x.currency === 'USD')!;
    expect(usd.promo.credits).toEqual({ count: 3, amount: 17 });
    const ggr = await signed('tn-a', 'GET', '/api/reports/ggr');
    expect(ggr.status, ggr.text).toBe(200);
    expect(ggr.body.promoPayouts).toEqual([expect.objectContaining({ operatorId: 'tn-a', currency: 'USD', awards: 3, payouts: 17 })]);
  });

  it('a casino that fails the first promo credit gets it again with the same key and bytes, and is paid once', async () => {
    const t = await tournament('tn-a', { scoring: 'biggestWin', games: ['limbo'], prizes: [7] });
    const p = await w.player('tn-frank', { operatorId: 'tn-a' });
    expect((await w.bet(p, 'limbo', 1, { target: 1.01 })).status).toBe(200);
    await endNow(t.promoId);
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503, times: 2 }]);
    const first = await w.t.services.promotions.tick();
    expect(first.paid).toEqual([expect.objectContaining({ prize: 1, outcome: 'pending' })]);
    expect((await signed('tn-a', 'GET', `/api/promotions/${t.promoId}/awards`)).body.awards).toEqual([
      expect.objectContaining({ status: 'credit_pending', statusCode: 503 }),
    ]);
    await w.t.services.db('promotion_awards').where({ promo_id: t.promoId }).update({ next_retry_at: w.t.services.db.fn.now() });
    const second = await w.t.services.promotions.tick();
    expect(second.paid).toEqual([expect.objectContaining({ prize: 1, outcome: 'succeeded' })]);
    const sent = w.requestsOf(`${t.promoId}:prize:1`);
    expect(sent.map((r) => r.status)).toEqual([503, 503, 200]); // the attempt and its one retry, then the scheduled retry
    expect(w.casino.transactions().filter((x) => x.idempotencyKey === `${t.promoId}:prize:1`)).toHaveLength(1);
  });

  it('the cron fallback route retries the pending promo credits of its operator (no promotions pass, no scheduler)', async () => {
    // PROMOTIONS is off under NODE_ENV=test and no scheduler runs: only the cron route sends it again
    expect(w.t.services.config.promotions.enabled).toBe(false);
    const t = await tournament('tn-a', { scoring: 'biggestWin', games: ['limbo'], prizes: [4] });
    const p = await w.player('tn-gina', { operatorId: 'tn-a' });
    expect((await w.bet(p, 'limbo', 1, { target: 1.01 })).status).toBe(200);
    await endNow(t.promoId);
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503 }]);
    expect((await w.t.services.promotions.tick()).paid).toEqual([expect.objectContaining({ prize: 1, outcome: 'pending' })]);
    w.casino.clearFaults();
    const key = `${t.promoId}:prize:1`;
    expect((await w.t.services.db('promotion_awards').where({ promo_id: t.promoId }).first()).next_retry_at.getTime()).toBeGreaterThan(Date.now()); // its backoff: the cron route does not wait for it
    // another operator's pass does not touch it
    const other = await w.cron('operatorId=tn-b');
    expect(other.status, other.text).toBe(200);
    expect(other.body.promoCredits).toBeUndefined();
    // its own operator's pass pays it, once
    const run = await w.cron('operatorId=tn-a');
    expect(run.status, run.text).toBe(200);
    expect(run.body.promoCredits).toEqual({
      retried: 1,
      succeeded: 1,
      stillPending: 0,
      items: [{ promoId: t.promoId, prize: 1, idempotencyKey: key, outcome: 'succeeded' }],
    });
    expect((await w.cron('operatorId=tn-a')).body.promoCredits).toBeUndefined(); // nothing left
    expect(w.casino.transactions().filter((x) => x.idempotencyKey === key)).toHaveLength(1);
    expect((await signed('tn-a', 'GET', `/api/promotions/${t.promoId}/awards`)).body.awards).toEqual([expect.objectContaining({ status: 'credited' })]);
    // /metrics: the awards per operator by credit state, from the database (none pending now)
    const metrics = (await w.t.services.metrics.render()).body;
    const credited = await w.t.services.db('promotion_awards').where({ operator_id: 'tn-a', callback_status: 'succeeded' }).count({ n: '*' }).first();
    expect(metrics).toContain(`gp_promo_credits{operator="tn-a",state="credited"} ${Number(credited!.n)}`);
    expect(metrics).toContain('gp_promo_credits{operator="tn-a",state="pending"} 0');
  });

  it('a cancelled tournament pays nothing; cancelling is audited', async () => {
    const t = await tournament('tn-a', { prizes: [3] });
    const p = await w.player('tn-gina', { operatorId: 'tn-a' });
    expect((await w.bet(p, 'dice', 1, dice)).status).toBe(200);
    const cancelled = await signed('tn-a', 'POST', `/api/promotions/${t.promoId}/cancel`);
    expect(cancelled.body.status).toBe('cancelled');
    await endNow(t.promoId);
    await w.t.services.promotions.tick();
    expect(await w.t.services.db('promotion_awards').where({ promo_id: t.promoId })).toEqual([]);
    const audit = await w.t.services.db('config_audit').where({ target_id: t.promoId }).orderBy('id');
    expect(audit.map((r: { action: string; actor_kind: string }) => [r.action, r.actor_kind])).toEqual([
      ['promotion.created', 'operator'],
      ['promotion.cancelled', 'operator'],
    ]);
  });

  it('another casino is refused; bad input is a 4xx with its code', async () => {
    const t = await tournament('tn-a', {});
    expect((await signed('tn-b', 'GET', `/api/promotions/${t.promoId}`)).body.code).toBe('FORBIDDEN');
    expect((await signed('tn-b', 'GET', `/api/promotions/${t.promoId}/leaderboard`)).body.code).toBe('FORBIDDEN');
    expect((await signed('tn-b', 'GET', `/api/promotions/${t.promoId}/awards`)).body.code).toBe('FORBIDDEN');
    expect((await signed('tn-b', 'POST', `/api/promotions/${t.promoId}/cancel`)).body.code).toBe('FORBIDDEN');
    expect(
      (await signed('tn-b', 'POST', '/api/promotions', { kind: 'tournament', operatorId: 'tn-a', scoring: 'wagered', prizes: [1], endsAt: inAnHour() })).body
        .code,
    ).toBe('FORBIDDEN');
    const listB = await signed('tn-b', 'GET', '/api/promotions');
    expect((listB.body.promotions as { promoId: string }[]).map((x) => x.promoId)).not.toContain(t.promoId);
    expect((await w.call('GET', `/api/promotions/${t.promoId}`)).body.code).toBe('UNAUTHORIZED');
    expect((await w.call('GET', `/api/promotions/${t.promoId}`, undefined, adminHeaders)).status).toBe(200);
    expect((await signed('tn-a', 'GET', '/api/promotions/nope')).body.code).toBe('NOT_FOUND');

    const bad = async (body: Record<string, unknown>) =>
      (await signed('tn-a', 'POST', '/api/promotions', { kind: 'tournament', scoring: 'wagered', prizes: [1], endsAt: inAnHour(), ...body })).body.code;
    expect(await bad({ scoring: undefined })).toBe('VALIDATION_ERROR');
    expect(await bad({ scoring: 'luck' })).toBe('VALIDATION_ERROR');
    expect(await bad({ prizes: [] })).toBe('VALIDATION_ERROR');
    expect(await bad({ prizes: [0.001] })).toBe('VALIDATION_ERROR');
    expect(await bad({ prizes: Array.from({ length: 101 }, () => 1) })).toBe('VALIDATION_ERROR');
    expect(await bad({ endsAt: new Date(Date.now() - 1000).toISOString() })).toBe('VALIDATION_ERROR');
    expect(await bad({ kind: 'prize_drop', scoring: undefined })).toBe('VALIDATION_ERROR');
    expect(await bad({ prizes: ['1'] })).toBe('VALIDATION_ERROR');
    await w.call(
      'PUT',
      '/api/admin/operators/tn-b',
      {
        currency: 'USD',
        callbackBaseUrl: w.casino.url,
        sharedSecret: 'secret-of-tn-b-0123456789abcdef',
        minBet: 0.1,
        stakeStep: 0.01,
        maxPayout: 10000,
        enabledGames: ['dice'],
      },
      adminHeaders,
    );
    expect(
      (await signed('tn-b', 'POST', '/api/promotions', { kind: 'tournament', scoring: 'wagered', games: ['mines'], prizes: [1], endsAt: inAnHour() })).body
        .code,
    ).toBe('GAME_DISABLED');
  });
});

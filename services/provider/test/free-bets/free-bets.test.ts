/**
 * Free-bet campaigns (issue 17, docs/free-bets.md) against the reference casino over HTTP: a
 * campaign made through the signed operator API gives a player N free bets that settle with
 * credits only (checked at the casino's ledger and request log), cannot be overspent under
 * concurrency, end with their expiry or cancellation, refuse the wrong game and players not in
 * the campaign, survive a credit fault (the retry job), and show apart in reconciliation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders } from '../helpers/app.js';
import { newKey, operatorSigned, rawJson, startWorld, type Answer, type Player, type World } from '../helpers/casino.js';

let w: World;
beforeAll(async () => {
  w = await startWorld([{ operatorId: 'fb-a' }, { operatorId: 'fb-b' }]);
});
afterAll(async () => w?.close());

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

/** A request the casino of `operatorId` signs with its operator secret (CONTRACT.md §6). */
function signed(operatorId: string, method: 'GET' | 'POST', url: string, body?: unknown): Promise<Answer> {
  const raw = body === undefined ? undefined : rawJson(body);
  return w.call(method, url, raw, operatorSigned(operatorId, method, url, { body: raw ?? '' }));
}

async function campaign(operatorId: string, body: Record<string, unknown>): Promise<Record<string, unknown> & { campaignId: string }> {
  const res = await signed(operatorId, 'POST', '/api/free-bet-campaigns', { gameType: 'dice', amount: 1, betsPerPlayer: 2, expiresAt: inAnHour(), ...body });
  expect(res.status, res.text).toBe(201);
  return res.body as Record<string, unknown> & { campaignId: string };
}

const diceParams = { target: 50, direction: 'over' };
function freeBet(
  p: Player,
  campaignId: string,
  opts: { gameType?: string; amount?: number; params?: Record<string, unknown>; key?: string } = {},
): Promise<Answer> {
  return w.call('POST', '/api/bets', {
    sessionId: p.sessionId,
    gameType: opts.gameType ?? 'dice',
    amount: opts.amount ?? 1,
    idempotencyKey: opts.key ?? newKey('free'),
    params: opts.params ?? diceParams,
    freeBetCampaignId: campaignId,
  });
}

async function freeBetsLeft(p: Player): Promise<{ campaignId: string; remaining: number; used: number; granted: number }[]> {
  const res = await w.call('GET', `/api/sessions/${p.sessionId}/free-bets`);
  expect(res.status, res.text).toBe(200);
  return res.body.freeBets as { campaignId: string; remaining: number; used: number; granted: number }[];
}

/** What the casino saw of a round: no debit ever for a free bet, in its ledger and its request log. */
function expectNoDebit(roundId: string): void {
  expect(w.ledger(roundId).filter((t) => t.type === 'debit')).toEqual([]);
  expect(w.requestsOf(`${roundId}:debit`)).toEqual([]);
}

describe('the campaign API', () => {
  it('a signed casino creates, lists, reads, extends and cancels its own campaigns; another casino cannot', async () => {
    const c = await campaign('fb-a', { name: 'Welcome', playerRefs: ['api-p1', 'api-p2'] });
    expect(c).toMatchObject({
      operatorId: 'fb-a',
      gameType: 'dice',
      amount: 1,
      currency: 'USD',
      betsPerPlayer: 2,
      status: 'active',
      players: 2,
      freeBetsGranted: 4,
      freeBetsUsed: 0,
    });

    const list = await signed('fb-a', 'GET', '/api/free-bet-campaigns?status=active');
    expect(list.status, list.text).toBe(200);
    expect((list.body.campaigns as { campaignId: string }[]).map((x) => x.campaignId)).toContain(c.campaignId);
    const otherList = await signed('fb-b', 'GET', '/api/free-bet-campaigns');
    expect((otherList.body.campaigns as { campaignId: string }[]).map((x) => x.campaignId)).not.toContain(c.campaignId);

    expect((await signed('fb-b', 'GET', `/api/free-bet-campaigns/${c.campaignId}`)).body.code).toBe('FORBIDDEN');
    expect((await signed('fb-b', 'POST', `/api/free-bet-campaigns/${c.campaignId}/cancel`)).body.code).toBe('FORBIDDEN');
    expect(
      (await signed('fb-b', 'POST', '/api/free-bet-campaigns', { operatorId: 'fb-a', gameType: 'dice', amount: 1, betsPerPlayer: 1, expiresAt: inAnHour() }))
        .body.code,
    ).toBe('FORBIDDEN');

    const added = await signed('fb-a', 'POST', `/api/free-bet-campaigns/${c.campaignId}/players`, { playerRefs: ['api-p2', 'api-p3'] });
    expect(added.status, added.text).toBe(200);
    expect(added.body).toMatchObject({ added: 1, players: 3, freeBetsGranted: 6 });

    const detail = await signed('fb-a', 'GET', `/api/free-bet-campaigns/${c.campaignId}`);
    expect(detail.body.grants).toEqual([
      { playerRef: 'api-p1', granted: 2, used: 0, remaining: 2 },
      { playerRef: 'api-p2', granted: 2, used: 0, remaining: 2 },
      { playerRef: 'api-p3', granted: 2, used: 0, remaining: 2 },
    ]);

    const cancelled = await signed('fb-a', 'POST', `/api/free-bet-campaigns/${c.campaignId}/cancel`);
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
    expect((await signed('fb-a', 'POST', `/api/free-bet-campaigns/${c.campaignId}/cancel`)).body.status).toBe('cancelled');
    expect((await signed('fb-a', 'POST', `/api/free-bet-campaigns/${c.campaignId}/players`, { playerRefs: ['api-p4'] })).body.code).toBe(
      'ACTION_NOT_AVAILABLE',
    );
  });

  it('the admin API manages any operator’s campaigns with the admin token, and refuses signatures and anonymous callers', async () => {
    const body = { operatorId: 'fb-b', gameType: 'limbo', amount: 0.5, params: { target: 2 }, betsPerPlayer: 1, expiresAt: inAnHour() };
    const created = await w.call('POST', '/api/admin/free-bet-campaigns', body, adminHeaders);
    expect(created.status, created.text).toBe(201);
    const id = String(created.body.campaignId);
    expect((await w.call('GET', '/api/admin/free-bet-campaigns?operatorId=fb-b', undefined, adminHeaders)).body.campaigns).toEqual(
      expect.arrayContaining([expect.objectContaining({ campaignId: id })]),
    );
    expect((await w.call('GET', `/api/admin/free-bet-campaigns/${id}`)).status).toBe(401);
    expect((await w.call('POST', '/api/admin/free-bet-campaigns', body)).body.code).toBe('UNAUTHORIZED');
    expect((await signed('fb-b', 'GET', '/api/admin/free-bet-campaigns')).body.code).toBe('UNAUTHORIZED');
    expect((await w.call('POST', '/api/free-bet-campaigns', body)).body.code).toBe('UNAUTHORIZED');
  });

  it('refuses a campaign the profile cannot pay: bad game, amount off the limits, params past maxPayout, expiry before start', async () => {
    const bad = async (body: Record<string, unknown>) =>
      (await signed('fb-a', 'POST', '/api/free-bet-campaigns', { gameType: 'dice', amount: 1, betsPerPlayer: 1, expiresAt: inAnHour(), ...body })).body.code;
    expect(await bad({ gameType: 'blackjack' })).toBe('VALIDATION_ERROR');
    expect(await bad({ amount: 0.001 })).toBe('VALIDATION_ERROR');
    expect(await bad({ amount: 0.05 })).toBe('BET_OUT_OF_RANGE');
    expect(await bad({ gameType: 'limbo', params: { target: 1_000_000 } })).toBe('MAX_PAYOUT_EXCEEDED');
    expect(await bad({ startsAt: inAnHour(), expiresAt: new Date(Date.now() + 60_000).toISOString() })).toBe('VALIDATION_ERROR');
    expect(await bad({ betsPerPlayer: 0 })).toBe('VALIDATION_ERROR');
  });

  it('the database refuses a used count past the granted one', async () => {
    const c = await campaign('fb-a', { playerRefs: ['db-p1'] });
    await expect(w.t.services.db('free_bet_grants').where({ campaign_id: c.campaignId }).update({ used: 3 })).rejects.toThrow(/free_bet_grants_used_check/);
  });
});

describe('free bets on POST /api/bets', () => {
  it('uses the campaign amount, sends no debit, settles with one credit carrying freeBet and campaignId; a retry replays', async () => {
    const p = await w.player('fb-dice-1', { operatorId: 'fb-a', balance: '0' });
    const c = await campaign('fb-a', { playerRefs: [p.playerRef], params: diceParams });
    expect(await freeBetsLeft(p)).toEqual([expect.objectContaining({ campaignId: c.campaignId, granted: 2, used: 0, remaining: 2 })]);

    const key = newKey('free');
    const sample = async (name: string) => {
      const body = (await w.t.services.metrics.render()).body;
      const line = body.split('\n').find((l) => l.startsWith(`${name}{game="dice",currency="USD"} `));
      return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
    };
    const before = {
      free: await sample('gp_free_bets_total'),
      freePaid: await sample('gp_free_bet_payout_minor_units_total'),
      paid: await sample('gp_bets_total'),
      stakes: await sample('gp_bet_stake_minor_units_total'),
    };
    const res = await freeBet(p, c.campaignId, { key });
    expect(res.status, res.text).toBe(200);
    // /metrics counts it as a free bet, apart from paid bets and their stakes
    expect(await sample('gp_free_bets_total')).toBe(before.free + 1);
    expect(await sample('gp_free_bet_payout_minor_units_total')).toBe(before.freePaid + Math.round((res.body.bet as { payout: number }).payout * 100));
    expect(await sample('gp_bets_total')).toBe(before.paid);
    expect(await sample('gp_bet_stake_minor_units_total')).toBe(before.stakes);
    expect(res.body.roundStatus).toBe('settled');
    const bet = res.body.bet as { amount: number; payout: number; freeBetCampaignId: string };
    expect(bet.freeBetCampaignId).toBe(c.campaignId);
    expect(bet.amount).toBe(1);
    expect((res.body.casinoTransactions as { debit: string | null }).debit).toBeNull();

    const roundId = res.body.roundId!;
    expectNoDebit(roundId);
    const credits = w.ledger(roundId).filter((t) => t.type === 'credit');
    expect(credits).toHaveLength(1);
    expect(credits[0]).toMatchObject({ freeBet: true, campaignId: c.campaignId, amount: BigInt(Math.round(bet.payout * 100)) });
    // the player's balance moved by the payout only (it started at 0)
    expect(w.balance(p)).toBe(BigInt(Math.round(bet.payout * 100)));

    const replay = await freeBet(p, c.campaignId, { key });
    expect(replay.body).toEqual(res.body);
    expect(w.ledger(roundId)).toHaveLength(1);
    expect(await freeBetsLeft(p)).toEqual([expect.objectContaining({ remaining: 1, used: 1 })]);

    // the stored round and its audit show the campaign and the flagged credit
    const stored = await w.round(roundId);
    expect((stored.body.bet as { freeBetCampaignId: string }).freeBetCampaignId).toBe(c.campaignId);
    const audit = stored.body.casinoCallbackAudit as { path: string; requestBody: Record<string, unknown> }[];
    expect(audit.map((a) => a.path)).toEqual(['/wallet/credit']);
    expect(audit[0]!.requestBody).toMatchObject({ freeBet: true, campaignId: c.campaignId, roundId, amount: bet.payout });

    // a second free bet, then none left
    expect((await freeBet(p, c.campaignId)).status).toBe(200);
    const none = await freeBet(p, c.campaignId);
    expect(none.status).toBe(400);
    expect(none.body.code).toBe('ACTION_NOT_AVAILABLE');
    expect(await freeBetsLeft(p)).toEqual([expect.objectContaining({ remaining: 0, used: 2 })]);
  });

  it('the same key with another campaign or other params is IDEMPOTENCY_CONFLICT', async () => {
    const p = await w.player('fb-idem', { operatorId: 'fb-a' });
    const c = await campaign('fb-a', { playerRefs: [p.playerRef] });
    const key = newKey('free');
    expect((await freeBet(p, c.campaignId, { key })).status).toBe(200);
    expect((await freeBet(p, c.campaignId, { key, params: { target: 40, direction: 'over' } })).body.code).toBe('IDEMPOTENCY_CONFLICT');
    expect((await w.bet(p, 'dice', 1, diceParams, key)).body.code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('the last free bet, asked for from two sessions at once: exactly one wins', async () => {
    for (let i = 0; i < 5; i++) {
      const p = await w.player(`fb-race-${i}`, { operatorId: 'fb-a' });
      const q = await w.newSession(p);
      const c = await campaign('fb-a', { playerRefs: [p.playerRef], betsPerPlayer: 1 });
      const answers = await Promise.all([freeBet(p, c.campaignId), freeBet(q, c.campaignId), freeBet(p, c.campaignId)]);
      const won = answers.filter((a) => a.status === 200);
      expect(won, answers.map((a) => a.text).join('\n')).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 200)) expect(a.body.code).toBe('ACTION_NOT_AVAILABLE');
      const grant = await w.t.services.db('free_bet_grants').where({ campaign_id: c.campaignId }).first();
      expect(grant).toMatchObject({ granted: 1, used: 1 });
      expect(await w.t.services.db('rounds').where({ free_bet_campaign_id: c.campaignId }).count<{ n: string }[]>({ n: '*' })).toEqual([{ n: '1' }]);
    }
  });

  it('a campaign not started yet, or past its expiry, gives no free bet', async () => {
    const p = await w.player('fb-time', { operatorId: 'fb-a' });
    const later = await campaign('fb-a', { playerRefs: [p.playerRef], startsAt: inAnHour(), expiresAt: new Date(Date.now() + 7_200_000).toISOString() });
    expect(later.status).toBe('scheduled');
    expect((await freeBet(p, later.campaignId)).body).toMatchObject({ code: 'ACTION_NOT_AVAILABLE', message: 'the campaign is scheduled' });

    const c = await campaign('fb-a', { playerRefs: [p.playerRef] });
    expect((await freeBet(p, c.campaignId)).status).toBe(200);
    // the campaign's expiry passes (moved into the past in the database rather than waiting for it)
    await w.t.services
      .db('free_bet_campaigns')
      .where({ campaign_id: c.campaignId })
      .update({ starts_at: w.t.services.db.raw("now() - interval '2 hours'"), expires_at: w.t.services.db.raw("now() - interval '1 second'") });
    const res = await freeBet(p, c.campaignId);
    expect(res.body).toMatchObject({ code: 'ACTION_NOT_AVAILABLE', message: 'the campaign is ended' });
    expect((await freeBetsLeft(p)).map((f) => f.campaignId)).not.toContain(c.campaignId);
    expect((await signed('fb-a', 'GET', `/api/free-bet-campaigns/${c.campaignId}`)).body.status).toBe('ended');
    expect((await signed('fb-a', 'POST', `/api/free-bet-campaigns/${c.campaignId}/cancel`)).body.code).toBe('ACTION_NOT_AVAILABLE');
  });

  it('the wrong game or amount is VALIDATION_ERROR; a player not in the campaign, or another operator’s campaign, ACTION_NOT_AVAILABLE', async () => {
    const p = await w.player('fb-wrong', { operatorId: 'fb-a' });
    const outsider = await w.player('fb-outsider', { operatorId: 'fb-a' });
    const other = await w.player('fb-other-op', { operatorId: 'fb-b' });
    const c = await campaign('fb-a', { playerRefs: [p.playerRef, other.playerRef] });
    expect((await freeBet(p, c.campaignId, { gameType: 'limbo', params: { target: 2 } })).body.code).toBe('VALIDATION_ERROR');
    expect((await freeBet(p, c.campaignId, { amount: 2 })).body.code).toBe('VALIDATION_ERROR');
    expect((await freeBet(outsider, c.campaignId)).body).toMatchObject({
      code: 'ACTION_NOT_AVAILABLE',
      message: 'this player has no free bets in this campaign',
    });
    expect((await freeBet(other, c.campaignId)).body.code).toBe('ACTION_NOT_AVAILABLE');
    expect((await freeBet(p, 'no-such-campaign')).body.code).toBe('ACTION_NOT_AVAILABLE');
    expect(await freeBetsLeft(p)).toEqual([expect.objectContaining({ remaining: 2 })]);
  });

  it('a settlement that fails (dice window) uses no free bet and moves nothing', async () => {
    const p = await w.player('fb-window', { operatorId: 'fb-a' });
    const c = await campaign('fb-a', { playerRefs: [p.playerRef] });
    const before = w.casino.transactions().length;
    const res = await freeBet(p, c.campaignId, { params: { target: 99, direction: 'over' } });
    expect(res.body.code).toBe('INVALID_GAME_PARAMS');
    expect(w.casino.transactions().length).toBe(before);
    expect(await freeBetsLeft(p)).toEqual([expect.objectContaining({ remaining: 2, used: 0 })]);
  });

  it('a credit the casino does not confirm leaves the free bet credit_pending; the retry job sends the same flagged credit', async () => {
    const p = await w.player('fb-fault', { operatorId: 'fb-a', balance: '0' });
    const c = await campaign('fb-a', { playerRefs: [p.playerRef], gameType: 'limbo', params: { target: 1.01 } });
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503, times: 2 }]);
    const res = await freeBet(p, c.campaignId, { gameType: 'limbo', params: { target: 1.01 } });
    w.casino.clearFaults();
    expect(res.status, res.text).toBe(200);
    expect(res.body.roundStatus).toBe('credit_pending');
    const roundId = res.body.roundId!;
    expect(w.ledger(roundId)).toEqual([]);

    const cron = await w.cron('operatorId=fb-a&limit=100');
    expect(cron.status, cron.text).toBe(200);
    expect(cron.body.items).toEqual(expect.arrayContaining([{ roundId, operation: 'credit', outcome: 'succeeded' }]));
    expect((await w.dbRound(roundId)).status).toBe('settled');
    expectNoDebit(roundId);
    const credits = w.ledger(roundId);
    expect(credits).toHaveLength(1);
    expect(credits[0]).toMatchObject({ type: 'credit', freeBet: true, campaignId: c.campaignId });
    expect(w.requestsOf(`${roundId}:credit`).length).toBe(3);
    expect(await freeBetsLeft(p)).toEqual([expect.objectContaining({ remaining: 1 })]);
  });
});

describe('free Mines rounds', () => {
  it('start without a debit, continue after the campaign is cancelled, close with one flagged credit; the cancelled campaign gives no more', async () => {
    const p = await w.player('fb-mines', { operatorId: 'fb-a', gameType: 'mines', launchMode: 'single' });
    const c = await campaign('fb-a', { gameType: 'mines', amount: 1, params: { mineCount: 3 }, betsPerPlayer: 3, playerRefs: [p.playerRef] });
    const start = await w.call('POST', '/api/mines/rounds', {
      sessionId: p.sessionId,
      amount: 1,
      idempotencyKey: newKey('ms'),
      freeBetCampaignId: c.campaignId,
    });
    expect(start.status, start.text).toBe(200);
    expect(start.body.roundStatus).toBe('active');
    const roundId = start.body.roundId!;
    expect((start.body.bet as { freeBetCampaignId: string }).freeBetCampaignId).toBe(c.campaignId);
    expectNoDebit(roundId);
    // a second free start while the round is open uses nothing
    const second = await w.call('POST', '/api/mines/rounds', {
      sessionId: p.sessionId,
      amount: 1,
      idempotencyKey: newKey('ms'),
      freeBetCampaignId: c.campaignId,
    });
    expect(second.body).toMatchObject({ code: 'ACTIVE_ROUND_EXISTS', roundId });
    expect(await freeBetsLeft(p)).toEqual([expect.objectContaining({ remaining: 2, used: 1 })]);

    expect((await signed('fb-a', 'POST', `/api/free-bet-campaigns/${c.campaignId}/cancel`)).body.status).toBe('cancelled');
    expect(await freeBetsLeft(p)).toEqual([]);
    const refused = await w.call('POST', '/api/mines/rounds', {
      sessionId: p.sessionId,
      amount: 1,
      idempotencyKey: newKey('ms'),
      freeBetCampaignId: c.campaignId,
    });
    expect(refused.body.code).toBe('ACTION_NOT_AVAILABLE');

    // the round already open plays on: reveal a safe tile (read from the hidden state), cash out
    const row = await w.t.services.db('rounds').where({ round_id: roundId }).first();
    const mines: number[] = row.state.mines;
    const safe = [...Array(25).keys()].find((t) => !mines.includes(t))!;
    const rev = await w.call('POST', `/api/mines/rounds/${roundId}/reveal`, { sessionId: p.sessionId, tile: safe, idempotencyKey: newKey('mr') });
    expect(rev.status, rev.text).toBe(200);
    const out = await w.call('POST', `/api/mines/rounds/${roundId}/cashout`, { sessionId: p.sessionId, idempotencyKey: newKey('mc') });
    expect(out.status, out.text).toBe(200);
    expect(out.body.roundStatus).toBe('cashed_out');
    expectNoDebit(roundId);
    const credits = w.ledger(roundId);
    expect(credits).toHaveLength(1);
    expect(credits[0]).toMatchObject({ type: 'credit', freeBet: true, campaignId: c.campaignId });
    expect(Number(credits[0]!.amount)).toBe(Math.round(Number((out.body.bet as { payout: number }).payout) * 100));
  });
});

describe('reconciliation', () => {
  it('rows flag free-bet callbacks with their campaign, and the totals keep free-bet payouts apart from paid ones', async () => {
    const a = await startWorld([{ operatorId: 'fb-rec' }]);
    try {
      const p = await a.player('rec-1', { operatorId: 'fb-rec' });
      const raw = rawJson({ gameType: 'limbo', amount: 1, params: { target: 1.01 }, betsPerPlayer: 3, playerRefs: [p.playerRef], expiresAt: inAnHour() });
      const created = await a.call('POST', '/api/free-bet-campaigns', raw, operatorSigned('fb-rec', 'POST', '/api/free-bet-campaigns', { body: raw }));
      expect(created.status, created.text).toBe(201);
      const campaignId = String(created.body.campaignId);
      const free: { payout: number }[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await a.call('POST', '/api/bets', {
          sessionId: p.sessionId,
          gameType: 'limbo',
          amount: 1,
          params: { target: 1.01 },
          idempotencyKey: newKey('rf'),
          freeBetCampaignId: campaignId,
        });
        expect(r.status, r.text).toBe(200);
        free.push(r.body.bet as { payout: number });
      }
      const paid: { payout: number }[] = [];
      for (let i = 0; i < 2; i++) {
        const r = await a.bet(p, 'limbo', 2, { target: 1.01 });
        expect(r.status, r.text).toBe(200);
        paid.push(r.body.bet as { payout: number });
      }
      const cents = (xs: { payout: number }[]) => xs.reduce((s, x) => s + Math.round(x.payout * 100), 0);

      const rows = await a.call('GET', '/api/reconciliation?operatorId=fb-rec', undefined, adminHeaders);
      const all = rows.body.rows as { type: string; freeBet?: boolean; campaignId?: string }[];
      expect(all.filter((r) => r.freeBet)).toHaveLength(3);
      expect(all.filter((r) => r.freeBet).every((r) => r.type === 'credit' && r.campaignId === campaignId)).toBe(true);
      expect(
        all
          .filter((r) => !r.freeBet)
          .map((r) => r.type)
          .sort(),
      ).toEqual(['credit', 'credit', 'debit', 'debit']);
      const onlyFree = await a.call('GET', '/api/reconciliation?operatorId=fb-rec&freeBet=true', undefined, adminHeaders);
      expect((onlyFree.body.rows as unknown[]).length).toBe(3);

      const target = '/api/reconciliation/totals?operatorId=fb-rec';
      const totals = await a.call('GET', target, undefined, operatorSigned('fb-rec', 'GET', target));
      expect(totals.status, totals.text).toBe(200);
      const t = (totals.body.totals as Record<string, unknown>[])[0] as {
        paid: Record<string, { count: number; amount: number }>;
        freeBet: Record<string, { count: number; amount: number }>;
      };
      expect(t.freeBet.debits).toEqual({ count: 0, amount: 0 });
      expect(t.freeBet.credits).toEqual({ count: 3, amount: cents(free) / 100 });
      expect(t.paid.debits).toEqual({ count: 2, amount: 4 });
      expect(t.paid.credits).toEqual({ count: 2, amount: cents(paid) / 100 });
      // the casino's ledger agrees: what it paid out for the campaign, and that it never debited for it
      const ledger = a.casino.transactions().filter((x) => x.playerRef === p.playerRef);
      expect(ledger.filter((x) => x.freeBet).reduce((s, x) => s + Number(x.amount), 0)).toBe(cents(free));
      expect(ledger.filter((x) => x.type === 'debit')).toHaveLength(2);

      const detail = await a.call('GET', `/api/admin/free-bet-campaigns/${campaignId}`, undefined, adminHeaders);
      expect(detail.body).toMatchObject({ rounds: 3, roundsOpen: 0, paidOut: cents(free) / 100, freeBetsUsed: 3 });
      const forbidden = '/api/reconciliation/totals?operatorId=fb-a';
      expect((await a.call('GET', forbidden, undefined, operatorSigned('fb-rec', 'GET', forbidden))).body.code).toBe('FORBIDDEN');
    } finally {
      await a.close();
    }
  });
});

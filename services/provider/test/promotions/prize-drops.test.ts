/**
 * Prize drops (issue 30, docs/promotions.md "Verifying a prize drop") against the reference casino:
 * the seed's hash is published at the start, qualifying bets (paid, settled, of the drop's games and
 * minimum; never a free bet or a rolled-back round) are drawn under prize-drop-v1, each prize is
 * one promo credit, the player's panel shows the win, and once the drop is over its seed is
 * revealed and every award is recomputed from the public proof by game-core's verifier (the code
 * the browser runs) and, independently, with node:crypto. A cancelled drop awards nothing more.
 */
import { createHash, createHmac } from 'node:crypto';
import { verifyPrizeDrop } from '@gp/game-core/fairness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, operatorSigned, rawJson, startWorld, type Answer, type World } from '../helpers/casino.js';

let w: World;
beforeAll(async () => {
  w = await startWorld([{ operatorId: 'pd-a' }]);
  w.t.services.config.promotions.graceSeconds = 0;
});
afterAll(async () => w?.close());

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
const sha256 = (t: string) => createHash('sha256').update(t).digest('hex');
const dice = { target: 50, direction: 'over' };

function signed(method: 'GET' | 'POST', url: string, body?: unknown): Promise<Answer> {
  const raw = body === undefined ? undefined : rawJson(body);
  return w.call(method, url, raw, operatorSigned('pd-a', method, url, { body: raw ?? '' }));
}

interface Proof {
  serverSeed: string | null;
  serverSeedHash: string;
  oneIn: number;
  prizes: number[];
  entries: { seq: number; ticket: string }[];
  awards: { prize: number; seq: number; ticket: string; amount: number }[];
}

describe('prize drops', () => {
  it('draws qualifying bets under the committed seed, pays each prize once, and anyone recomputes the awards once the seed is revealed', async () => {
    const created = await signed('POST', '/api/promotions', {
      kind: 'prize_drop',
      name: 'Drop & win',
      games: ['dice'],
      minBet: 0.5,
      prizes: [5, 3, 1],
      oneIn: 2,
      endsAt: inAnHour(),
    });
    expect(created.status, created.text).toBe(201);
    const drop = created.body as { promoId: string; serverSeedHash: string };
    expect(created.body).toMatchObject({ kind: 'prize_drop', oneIn: 2, rule: 'prize-drop-v1', serverSeedRevealed: false });
    expect(drop.serverSeedHash).toMatch(/^[0-9a-f]{64}$/);

    const p1 = await w.player('pd-1', { operatorId: 'pd-a' });
    const p2 = await w.player('pd-2', { operatorId: 'pd-a' });
    const qualifying: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await w.bet(i % 2 ? p1 : p2, 'dice', 1, dice);
      expect(res.status, res.text).toBe(200);
      qualifying.push(String(res.body.roundId));
    }
    // never drawn: a stake under the minimum, another game, a rolled-back round, a free bet
    const small = await w.bet(p1, 'dice', 0.2, dice);
    const limbo = await w.bet(p1, 'limbo', 1, { target: 2 });
    const rolledBack = await w.bet(p2, 'dice', 1, { target: 99, direction: 'over' });
    expect(rolledBack.body.roundStatus).toBe('cancelled');
    const campaign = await signed('POST', '/api/free-bet-campaigns', {
      gameType: 'dice',
      amount: 1,
      betsPerPlayer: 1,
      playerRefs: [p2.playerRef],
      params: dice,
      expiresAt: inAnHour(),
    });
    const free = await w.call('POST', '/api/bets', {
      sessionId: p2.sessionId,
      gameType: 'dice',
      amount: 1,
      idempotencyKey: newKey('free'),
      params: dice,
      freeBetCampaignId: campaign.body.campaignId,
    });
    expect(free.status, free.text).toBe(200);
    const never = [small, limbo, rolledBack, free].map((r) => sha256(String(r.body.roundId)));

    await w.t.services.promotions.tick();
    const running = (await w.call('GET', `/api/promotions/${drop.promoId}/proof`)).body as unknown as Proof;
    expect(running.serverSeed).toBeNull(); // not before the drop is over
    expect(running.serverSeedHash).toBe(drop.serverSeedHash);
    expect(running.entries.map((e) => e.ticket).sort()).toEqual(qualifying.map(sha256).sort());
    for (const t of never) expect(running.entries.map((e) => e.ticket)).not.toContain(t);

    // the won-drop notice: the winner's panel lists the prize
    const awards = (await signed('GET', `/api/promotions/${drop.promoId}/awards`)).body.awards as {
      prize: number;
      playerRef: string;
      roundId: string;
      amount: number;
      status: string;
      idempotencyKey: string;
    }[];
    if (awards.length > 0) {
      const first = awards[0]!;
      const session = first.playerRef === p1.playerRef ? p1 : p2;
      const panel = await w.call('GET', `/api/sessions/${session.sessionId}/promotions`);
      expect(panel.body.wins).toEqual(
        expect.arrayContaining([expect.objectContaining({ promoId: drop.promoId, prize: 0, amount: 5, roundId: first.roundId })]),
      );
      expect(panel.body.drops).toEqual([
        expect.objectContaining({ promoId: drop.promoId, prizesLeft: 3 - awards.length, serverSeedHash: drop.serverSeedHash }),
      ]);
    }

    // the drop ends: the last draw, then the seed is revealed
    await w.t.services.db('promotions').where({ promo_id: drop.promoId }).update({ ends_at: w.t.services.db.fn.now() });
    await w.t.services.promotions.tick();
    await w.t.services.promotions.tick();
    const proof = (await w.call('GET', `/api/promotions/${drop.promoId}/proof`)).body as unknown as Proof;
    expect(proof.serverSeed).toMatch(/^[0-9a-f]{64}$/);
    expect(sha256(proof.serverSeed!)).toBe(drop.serverSeedHash);

    // recomputed by the verifier the browser runs …
    const verified = verifyPrizeDrop({
      serverSeed: proof.serverSeed!,
      serverSeedHash: proof.serverSeedHash,
      oneIn: proof.oneIn,
      prizeCount: proof.prizes.length,
      entries: proof.entries,
      awards: proof.awards,
    });
    expect(verified).toMatchObject({ ok: true, problems: [] });
    // … and independently from the public rule with node:crypto
    const expected: { prize: number; ticket: string }[] = [];
    for (const e of proof.entries) {
      if (expected.length >= proof.prizes.length) break;
      const u = createHmac('sha256', proof.serverSeed!).update(e.ticket).digest().readUInt32BE(0);
      if (u * proof.oneIn < 2 ** 32) expected.push({ prize: expected.length, ticket: e.ticket });
    }
    expect(proof.awards.map((a) => ({ prize: a.prize, ticket: a.ticket }))).toEqual(expected);
    expect(expected.length).toBeGreaterThan(0); // 12 bets at 1 in 2: a drop with no winner would prove little

    // each prize paid once, as a promo credit of the winning bet's player
    const final = (await signed('GET', `/api/promotions/${drop.promoId}/awards`)).body.awards as typeof awards;
    expect(final.map((a) => a.status)).toEqual(final.map(() => 'credited'));
    for (const a of final) {
      expect(sha256(a.roundId)).toBe(proof.awards.find((x) => x.prize === a.prize)!.ticket);
      const txs = w.casino.transactions().filter((t) => t.idempotencyKey === `${drop.promoId}:prize:${a.prize}`);
      expect(txs).toHaveLength(1);
      expect(txs[0]).toMatchObject({
        type: 'credit',
        playerRef: a.playerRef,
        amount: BigInt(Math.round(a.amount * 100)),
        promo: true,
        promoType: 'prize_drop',
        roundId: a.roundId,
      });
    }
  });

  it('a cancelled drop draws nothing more and reveals its seed; awards made before are still paid', async () => {
    const created = await signed('POST', '/api/promotions', { kind: 'prize_drop', games: ['dice'], prizes: [2, 2, 2, 2, 2, 2], oneIn: 1, endsAt: inAnHour() });
    const promoId = String(created.body.promoId);
    const p = await w.player('pd-3', { operatorId: 'pd-a' });
    expect((await w.bet(p, 'dice', 1, dice)).status).toBe(200);
    await w.t.services.promotions.tick();
    expect((await signed('GET', `/api/promotions/${promoId}/awards`)).body.awards).toEqual([expect.objectContaining({ prize: 0, status: 'credited' })]);
    expect((await signed('POST', `/api/promotions/${promoId}/cancel`)).body).toMatchObject({ status: 'cancelled', serverSeedRevealed: true });
    expect((await w.bet(p, 'dice', 1, dice)).status).toBe(200);
    await w.t.services.promotions.tick();
    expect((await signed('GET', `/api/promotions/${promoId}/awards`)).body.awards).toHaveLength(1);
    const proof = (await w.call('GET', `/api/promotions/${promoId}/proof`)).body as unknown as Proof;
    expect(proof.entries).toHaveLength(1);
    expect(
      verifyPrizeDrop({
        serverSeed: proof.serverSeed!,
        serverSeedHash: proof.serverSeedHash,
        oneIn: 1,
        prizeCount: 6,
        entries: proof.entries,
        awards: proof.awards,
      }).ok,
    ).toBe(true);
  });
});

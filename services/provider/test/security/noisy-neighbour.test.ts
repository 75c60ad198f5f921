/**
 * One casino cannot hurt another (issue 23): a wallet answering huge bodies, a wallet answering
 * slowly, and a flood of one casino's players each stay inside that casino's share of the pod,
 * with clear errors for it and nothing lost; the calm casino on the same pod bets on. The long
 * version with figures (p99, /health, RSS) is the harness's noisy-neighbour run (`npm run chaos`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, startWorld, type Player, type World } from '../helpers/casino.js';
import { drainRetries } from '../helpers/casino.js';

const DICE = { target: 50, direction: 'over' };
const MB = 1024 * 1024;

let w: World;
let calm: Player;
beforeAll(async () => {
  w = await startWorld([{ operatorId: 'op-hostile' }, { operatorId: 'op-calm' }], {
    env: { WALLET_MAX_IN_FLIGHT_PER_OPERATOR: '2', WALLET_MAX_QUEUED_PER_OPERATOR: '1', PLAYER_MAX_IN_FLIGHT_PER_OPERATOR: '6', CALLBACK_TIMEOUT_MS: '3000' },
  });
  calm = await w.player('calm-1', { operatorId: 'op-calm' });
});
afterAll(async () => w?.close());

const auditOf = async (roundId: string) =>
  (await w.round(roundId)).body.casinoCallbackAudit as { path: string; callbackStatus: string; errorMessage: string | null; statusCode: number | null }[];

describe('a wallet answering huge bodies', () => {
  it('validate-session and balance: a clear 502, read no further than the cap', async () => {
    const p = await w.player('huge-s', { operatorId: 'op-hostile' });
    w.casino.setFaults([{ path: '/wallet/balance', operatorId: 'op-hostile', kind: 'huge', bytes: 8 * MB, chunked: true }]);
    const balance = await w.call('GET', `/api/balance?sessionId=${p.sessionId}`);
    expect(balance.status).toBe(502);
    expect(balance.body.code).toBe('CASINO_HTTP_ERROR');
    w.casino.setFaults([{ path: '/wallet/validate-session', operatorId: 'op-hostile', kind: 'huge', bytes: 8 * MB }]);
    const session = await w.call('POST', '/api/sessions', { operatorId: 'op-hostile', launchToken: p.launchToken, gameType: 'dice' });
    expect(session.status).toBe(502);
    expect(session.body.code).toBe('CASINO_HTTP_ERROR');
    w.casino.clearFaults();
  });

  it('a debit answered with a huge body is no readable answer: rolled back, and the audit says why', async () => {
    const p = await w.player('huge-d', { operatorId: 'op-hostile' });
    w.casino.setFaults([{ path: '/wallet/debit', operatorId: 'op-hostile', kind: 'huge', bytes: 8 * MB, applied: true }]);
    const bet = await w.bet(p, 'dice', 1, DICE);
    w.casino.clearFaults();
    expect(bet.status).toBe(502);
    expect(bet.body.code).toBe('CASINO_HTTP_ERROR');
    expect(bet.body.roundStatus).toBe('cancelled');
    const audit = await auditOf(String(bet.body.roundId));
    const debit = audit.find((a) => a.path === '/wallet/debit')!;
    expect(debit.callbackStatus).toBe('failed');
    expect(debit.errorMessage).toMatch(/larger than 65536 bytes/);
    expect(audit.find((a) => a.path === '/wallet/rollback')!.callbackStatus).toBe('succeeded');
    // the casino applied the debit and then the rollback: the player has every unit back
    expect(w.balance(p)).toBe(100_000n);
  });

  it('a credit answered with a huge body stays credit_pending and is paid once the casino answers plainly', async () => {
    const p = await w.player('huge-c', { operatorId: 'op-hostile' });
    w.casino.setFaults([{ path: '/wallet/credit', operatorId: 'op-hostile', kind: 'huge', bytes: 8 * MB, applied: false, chunked: true }]);
    const bet = await w.bet(p, 'dice', 1, { target: 2, direction: 'over' });
    expect(bet.status).toBe(200);
    expect(bet.body.roundStatus).toBe('credit_pending');
    const credit = (await auditOf(String(bet.body.roundId))).find((a) => a.path === '/wallet/credit')!;
    expect(credit.callbackStatus).toBe('pending');
    expect(credit.errorMessage).toMatch(/larger than 65536 bytes/);
    // meanwhile the calm casino's bets are untouched
    expect((await w.bet(calm, 'dice', 1, DICE)).status).toBe(200);
    w.casino.clearFaults();
    await drainRetries(w);
    expect((await w.dbRound(String(bet.body.roundId))).status).toBe('settled');
    expect(w.ledger(String(bet.body.roundId)).filter((tx) => tx.type === 'credit')).toHaveLength(1);
  });
});

describe("each casino's share of the pod", () => {
  it("a slow wallet fills only its own lane: past it, debits are not sent (nothing moves, a clear error) while the calm casino's bets go through", async () => {
    const players: Player[] = [];
    for (let i = 0; i < 6; i++) players.push(await w.player(`slow-${i}`, { operatorId: 'op-hostile' }));
    w.casino.setFaults([{ path: '/wallet/debit', operatorId: 'op-hostile', kind: 'delay', ms: 1200 }]);
    const keys = players.map(() => newKey('slow'));
    const hostile = Promise.all(players.map((p, i) => w.bet(p, 'dice', 1, DICE, keys[i])));
    // while the hostile lane is full, the calm casino's bet is not held up behind it
    const calmBet = await w.bet(calm, 'dice', 1, DICE);
    expect(calmBet.status).toBe(200);
    const answers = await hostile;
    w.casino.clearFaults();
    const ok = answers.filter((a) => a.status === 200);
    const busy = answers.filter((a) => a.status !== 200);
    // 2 in flight + 1 waiting for a slot (it frees after 1.2 s, within the 3 s timeout); the other 3 are not sent
    expect(ok).toHaveLength(3);
    expect(busy).toHaveLength(3);
    for (const b of busy) {
      expect(b.status).toBe(502);
      expect(b.body.code).toBe('CASINO_HTTP_RETRYABLE');
      expect(b.body.message).toMatch(/share of wallet calls/);
      expect(b.body.roundStatus).toBe('error');
    }
    // a debit that was not sent never reached the casino, and no rollback was needed
    for (const [i, a] of answers.entries()) {
      const reached = w.casino.requests().filter((r) => r.path === '/wallet/debit' && r.idempotencyKey === `${String(a.body.roundId)}:debit`);
      expect(reached.length, `bet ${keys[i]}`).toBe(a.status === 200 ? 1 : 0);
    }
    for (const b of busy) expect(w.ledger(String(b.body.roundId))).toHaveLength(0);
  });

  it("a flood of one casino's players is admitted up to its share; the rest get 429 before any wallet call or stored row; the calm casino is admitted", async () => {
    const players: Player[] = [];
    for (let i = 0; i < 10; i++) players.push(await w.player(`flood-${i}`, { operatorId: 'op-hostile' }));
    w.casino.setFaults([{ path: '/wallet/debit', operatorId: 'op-hostile', kind: 'delay', ms: 600 }]);
    const before = await w.t.services.db('rounds').where({ operator_id: 'op-hostile' }).count<{ n: string }[]>({ n: '*' });
    const flood = Promise.all(players.map((p) => w.bet(p, 'dice', 1, DICE)));
    const calmBet = await w.bet(calm, 'dice', 1, DICE);
    const answers = await flood;
    w.casino.clearFaults();
    expect(calmBet.status).toBe(200);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(4);
    for (const l of limited) {
      expect(l.body.code).toBe('RATE_LIMITED');
      expect(l.body.roundId).toBeUndefined();
    }
    const after = await w.t.services.db('rounds').where({ operator_id: 'op-hostile' }).count<{ n: string }[]>({ n: '*' });
    expect(Number(after[0]!.n) - Number(before[0]!.n)).toBe(6);
    // the share is free again once the answers are sent
    expect((await w.bet(players[0]!, 'dice', 1, DICE)).status).toBe(200);
  });
});

/**
 * The admin console's API (issue 13): sign-in with lockout, CSRF on every state-changing request,
 * revocable sessions, password change; secret rotation with a grace period (operator requests
 * signed with either secret verify until it ends, callbacks use the new one); the append-only
 * audit without secret values; the streamed CSV; "retry now" on a real casino's pending credit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceCasino, type ReferenceCasino } from '@gp/reference-casino';
import { signedHeaders } from '../../src/wallet/signing.js';
import { adminHeaders, createTestApp, type TestApp } from '../helpers/app.js';
import { login, PASSWORD, playDice, profile, staffSession } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  expect((await t.app.inject({ method: 'PUT', url: '/api/admin/operators/op-a', headers: adminHeaders, payload: profile('casino-a') })).statusCode).toBe(201);
});
afterAll(async () => t?.close());

describe('staff sign-in', () => {
  it('sets an httpOnly SameSite=Strict session cookie, and the session is revoked by logout', async () => {
    const s = await staffSession(t, 'login@a.test', 'admin', 'casino-a');
    const me = await t.app.inject({ method: 'GET', url: '/api/admin/auth/me', headers: s.headers });
    expect(me.json().staff).toMatchObject({ email: 'login@a.test', role: 'admin', tenantId: 'casino-a', via: 'session' });
    const res = await login(t, 'login@a.test');
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('gp_admin_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).not.toMatch(/Secure/i); // Secure in production only
    expect(JSON.stringify(res.json())).not.toContain(cookie.split(';')[0]!.split('=')[1]!);
    expect((await t.app.inject({ method: 'POST', url: '/api/admin/auth/logout', headers: s.headers })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/auth/me', headers: s.headers })).statusCode).toBe(401);
  });

  it('refuses a state-changing request with the cookie but without the CSRF token (403), and login without one', async () => {
    const s = await staffSession(t, 'csrf@a.test', 'admin', 'casino-a');
    const { 'x-csrf-token': _token, ...cookieOnly } = s.headers;
    const res = await t.app.inject({ method: 'PATCH', url: '/api/admin/operators/op-a', headers: cookieOnly, payload: { enabled: true } });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('FORBIDDEN');
    const wrong = await t.app.inject({
      method: 'PATCH',
      url: '/api/admin/operators/op-a',
      headers: { ...cookieOnly, 'x-csrf-token': 'forged' },
      payload: { enabled: true },
    });
    expect(wrong.statusCode).toBe(403);
    expect((await t.app.inject({ method: 'PATCH', url: '/api/admin/operators/op-a', headers: s.headers, payload: { enabled: true } })).statusCode).toBe(200);
    const noCsrfLogin = await t.app.inject({ method: 'POST', url: '/api/admin/auth/login', payload: { email: 'csrf@a.test', password: PASSWORD } });
    expect(noCsrfLogin.statusCode).toBe(403);
  });

  it('locks an account after five wrong passwords in a row, even for the right one', async () => {
    await staffSession(t, 'lock@a.test', 'viewer', 'casino-a');
    for (let i = 0; i < 5; i++) expect((await login(t, 'lock@a.test', 'wrong password!!', '10.9.0.1')).statusCode).toBe(401);
    const locked = await login(t, 'lock@a.test', PASSWORD, '10.9.0.2');
    expect(locked.statusCode).toBe(429);
    expect(locked.json().code).toBe('RATE_LIMITED');
    expect((await login(t, 'nobody@a.test', 'whatever password')).json().code).toBe('UNAUTHORIZED');
  });

  it('changes the password with the current one; other sessions end', async () => {
    const s1 = await staffSession(t, 'pw@a.test', 'viewer', 'casino-a');
    const other = await login(t, 'pw@a.test');
    const otherCookie = ([] as string[])
      .concat(other.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('gp_admin_session='))!
      .split(';')[0]!;
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/admin/auth/password',
      headers: s1.headers,
      payload: { currentPassword: 'nope', newPassword: 'a brand new password' },
    });
    expect(bad.statusCode).toBe(400);
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/admin/auth/password',
      headers: s1.headers,
      payload: { currentPassword: PASSWORD, newPassword: 'a brand new password' },
    });
    expect(ok.statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/auth/me', headers: s1.headers })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/auth/me', headers: { cookie: otherCookie } })).statusCode).toBe(401);
    expect((await login(t, 'pw@a.test', 'a brand new password')).statusCode).toBe(200);
  });
});

describe('shared-secret rotation with a grace period', () => {
  const signedGet = (secret: string, path: string) =>
    t.app.inject({ method: 'GET', url: path, headers: { ...signedHeaders('op-a', secret, 'GET', path, '', Date.now()) } });

  it('shows the new secret once; requests signed with the old or the new one verify during the grace period', async () => {
    const path = '/api/reconciliation?operatorId=op-a&limit=1';
    expect((await signedGet(profile('x').sharedSecret, path)).statusCode).toBe(200);
    const res = await t.app.inject({ method: 'POST', url: '/api/admin/operators/op-a/rotate-secret', headers: adminHeaders, payload: { graceHours: 2 } });
    expect(res.statusCode).toBe(200);
    const { sharedSecret, previousSecretValidUntil } = res.json();
    expect(sharedSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(previousSecretValidUntil)).toBeGreaterThan(Date.now() + 3_600_000);
    expect((await signedGet(profile('x').sharedSecret, path)).statusCode).toBe(200);
    expect((await signedGet(sharedSecret, path)).statusCode).toBe(200);
    expect((await signedGet('some-other-secret-0123456789', path)).statusCode).toBe(401);
    // callbacks are signed with the new one
    expect((await t.services.operators.getWithSecret(t.services.db, 'op-a'))!.sharedSecret).toBe(sharedSecret);
    const view = await t.app.inject({ method: 'GET', url: '/api/admin/operators/op-a', headers: adminHeaders });
    expect(view.body).not.toContain(sharedSecret);
    expect(view.json().previousSecretValidUntil).toBe(previousSecretValidUntil);

    // a rotation without grace: only the newest secret verifies
    const again = (
      await t.app.inject({ method: 'POST', url: '/api/admin/operators/op-a/rotate-secret', headers: adminHeaders, payload: { graceHours: 0 } })
    ).json();
    expect((await signedGet(sharedSecret, path)).statusCode).toBe(401);
    expect((await signedGet(again.sharedSecret, path)).statusCode).toBe(200);
  });
});

describe('the config-change audit', () => {
  it('records who, when, from where, before and after — never a secret — and cannot be changed', async () => {
    const s = await staffSession(t, 'audit@a.test', 'admin', 'casino-a');
    await t.app.inject({
      method: 'PATCH',
      url: '/api/admin/operators/op-a',
      headers: { ...s.headers, 'user-agent': 'audit-test' },
      payload: { maxPayout: 5000 },
    });
    const history = (await t.app.inject({ method: 'GET', url: '/api/admin/operators/op-a/history', headers: adminHeaders })).json().records;
    const edit = history.find((r: { action: string }) => r.action === 'operator.edited');
    expect(edit).toMatchObject({
      actor: { kind: 'staff', email: 'audit@a.test', userAgent: 'audit-test' },
      operatorId: 'op-a',
      tenantId: 'casino-a',
      before: { maxPayout: '10000' },
      after: { maxPayout: '5000' },
    });
    expect(edit.actor.ip).toBeTruthy();
    expect(history.map((r: { action: string }) => r.action)).toEqual(expect.arrayContaining(['operator.created', 'secret.rotated']));
    const all = JSON.stringify(history);
    expect(all).not.toContain(profile('x').sharedSecret);
    expect(all).not.toMatch(/sharedSecret|password/i);
    await expect(t.services.db('config_audit').update({ action: 'x' })).rejects.toThrow(/append-only/);
    await expect(t.services.db('config_audit').delete()).rejects.toThrow(/append-only/);
    await expect(t.services.db.raw('TRUNCATE config_audit')).rejects.toThrow(/append-only/);
    // no route edits or deletes a record
    const routes = t.app.routeTable.filter((r) => r.url.includes('audit') || r.url.includes('history'));
    expect(routes.map((r) => r.method).filter((m) => m !== 'GET' && m !== 'HEAD')).toEqual([]);
  });
});

describe('reconciliation CSV and totals', () => {
  it('streams every row of the filter as CSV and totals stakes, payouts and GGR per day', async () => {
    for (let i = 0; i < 7; i++) await playDice(t, 'op-a', `csv-${i}`);
    const csv = await t.app.inject({ method: 'GET', url: '/api/admin/reconciliation.csv?operatorId=op-a&type=debit', headers: adminHeaders });
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    expect(csv.headers['content-disposition']).toMatch(/attachment/);
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toBe(
      'createdAt,type,status,operatorId,roundId,playerRef,gameType,amount,currency,casinoTransactionId,idempotencyKey,money,campaignId,promoId,prize,sourceRoundId',
    );
    expect(lines).toHaveLength(8);
    for (const line of lines.slice(1)) expect(line).toMatch(/,paid,,,,$/); // a paid round's row: no campaign, no promotion
    const totals = (await t.app.inject({ method: 'GET', url: '/api/admin/reconciliation/totals?operatorId=op-a', headers: adminHeaders })).json().totals;
    expect(totals[0]).toMatchObject({
      operatorId: 'op-a',
      currency: 'USD',
      debits: 7,
      stakes: 7,
      freeBetPayouts: 0,
      promoCredits: 0,
      promoPending: 0,
      promoPendingCount: 0,
    });
    expect(totals[0].ggr).toBeCloseTo(7 - totals[0].payouts - totals[0].rollbacks, 6);
    const dash = (
      await t.app.inject({
        method: 'GET',
        url: `/api/admin/dashboard?from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`,
        headers: adminHeaders,
      })
    ).json();
    expect(dash.rounds).toBe(7);
    expect(dash.rtp[0]).toMatchObject({ gameType: 'dice', rounds: 7, design: expect.any(Number) });
    expect(dash.callbacks[0]).toMatchObject({ operatorId: 'op-a', errors: 0 });
  });

  it('pages through more rows than one page holds', async () => {
    const { reconciliationCsv } = await import('../../src/rounds/admin-reports.js');
    const chunks: string[] = [];
    for await (const chunk of reconciliationCsv(t.services.db, { operatorId: 'op-a' }, 3)) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.join('').trim().split('\r\n').length - 1).toBe(
      Number(((await t.services.db('reconciliation_rows').where({ operator_id: 'op-a' }).count({ n: '*' })) as { n: string }[])[0]!.n),
    );
  });
});

describe('retry now', () => {
  let casino: ReferenceCasino;
  beforeAll(async () => {
    casino = await startReferenceCasino({ operators: { 'op-real': { secret: 'real-secret-0123456789abcdef', currency: 'USD', decimals: 2 } } });
    await t.app.inject({
      method: 'PUT',
      url: '/api/admin/operators/op-real',
      headers: adminHeaders,
      payload: { ...profile('casino-a'), callbackBaseUrl: casino.url, sharedSecret: 'real-secret-0123456789abcdef' },
    });
  });
  afterAll(async () => casino?.close());

  it('runs the retry job for a pending credit and records it in the audit', async () => {
    casino.createPlayer({ playerRef: 'rp', displayName: 'RP', balance: '100', currency: 'USD' });
    const token = casino.issueLaunchToken('rp', { operatorId: 'op-real' });
    const session = (await t.app.inject({ method: 'POST', url: '/api/sessions', payload: { operatorId: 'op-real', launchToken: token } })).json();
    casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503 }]);
    let roundId = '';
    for (let i = 0; i < 20 && !roundId; i++) {
      const bet = (
        await t.app.inject({
          method: 'POST',
          url: '/api/bets',
          payload: { sessionId: session.sessionId, gameType: 'dice', amount: 1, idempotencyKey: `rk-${i}`, params: { target: 2, direction: 'over' } },
        })
      ).json();
      if (bet.roundStatus === 'credit_pending') roundId = bet.roundId;
    }
    expect(roundId).not.toBe('');
    const pending = (await t.app.inject({ method: 'GET', url: '/api/admin/pending', headers: adminHeaders })).json().rounds;
    expect(pending.map((r: { roundId: string }) => r.roundId)).toContain(roundId);
    casino.clearFaults();
    const s = await staffSession(t, 'retry@a.test', 'admin', 'casino-a');
    const res = await t.app.inject({ method: 'POST', url: `/api/admin/rounds/${roundId}/retry`, headers: s.headers });
    expect(res.json()).toMatchObject({ scanned: 1, succeeded: 1, items: [{ roundId, operation: 'credit', outcome: 'succeeded' }] });
    expect((await t.app.inject({ method: 'GET', url: `/api/admin/rounds/${roundId}`, headers: s.headers })).json().round.roundStatus).toBe('settled');
    const audit = (await t.app.inject({ method: 'GET', url: '/api/admin/audit?targetType=round', headers: s.headers })).json().records;
    expect(audit[0]).toMatchObject({
      action: 'round.retried',
      targetId: roundId,
      before: { status: 'credit_pending' },
      after: { status: 'settled', outcome: 'succeeded' },
    });
    const round = (await t.app.inject({ method: 'GET', url: `/api/admin/rounds/${roundId}`, headers: s.headers })).json();
    expect(round.replayUrl).toBe(`/game.html?replay=${roundId}`);
    expect(round.round.casinoCallbackAudit.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(round)).not.toContain(token);
    expect(JSON.stringify(round)).not.toContain('real-secret');
  });
});

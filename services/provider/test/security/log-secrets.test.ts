/**
 * No secret in a log line (issue 9, defect 9): a run with request logging on — sessions, balance
 * reads with the session id in the query, bets, a Mines round, signed operator requests, admin
 * and cron calls, refused credentials — and then a scan of every line written for every session
 * id, launch token, operator secret, signature and bearer token the run used.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, adminHeaders, CRON_SECRET } from '../helpers/app.js';
import { newKey, operatorSigned, secretOf, startWorld, type Player, type World } from '../helpers/casino.js';

const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

let w: World;
const used = new Set<string>();
beforeAll(async () => {
  w = await startWorld([{ operatorId: 'op-log' }], { env: { LOG_LEVEL: 'info' }, logger: { stream: sink }, requestLogging: true });
  used.add(ADMIN_TOKEN).add(CRON_SECRET).add(secretOf('op-log'));
});
afterAll(async () => w?.close());

describe('the log of a run', () => {
  it('holds requests and answers but no session id, launch token, secret, signature or bearer token', async () => {
    const players: Player[] = [];
    for (const ref of ['log-a', 'log-b']) {
      const p = await w.player(ref, { gameType: 'mines', launchMode: 'lobby' });
      players.push(p);
      used.add(p.sessionId).add(p.launchToken);
    }
    const [a, b] = players as [Player, Player];
    expect((await w.call('GET', `/api/balance?sessionId=${a.sessionId}`)).status).toBe(200);
    expect((await w.call('GET', `/api/balance?sessionId=${encodeURIComponent(b.sessionId)}&x=1`)).status).toBe(200);
    const bet = await w.bet(a, 'dice', 1, { target: 50, direction: 'over' });
    expect(bet.status).toBe(200);
    // session ids in paths (the game page's free-bet read), however the path is spelled (issue 23)
    expect((await w.call('GET', `/api/sessions/${a.sessionId}/free-bets`)).status).toBe(200);
    expect((await w.call('GET', `/API/Sessions/${encodeURIComponent(b.sessionId)}/free-bets?x=1`)).status).toBeLessThan(500);
    const mines = await w.call('POST', '/api/mines/rounds', { sessionId: b.sessionId, amount: 1, idempotencyKey: newKey() });
    expect((await w.call('GET', `/api/mines/rounds/${mines.body.roundId}?sessionId=${b.sessionId}`)).status).toBe(200);
    expect((await w.call('GET', `/api/mines/rounds/active?sessionId=${b.sessionId}`)).status).toBe(200);
    // a failed credit (the error path logs too)
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503, times: 2 }]);
    await w.bet(a, 'dice', 1, { target: 50, direction: 'over' });
    w.casino.clearFaults();
    // signed operator requests
    const target = '/api/reconciliation?operatorId=op-log&limit=5';
    const signed = operatorSigned('op-log', 'GET', target);
    used.add(signed['x-signature']!);
    expect((await w.call('GET', target, undefined, signed)).status).toBe(200);
    const bad = operatorSigned('op-log', 'GET', target, { secret: 'not-the-secret-0123456789' });
    used.add(bad['x-signature']!);
    expect((await w.call('GET', target, undefined, bad)).status).toBe(401);
    // admin and cron, right and wrong
    const newSecret = 'rotated-secret-abcdef0123456789';
    used.add(newSecret);
    const profile = { currency: 'USD', callbackBaseUrl: w.casino.url, sharedSecret: newSecret, minBet: 0.1, stakeStep: 0.01, maxPayout: 100 };
    expect((await w.call('PUT', '/api/admin/operators/op-log-2', profile, adminHeaders)).status).toBe(201);
    expect((await w.call('PUT', '/api/admin/operators/op-log-3', profile, { authorization: 'Bearer guessed-admin-token-123456' })).status).toBe(401);
    used.add('guessed-admin-token-123456');
    expect((await w.cron('limit=10')).status).toBe(200);
    expect((await w.cron('limit=10', 'wrong-cron-secret-0123456789')).status).toBe(401);
    used.add('wrong-cron-secret-0123456789');
    // a launch URL with the token in its query
    const launch = await w.call('GET', `/game.html?operatorId=op-log&game=dice&token=${a.launchToken}`);
    expect(launch.status).toBeLessThan(500);

    // request ids: the caller's X-Request-Id when it is a plain token (echoed), else a new UUID
    const traced = await w.t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'client-req-42' } });
    expect(traced.headers['x-request-id']).toBe('client-req-42');
    const odd = await w.t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'no spaces allowed' } });
    expect(odd.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    // objects a developer might log one day: the redaction list censors them at any of three levels
    const dbUrl = 'postgres://gp:db-password-0123456789@db/gp';
    used.add(dbUrl).add('db-password-0123456789').add('nested-secret-0123456789');
    w.t.app.log.warn(
      {
        profile: { sharedSecret: 'nested-secret-0123456789' },
        env: { CRON_SECRET, ADMIN_TOKEN, DATABASE_URL: dbUrl },
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, cookie: 'gp_staff=nested-secret-0123456789' },
        launchToken: a.launchToken,
      },
      'a careless log line',
    );

    const log = lines.join('\n');
    // every request line is JSON with its request id
    const requestLines = lines
      .map((l) => JSON.parse(l) as { reqId?: string; req?: unknown; res?: unknown; msg?: string })
      .filter((l) => l.req !== undefined || l.res !== undefined);
    expect(requestLines.length).toBeGreaterThan(10);
    for (const l of requestLines) expect(l.reqId).toMatch(/^([0-9a-f-]{36}|client-req-42)$/);
    // the access log: one line per request, when it ends, with the request and the answer (http/observability.ts AccessLog)
    const access = requestLines.filter((l) => l.msg === 'request completed');
    expect(access.length).toBeGreaterThan(10);
    for (const l of access) expect(l).toMatchObject({ req: { method: expect.any(String), url: expect.any(String) }, res: { statusCode: expect.any(Number) } });
    expect(requestLines.some((l) => l.msg === 'incoming request')).toBe(false);
    expect(log).toContain('"reqId":"client-req-42"');
    expect(log).toContain('a careless log line');
    expect(lines.length).toBeGreaterThan(10);
    expect(log).toMatch(/"url":"\/api\/balance\?sessionId=\[redacted\]"/);
    expect(log).toMatch(/"url":"\/api\/sessions\/\[redacted\]\/free-bets"/);
    for (const secret of used) expect(log.includes(secret), `the log holds ${secret.slice(0, 6)}…`).toBe(false);
  });

  it('logs a request the router refuses (a bad percent-encoding) like any other: masked path, status, request id, error code', async () => {
    const p = await w.player('log-bad-url', { gameType: 'dice' });
    const cases = [
      { url: '/api/bets/%FF', id: 'bad-url-1', logged: '/api/bets/%FF' },
      // a session id in the refused path is masked like any other
      { url: `/api/sessions/${p.sessionId}%FF/free-bets`, id: 'bad-url-2', logged: '/api/sessions/[redacted]/free-bets' },
      { url: `/api/bets/%E0%A4%A?sessionId=${p.sessionId}`, id: 'bad-url-3', logged: '/api/bets/%E0%A4%A?sessionId=[redacted]' },
    ];
    for (const c of cases) {
      const res = await w.t.app.inject({ method: 'GET', url: c.url, headers: { 'x-request-id': c.id } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(res.headers['x-request-id']).toBe(c.id);
      const line = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.reqId === c.id);
      expect(line).toEqual([
        expect.objectContaining({ msg: 'request completed', req: { method: 'GET', url: c.logged }, res: { statusCode: 400 }, errorCode: 'VALIDATION_ERROR' }),
      ]);
    }
    expect(lines.some((l) => l.includes(p.sessionId))).toBe(false);
  });
});

/**
 * What an on-call needs from metrics, traces and logs (issue 28 items 1–3), on the real app with
 * the reference casino over HTTP (tracing off):
 *  - gp_build_info, and each operator's series present at 0 before its first event;
 *  - the casinos' refusals by their code; the age of the oldest pending credit; each retry pass's
 *    claimed, settled and failed rounds;
 *  - an X-Request-Id on every callback (the request's own id when there is one);
 *  - one structured log event per callback that was not a plain success, and the request's log
 *    line naming its operator, round and error code, with a single `msg` key.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD } from '../../src/infra/build-info.js';
import { newKey, startTap, startWorld, type Tap, type World } from '../helpers/casino.js';

let w: World;
let tap: Tap;
const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

beforeAll(async () => {
  tap = await startTap();
  w = await startWorld([{ operatorId: 'op-oncall', callbackBaseUrl: tap.url }, { operatorId: 'op-quiet' }], {
    env: { LOG_LEVEL: 'info' },
    logger: { stream: sink },
    requestLogging: true,
  });
  tap.target = w.casino.url;
});
afterAll(async () => {
  await w?.close();
  await tap?.close();
});

/** Every sample of `name` whose labels include `labels`: [labels, value]. */
function samples(text: string, name: string, labels: Record<string, string> = {}): [Record<string, string>, number][] {
  const out: [Record<string, string>, number][] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1]!, x[2]!]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) out.push([got, Number(m[4])]);
  }
  return out;
}
const value = (text: string, name: string, labels: Record<string, string>) => samples(text, name, labels)[0]?.[1] ?? 0;
const present = (text: string, name: string, labels: Record<string, string>) => samples(text, name, labels).length === 1;
const scrape = async () => (await w.t.services.metrics.render()).body;
const json = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

describe('metrics an on-call needs', () => {
  it('gp_build_info names the build; an operator that never played has its series at 0', async () => {
    const text = await scrape();
    expect(samples(text, 'gp_build_info')).toEqual([[{ version: BUILD.version, commit: BUILD.commit, node_version: process.versions.node }, 1]]);
    expect(BUILD.version).toMatch(/^\d+\.\d+\.\d+/);
    for (const [name, labels] of [
      ['gp_wallet_callbacks_total', { operator: 'op-quiet', operation: 'debit', outcome: 'confirmed' }],
      ['gp_wallet_callbacks_total', { operator: 'op-quiet', operation: 'credit', outcome: 'timeout' }],
      ['gp_wallet_retry_runs_total', { operator: 'op-quiet', trigger: 'cron' }],
      ['gp_wallet_retry_rounds_total', { operator: 'op-quiet', result: 'claimed' }],
      ['gp_wallet_retry_rounds_total', { operator: 'op-quiet', result: 'failed' }],
      ['gp_wallet_retries_pending', { operator: 'op-quiet', operation: 'credit' }],
      ['gp_wallet_retries_oldest_pending_seconds', { operator: 'op-quiet', operation: 'rollback' }],
      ['gp_idempotent_replays_total', { outcome: 'conflict' }],
      ['gp_rounds_total', { game: 'keno', status: 'cancelled' }],
    ] as const) {
      expect(present(text, name, labels), `${name} ${JSON.stringify(labels)}`).toBe(true);
      expect(value(text, name, labels)).toBe(0);
    }
  });

  it("counts the casinos' refusals by their code, apart from the outcome", async () => {
    const p = await w.player('refused-a', { operatorId: 'op-oncall', balance: '5.00' });
    const poor = await w.player('refused-b', { operatorId: 'op-oncall', balance: '0.50' });
    const before = await scrape();
    w.casino.setFaults([{ path: '/wallet/debit', kind: 'refuse', code: 'RG_LIMIT_REACHED', times: 1, operatorId: 'op-oncall' }]);
    const limited = await w.bet(p, 'dice', '0.10', { target: 50, direction: 'over' });
    w.casino.clearFaults();
    expect(limited.body.casinoCode).toBe('RG_LIMIT_REACHED');
    const broke = await w.bet(poor, 'dice', '1.00', { target: 50, direction: 'over' });
    expect(broke.body.code).toBe('INSUFFICIENT_FUNDS');
    const text = await scrape();
    const delta = (labels: Record<string, string>) => value(text, 'gp_wallet_refusals_total', labels) - value(before, 'gp_wallet_refusals_total', labels);
    expect(delta({ operator: 'op-oncall', operation: 'debit', code: 'RG_LIMIT_REACHED' })).toBe(1);
    expect(delta({ operator: 'op-oncall', operation: 'debit', code: 'INSUFFICIENT_FUNDS' })).toBe(1);
  });

  it("reports the age of the oldest pending credit, and each retry pass's claimed, settled and failed rounds", async () => {
    const p = await w.player('pending-a', { operatorId: 'op-oncall' });
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503, times: 2, operatorId: 'op-oncall' }]);
    const bet = await w.bet(p, 'dice', '0.10', { target: 50, direction: 'over' });
    w.casino.clearFaults();
    expect(bet.body.roundStatus).toBe('credit_pending');
    // The credit was first sent two hours ago (its wallet_callbacks row, backdated): the age follows it.
    await w.t.services
      .db('wallet_callbacks')
      .where({ round_id: bet.body.roundId, operation: 'credit' })
      .update({ created_at: w.t.services.db.raw("now() - interval '2 hours'") });
    let text = await scrape();
    const age = value(text, 'gp_wallet_retries_oldest_pending_seconds', { operator: 'op-oncall', operation: 'credit' });
    expect(age).toBeGreaterThanOrEqual(7200);
    expect(age).toBeLessThan(7200 + 600);
    expect(value(text, 'gp_wallet_retries_oldest_pending_seconds', { operator: 'op-oncall', operation: 'rollback' })).toBe(0);

    const runs = (t: string) => value(t, 'gp_wallet_retry_runs_total', { operator: 'op-oncall', trigger: 'cron' });
    const rounds = (t: string, result: string) => value(t, 'gp_wallet_retry_rounds_total', { operator: 'op-oncall', result });
    const before = text;
    // A pass while the casino still answers 503: claimed and failed.
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503, times: 2, operatorId: 'op-oncall' }]);
    expect((await w.cron('operatorId=op-oncall&limit=100')).status).toBe(200);
    w.casino.clearFaults();
    text = await scrape();
    expect(runs(text) - runs(before)).toBe(1);
    expect(rounds(text, 'claimed') - rounds(before, 'claimed')).toBe(1);
    expect(rounds(text, 'failed') - rounds(before, 'failed')).toBe(1);
    expect(rounds(text, 'settled') - rounds(before, 'settled')).toBe(0);
    // The next pass settles it; the age drops to 0.
    expect((await w.cron('operatorId=op-oncall&limit=100')).status).toBe(200);
    const after = await scrape();
    expect(runs(after) - runs(before)).toBe(2);
    expect(rounds(after, 'settled') - rounds(before, 'settled')).toBe(1);
    expect(value(after, 'gp_wallet_retries_oldest_pending_seconds', { operator: 'op-oncall', operation: 'credit' })).toBe(0);
  });
});

describe('X-Request-Id to the casino, tracing off', () => {
  it("every callback carries the request's id (the caller's X-Request-Id when it sent one); the retries of a pass carry one too", async () => {
    const p = await w.player('reqid-a', { operatorId: 'op-oncall' });
    tap.requests.length = 0;
    const res = await w.call(
      'POST',
      '/api/bets',
      { sessionId: p.sessionId, gameType: 'dice', amount: 1, params: { target: 50, direction: 'over' }, idempotencyKey: newKey() },
      { 'x-request-id': 'casino-trace-0042' },
    );
    expect(res.status).toBe(200);
    const calls = tap.requests.filter((r) => r.url.includes('/wallet/'));
    expect(calls.map((r) => r.url.replace(/^.*\/wallet\//, ''))).toEqual(['debit', 'credit']);
    for (const r of calls) expect(r.headers['x-request-id']).toBe('casino-trace-0042');

    // Both attempts of one callback share its id; a cron pass's callbacks have ids too.
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503, times: 1, operatorId: 'op-oncall' }]);
    tap.requests.length = 0;
    const retried = await w.bet(p, 'dice', '0.10', { target: 50, direction: 'over' });
    w.casino.clearFaults();
    expect(retried.status).toBe(200);
    const credits = tap.requests.filter((r) => r.url.endsWith('/wallet/credit'));
    expect(credits).toHaveLength(2);
    expect(credits[0]!.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(credits[1]!.headers['x-request-id']).toBe(credits[0]!.headers['x-request-id']);
  });
});

describe('logs', () => {
  it('one structured event per callback that was not a plain success, with operator, round, operation, attempt, status, casino code, latency and outcome', async () => {
    const p = await w.player('logs-a', { operatorId: 'op-oncall' });
    lines.length = 0;
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503, times: 2, operatorId: 'op-oncall' }]);
    const bet = await w.bet(p, 'dice', '0.10', { target: 50, direction: 'over' });
    w.casino.clearFaults();
    expect(bet.body.roundStatus).toBe('credit_pending');
    const roundId = String(bet.body.roundId);
    const events = json().filter((l) => l.event === 'wallet_callback');
    expect(events).toHaveLength(1); // the debit was a plain success: no event
    expect(events[0]).toMatchObject({
      level: 40,
      operatorId: 'op-oncall',
      roundId,
      operation: 'credit',
      attempt: 2,
      httpStatus: 503,
      errorCode: 'CASINO_HTTP_RETRYABLE',
      outcome: 'retryable_status',
      idempotencyKey: `${roundId}:credit`,
    });
    expect(typeof events[0]!.latencyMs).toBe('number');
    expect(events[0]!.reqId).toBeTruthy();

    // The request's own line: 200, and it names the operator and the round.
    const access = json().find(
      (l) => l.msg === 'request completed' && (l.req as { url?: string } | undefined)?.url === '/api/bets' && l.reqId === events[0]!.reqId,
    );
    expect(access).toMatchObject({ operatorId: 'op-oncall', roundId });

    // A refusal: the casino's code in the event, the error code on the request's line.
    lines.length = 0;
    w.casino.setFaults([{ path: '/wallet/debit', kind: 'refuse', code: 'ACCOUNT_FROZEN', status: 403, times: 1, operatorId: 'op-oncall' }]);
    const refused = await w.bet(p, 'dice', '0.10', { target: 50, direction: 'over' });
    w.casino.clearFaults();
    expect(refused.body.code).toBe('CASINO_HTTP_ERROR');
    const refusal = json().find((l) => l.event === 'wallet_callback');
    expect(refusal).toMatchObject({
      operatorId: 'op-oncall',
      operation: 'debit',
      attempt: 1,
      httpStatus: 403,
      casinoCode: 'ACCOUNT_FROZEN',
      outcome: 'refused',
    });
    const line = json().find((l) => l.msg === 'request completed' && l.reqId === refusal!.reqId);
    expect(line).toMatchObject({ operatorId: 'op-oncall', roundId: refusal!.roundId, errorCode: 'CASINO_HTTP_ERROR' });
  });

  it("a 5xx answer's warn line has one msg key, the error code and the error text", async () => {
    const p = await w.player('logs-b', { operatorId: 'op-oncall' });
    lines.length = 0;
    w.casino.setFaults([{ path: '/wallet/debit', kind: 'status', status: 503, times: 2, operatorId: 'op-oncall' }]);
    const res = await w.bet(p, 'dice', '0.10', { target: 50, direction: 'over' });
    w.casino.clearFaults();
    expect(res.status).toBe(502);
    const raw = lines.find((l) => l.includes('"request failed"'))!;
    expect(raw, lines.join('\n')).toBeDefined();
    expect(raw.match(/"msg":/g)).toHaveLength(1);
    expect(JSON.parse(raw)).toMatchObject({ level: 40, msg: 'request failed', errorCode: 'CASINO_HTTP_RETRYABLE', operatorId: 'op-oncall' });
    expect(typeof JSON.parse(raw).error).toBe('string');
  });
});

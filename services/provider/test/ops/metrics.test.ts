/**
 * Prometheus metrics (issue 15 item 5) and the wallet circuit (item 9), on the real app with the
 * reference casino over HTTP: the figures after bets, a Mines round, a replayed key, a credit the
 * casino did not confirm and the cron run that finishes it; the circuit visible in
 * gp_wallet_circuit_open and /ready; credits and rollbacks still sent while it is open. And the
 * exposition never names a player, a round or a session.
 */
import v8 from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetricsServer } from '../../src/metrics-server.js';
import { newKey, startWorld, type World } from '../helpers/casino.js';

let w: World;
beforeAll(async () => {
  w = await startWorld([{ operatorId: 'op-metrics' }, { operatorId: 'op-circuit' }]);
});
afterAll(async () => w?.close());

/** The value of one sample (`name{labels}`), 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[4]);
  }
  return 0;
}

const scrape = async () => (await w.t.services.metrics.render()).body;

describe('/metrics', () => {
  it('counts requests by route pattern, wallet callbacks, bets and payouts in minor units, rounds, replays, lock waits and pending retries', async () => {
    const before = await scrape();
    const p = await w.player('metrics-a', { operatorId: 'op-metrics', launchMode: 'lobby' });
    const key = newKey('replayed');
    const first = await w.bet(p, 'dice', '1.25', { target: 50, direction: 'over' }, key);
    expect(first.status).toBe(200);
    expect((await w.bet(p, 'dice', '1.25', { target: 50, direction: 'over' }, key)).status).toBe(200);
    const second = await w.bet(p, 'limbo', '0.50', { target: 2 });
    expect(second.status).toBe(200);
    expect((await w.round(String(first.body.roundId))).status).toBe(200);
    const mines = await w.call('POST', '/api/mines/rounds', { sessionId: p.sessionId, amount: 1, idempotencyKey: newKey() });
    expect(mines.status).toBe(200);
    const reveal = await w.call('POST', `/api/mines/rounds/${mines.body.roundId}/reveal`, { sessionId: p.sessionId, tile: 0, idempotencyKey: newKey() });
    expect(reveal.status).toBe(200);
    // a credit the casino does not confirm: the round waits for the retry job
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503, times: 2, operatorId: 'op-metrics' }]);
    const pending = await w.bet(p, 'dice', '0.10', { target: 50, direction: 'over' });
    w.casino.clearFaults();
    expect(pending.body.roundStatus).toBe('credit_pending');

    const text = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) => sample(text, name, labels) - sample(before, name, labels);
    expect(delta('gp_http_request_duration_seconds_count', { method: 'POST', route: '/api/bets', status: '200' })).toBe(4);
    expect(delta('gp_http_request_duration_seconds_count', { method: 'GET', route: '/api/bets/:roundId', status: '200' })).toBe(1);
    expect(delta('gp_http_request_duration_seconds_count', { method: 'POST', route: '/api/mines/rounds/:roundId/reveal', status: '200' })).toBe(1);
    expect(delta('gp_wallet_callbacks_total', { operator: 'op-metrics', operation: 'debit', outcome: 'confirmed' })).toBe(4);
    expect(delta('gp_wallet_callbacks_total', { operator: 'op-metrics', operation: 'credit', outcome: 'retryable_status' })).toBe(1);
    expect(delta('gp_wallet_callback_duration_seconds_count', { operator: 'op-metrics', operation: 'debit' })).toBe(4);
    expect(delta('gp_idempotent_replays_total', { outcome: 'replayed' })).toBe(1);
    expect(delta('gp_lock_wait_seconds_count')).toBeGreaterThanOrEqual(1);
    const mineHit = reveal.body.roundStatus === 'busted';
    // Settled: the dice bet (125 cents), the limbo bet (50 cents), and the Mines round if the reveal hit a mine.
    expect(delta('gp_bets_total', { game: 'dice', currency: 'USD' })).toBe(1);
    expect(delta('gp_bet_stake_minor_units_total', { game: 'dice', currency: 'USD' })).toBe(125);
    expect(delta('gp_bet_stake_minor_units_total', { game: 'limbo', currency: 'USD' })).toBe(50);
    const payouts = [first, second].reduce((sum, a) => sum + Math.round(Number((a.body.bet as { payout: number }).payout) * 100), 0);
    expect(
      delta('gp_bet_payout_minor_units_total', { game: 'dice', currency: 'USD' }) +
        delta('gp_bet_payout_minor_units_total', { game: 'limbo', currency: 'USD' }),
    ).toBe(payouts);
    expect(delta('gp_rounds_total', { game: 'dice', status: 'settled' })).toBe(1);
    expect(delta('gp_rounds_total', { game: 'mines', status: 'busted' })).toBe(mineHit ? 1 : 0);
    expect(sample(text, 'gp_rounds_open', { game: 'mines', status: 'active' })).toBe(mineHit ? 0 : 1);
    expect(sample(text, 'gp_rounds_open', { game: 'dice', status: 'credit_pending' })).toBe(1);
    expect(sample(text, 'gp_wallet_retries_pending', { operator: 'op-metrics', operation: 'credit' })).toBe(1);
    expect(sample(text, 'gp_ready')).toBe(1);
    expect(text).toMatch(/^gp_db_pool_connections\{state="used"\} \d+$/m);
    expect(text).toMatch(/^gp_db_pool_connections\{state="pending"\} \d+$/m);
    // the hot statements: a settled bet's three, at least (alone or batched: store/statement-batches.ts)
    expect(delta('gp_db_hot_statements_total')).toBeGreaterThanOrEqual(4 * 3);
    expect(delta('gp_db_hot_batches_total')).toBeGreaterThanOrEqual(1);
    expect(delta('gp_db_hot_batches_total')).toBeLessThanOrEqual(delta('gp_db_hot_statements_total'));
    expect(text).toMatch(/^gp_db_hot_statements_resent_total 0$/m);
    expect(text).toMatch(/^gp_db_hot_statements_waiting 0$/m);
    expect(text).toMatch(/^gp_nodejs_eventloop_lag_seconds \d/m);
    expect(text).toMatch(/^gp_process_cpu_seconds_total \d/m);
    // V8's bytes allocated (the bench's allocations per bet): grown by the bets, where the runtime reports it (Node 26, CI's and the image's)
    if (typeof (v8.getHeapStatistics() as { total_allocated_bytes?: number }).total_allocated_bytes === 'number')
      expect(delta('gp_nodejs_heap_allocated_bytes_total')).toBeGreaterThan(100_000);
    else expect(text).not.toMatch(/gp_nodejs_heap_allocated_bytes_total/);

    // no player, round or session id, nor a launch token, in any label
    for (const id of [p.playerRef, p.sessionId, p.launchToken, String(first.body.roundId), String(mines.body.roundId), String(pending.body.roundId)]) {
      expect(text.includes(id), id).toBe(false);
    }

    // the cron run credits it; the gauge drops
    expect((await w.cron('operatorId=op-metrics&limit=10')).body.succeeded).toBe(1);
    const after = await scrape();
    expect(sample(after, 'gp_wallet_retries_pending', { operator: 'op-metrics', operation: 'credit' })).toBe(0);
    expect(sample(after, 'gp_rounds_total', { game: 'dice', status: 'settled' }) - sample(text, 'gp_rounds_total', { game: 'dice', status: 'settled' })).toBe(
      1,
    );
  });

  it('is served on its own listener, GET /metrics only', async () => {
    const server = await startMetricsServer(w.t.services.metrics, '127.0.0.1', 0);
    try {
      const res = await fetch(server.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toMatch(/^# HELP gp_http_request_duration_seconds /m);
      expect((await fetch(server.url.replace('/metrics', '/'))).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe('the wallet circuit (per process)', () => {
  it('opens after 5 unanswered calls: visible in gp_wallet_circuit_open and /ready, new bets refused, pending credits and rollbacks still sent', async () => {
    const p = await w.player('circuit-a', { operatorId: 'op-circuit' });
    // credit unanswered twice (2 failures), then a debit and its rollback unanswered twice each (4 more)
    w.casino.setFaults([{ path: '/wallet/credit', kind: 'status', status: 503, times: 2, operatorId: 'op-circuit' }]);
    const credit = await w.bet(p, 'dice', 1, { target: 50, direction: 'over' });
    expect(credit.body.roundStatus).toBe('credit_pending');
    w.casino.setFaults([{ path: '*', kind: 'drop', times: 4, operatorId: 'op-circuit' }]);
    const rolled = await w.bet(p, 'dice', 1, { target: 50, direction: 'over' });
    expect(rolled.body.roundStatus).toBe('rollback_pending');
    w.casino.clearFaults();

    expect(w.t.services.wallet.circuitOpen('op-circuit')).toBe(true);
    expect(sample(await scrape(), 'gp_wallet_circuit_open', { operator: 'op-circuit' })).toBe(1);
    const ready = await w.call('GET', '/ready?operatorId=op-circuit');
    expect(ready.status).toBe(503);
    expect((ready.body.checks as Record<string, string>).operator).toBe('wallet circuit open');
    // another operator's readiness does not depend on this circuit
    expect((await w.call('GET', '/ready?operatorId=op-metrics')).status).toBe(200);

    // a new round is refused before any money moves
    const debitsBefore = w.casino.requests().filter((r) => r.path === '/wallet/debit').length;
    const refused = await w.bet(p, 'dice', 1, { target: 50, direction: 'over' });
    expect(refused.status).toBe(502);
    expect(refused.body.code).toBe('CASINO_NETWORK_ERROR');
    expect(w.casino.requests().filter((r) => r.path === '/wallet/debit').length).toBe(debitsBefore);

    // the retry job still sends the pending credit and rollback while the circuit is open
    expect(w.t.services.wallet.circuitOpen('op-circuit')).toBe(true);
    const cron = await w.cron('operatorId=op-circuit&limit=10');
    expect(cron.status).toBe(200);
    expect(cron.body.succeeded).toBe(2);
    expect(w.requestsOf(`${credit.body.roundId}:credit`).length).toBe(3);
    expect(w.requestsOf(`${rolled.body.roundId}:debit:rollback`).length).toBe(3);
    expect((await w.dbRound(String(credit.body.roundId))).status).toBe('settled');
    expect((await w.dbRound(String(rolled.body.roundId))).status).toBe('cancelled');
    // a confirmed call closes it again
    expect(w.t.services.wallet.circuitOpen('op-circuit')).toBe(false);
    expect(sample(await scrape(), 'gp_wallet_circuit_open', { operator: 'op-circuit' })).toBe(0);
    expect((await w.call('GET', '/ready?operatorId=op-circuit')).status).toBe(200);
  });
});

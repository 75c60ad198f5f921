/**
 * OpenTelemetry traces (issue 15 item 6), with an in-memory exporter: a server span per request
 * (continuing an incoming traceparent), a client span per wallet callback whose traceparent the
 * casino receives, spans of the PostgreSQL queries and Redis commands under the request, the round
 * id as an attribute. Off unless an OTEL_* variable names an exporter.
 */
import { tracing as sdk } from '@opentelemetry/sdk-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD } from '../../src/infra/build-info.js';
import { otelConfigured, startTracing, tracingEnabled, type TracingHandle } from '../../src/infra/tracing.js';
import { newKey, startTap, startWorld, type Tap, type World } from '../helpers/casino.js';

describe('tracing is configured only by OTEL_* variables', () => {
  it('is off with none of them, with OTEL_TRACES_EXPORTER=none, and with OTEL_SDK_DISABLED=true', async () => {
    expect(otelConfigured({})).toBe(false);
    expect(otelConfigured({ OTEL_SERVICE_NAME: 'gp' })).toBe(false);
    expect(otelConfigured({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(otelConfigured({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(false);
    expect(await startTracing({ env: {} })).toBeNull();
    expect(tracingEnabled()).toBe(false);
  });

  it('is on with an exporter or an OTLP endpoint', () => {
    expect(otelConfigured({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(otelConfigured({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(otelConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(otelConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
  });
});

describe('spans of a bet', () => {
  const exporter = new sdk.InMemorySpanExporter();
  let handle: TracingHandle | null;
  let tap: Tap;
  let w: World;
  beforeAll(async () => {
    handle = await startTracing({ spanProcessors: [new sdk.SimpleSpanProcessor(exporter)] });
    tap = await startTap();
    w = await startWorld([{ operatorId: 'op-trace', callbackBaseUrl: tap.url }]);
    tap.target = w.casino.url;
  });
  afterAll(async () => {
    await w?.close();
    await tap?.close();
    await handle?.shutdown();
  });

  it('a request span with the route and the round id; wallet, PostgreSQL and Redis spans under it; the casino gets the traceparent', async () => {
    const p = await w.player('trace-a', { operatorId: 'op-trace' });
    exporter.reset();
    tap.requests.length = 0;
    const incomingTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await w.call(
      'POST',
      '/api/bets',
      { sessionId: p.sessionId, gameType: 'dice', amount: 1, params: { target: 50, direction: 'over' }, idempotencyKey: newKey() },
      { traceparent: `00-${incomingTrace}-00f067aa0ba902b7-01` },
    );
    expect(res.status).toBe(200);
    const roundId = String(res.body.roundId);
    const spans = exporter.getFinishedSpans();
    const server = spans.find((s) => s.name === 'POST /api/bets');
    expect(server, spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(server!.spanContext().traceId).toBe(incomingTrace);
    expect(server!.attributes['http.route']).toBe('/api/bets');
    expect(server!.attributes['http.response.status_code']).toBe(200);
    expect(server!.attributes['gp.round_id']).toBe(roundId);

    const inTrace = spans.filter((s) => s.spanContext().traceId === incomingTrace);
    const wallet = inTrace.filter((s) => s.name.startsWith('wallet '));
    expect(wallet.map((s) => s.name).sort()).toEqual(['wallet /wallet/credit', 'wallet /wallet/debit']);
    const casino = new URL(tap.url);
    for (const s of wallet) {
      expect(s.attributes['gp.round_id']).toBe(roundId);
      expect(s.attributes['gp.wallet.outcome']).toBe('confirmed');
      expect(s.parentSpanContext?.spanId).toBe(server!.spanContext().spanId);
      // OpenTelemetry's HTTP client attributes: an APM draws the casino on its service map.
      expect(s.kind).toBe(2); // SpanKind.CLIENT
      expect(s.attributes['http.request.method']).toBe('POST');
      expect(s.attributes['url.full']).toBe(`${tap.url}${s.name.slice('wallet '.length)}`);
      expect(s.attributes['server.address']).toBe(casino.hostname);
      expect(s.attributes['server.port']).toBe(Number(casino.port));
      expect(s.attributes['http.response.status_code']).toBe(200);
      expect(s.resource.attributes['service.version']).toBe(BUILD.version);
      expect(s.resource.attributes['service.name']).toBe('game-provider');
    }
    // X-Request-Id: the request's id on each callback, beside the traceparent.
    for (const r of tap.requests.filter((x) => x.url.includes('/wallet/'))) expect(r.headers['x-request-id']).toBe(server!.attributes['gp.request_id']);
    // the casino received each callback's traceparent: this trace, the wallet span as parent
    const debit = tap.requests.find((r) => r.url.endsWith('/wallet/debit'))!;
    const debitSpan = wallet.find((s) => s.name === 'wallet /wallet/debit')!;
    expect(debit.headers.traceparent).toBe(`00-${incomingTrace}-${debitSpan.spanContext().spanId}-01`);

    const db = inTrace.filter((s) => s.attributes['db.system'] === 'postgresql' || s.attributes['db.system.name'] === 'postgresql');
    const redis = inTrace.filter((s) => s.attributes['db.system'] === 'redis' || s.attributes['db.system.name'] === 'redis');
    expect(db.length, inTrace.map((s) => s.name).join(', ')).toBeGreaterThanOrEqual(2);
    expect(redis.length, inTrace.map((s) => s.name).join(', ')).toBeGreaterThanOrEqual(1);
    // nothing secret in the attributes: no session id, launch token or operator secret
    const attributes = JSON.stringify(spans.map((s) => s.attributes));
    for (const secret of [p.sessionId, p.launchToken, 'secret-of-op-trace']) expect(attributes.includes(secret)).toBe(false);
  });

  it('a span per Mines action carries the round id; a request without traceparent starts its own trace', async () => {
    const p = await w.player('trace-b', { operatorId: 'op-trace', gameType: 'mines' });
    const start = await w.call('POST', '/api/mines/rounds', { sessionId: p.sessionId, amount: 1, idempotencyKey: newKey() });
    exporter.reset();
    const reveal = await w.call('POST', `/api/mines/rounds/${start.body.roundId}/reveal`, { sessionId: p.sessionId, tile: 3, idempotencyKey: newKey() });
    expect(reveal.status).toBe(200);
    const server = exporter.getFinishedSpans().find((s) => s.name === 'POST /api/mines/rounds/:roundId/reveal')!;
    expect(server.attributes['gp.round_id']).toBe(start.body.roundId);
    expect(server.parentSpanContext).toBeUndefined();
  });
});

/**
 * OpenTelemetry traces (CONTRACT.md §1 `OTEL_*`, §6 `traceparent`). Configured only by the
 * standard OTEL_* variables: on when an exporter is named (`OTEL_TRACES_EXPORTER` other than
 * `none`) or an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), off with `OTEL_SDK_DISABLED=true`. Off, nothing of the
 * SDK is even loaded and every helper below is one boolean test.
 *
 * Spans: one per request (http/request-tracing.ts), one per wallet callback (wallet-client.ts,
 * which sends its `traceparent` to the casino), one per PostgreSQL query and Redis command (the
 * pg and ioredis instrumentations); the round id is the `gp.round_id` attribute.
 */
import { createRequire } from 'node:module';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import type { NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { BUILD } from './build-info.js';
import { noteRequest } from './request-context.js';

type SpanProcessor = NonNullable<NodeSDKConfiguration['spanProcessors']>[number];

let tracer: Tracer | null = null;

/** True once startTracing() started the SDK. */
export const tracingEnabled = (): boolean => tracer !== null;

export const ROUND_ID_ATTRIBUTE = 'gp.round_id';

/** Does this environment turn tracing on (standard OTEL_* variables only)? */
export function otelConfigured(env: Record<string, string | undefined>): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (exporters.length > 0) return exporters.some((e) => e !== 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

export interface TracingHandle {
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry SDK when the environment asks for it (or when a test passes its own
 * span processors): exporter, sampler, propagators and resource come from OTEL_* as the SDK reads
 * them. Call before the app is built. Answers null when tracing stays off.
 */
export async function startTracing(opts: { env?: Record<string, string | undefined>; spanProcessors?: SpanProcessor[] } = {}): Promise<TracingHandle | null> {
  const env = opts.env ?? process.env;
  if (tracer) throw new Error('tracing is already started');
  if (!opts.spanProcessors && !otelConfigured(env)) return null;
  const { NodeSDK, resources } = await import('@opentelemetry/sdk-node');
  const { PgInstrumentation } = await import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } = await import('@opentelemetry/instrumentation-ioredis');
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName: 'game-provider' }),
    // service.version: the build (OTEL_RESOURCE_ATTRIBUTES' service.version wins when set).
    resource: resources.resourceFromAttributes({ 'service.version': BUILD.version }),
    instrumentations: [new PgInstrumentation({ requireParentSpan: true }), new IORedisInstrumentation({ requireParentSpan: true })],
    ...(opts.spanProcessors ? { spanProcessors: opts.spanProcessors } : {}),
  });
  sdk.start();
  // pg (required by knex) and ioredis (imported as ES modules) may be loaded already: requiring
  // them again through the CommonJS loader lets the instrumentations patch their prototypes.
  const require = createRequire(import.meta.url);
  require('pg');
  require('ioredis');
  tracer = trace.getTracer('game-provider');
  return {
    async shutdown() {
      tracer = null;
      await sdk.shutdown();
    },
  };
}

/** Runs `fn` inside a new span (a no-op pass-through when tracing is off). */
export function inSpan<T>(name: string, kind: 'client' | 'internal', attributes: Attributes, fn: (span: Span | null) => Promise<T>): Promise<T> {
  if (!tracer) return fn(null);
  return tracer.startActiveSpan(name, { kind: kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The W3C `traceparent` (and `tracestate`) of the active span, for an outgoing request; {} when off. */
export function traceHeaders(): Record<string, string> {
  if (!tracer) return {};
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/**
 * OpenTelemetry's HTTP client span attributes (semantic conventions 1.2x) of a call: method, the
 * full URL without credentials, query or fragment, the server's host name and port.
 */
export function httpClientAttributes(method: string, url: string): Attributes {
  try {
    const u = new URL(url);
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : u.protocol === 'http:' ? 80 : undefined;
    return {
      'http.request.method': method,
      'url.full': `${u.protocol}//${u.host}${u.pathname}`,
      'server.address': u.hostname.replace(/^\[|\]$/g, ''),
      ...(port !== undefined ? { 'server.port': port } : {}),
    };
  } catch {
    return { 'http.request.method': method };
  }
}

/** Marks the active span (the request's) with the round it works on. */
export function annotateRound(roundId: string): void {
  noteRequest({ roundId }); // the access log line names the round too, tracing on or off
  if (!tracer) return;
  trace.getActiveSpan()?.setAttribute(ROUND_ID_ATTRIBUTE, roundId);
}

/** The tracer, for the request spans (http/request-tracing.ts); null when off. */
export const activeTracer = (): Tracer | null => tracer;

/** Pino mixin: the trace and span ids of the active span on every log line (nothing when off). */
export function logTraceIds(): Record<string, string> {
  if (!tracer) return {};
  const ctx = trace.getActiveSpan()?.spanContext();
  return ctx ? { trace_id: ctx.traceId, span_id: ctx.spanId } : {};
}

/**
 * Per-request observability: the latency histogram of every answer (by method, matched route
 * pattern and status), request ids, and, when tracing is on (infra/tracing.ts), a server span
 * per request that the route's hooks and handler run inside, so the spans of its PostgreSQL
 * queries, Redis commands and wallet callbacks are its children.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import {
  LogController,
  type FastifyBaseLogger,
  type FastifyServerOptions,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RouteOptions,
} from 'fastify';
import type { Metrics } from '../infra/metrics.js';
import { noteRequest, requestLogFields, runWithRequest } from '../infra/request-context.js';
import { activeTracer } from '../infra/tracing.js';

/** Route label of a request no route matched (404s, router refusals). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Records every answer in gp_http_request_duration_seconds. */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequest(request.method, request.routeOptions.url ?? UNMATCHED_ROUTE, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}

/**
 * The access log: one line per request when it ends (method, masked URL, status, time, request
 * id), where Fastify writes two (incoming, completed). The line an SRE reads has every field,
 * and a bet pays for one redacted log line instead of two (docs/performance.md).
 */
export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    this.write(error, request, reply, reply.elapsedTime);
  }

  /**
   * Fastify's `frameworkErrors` handler, wrapped so its answers are logged too. The router's own
   * refusals (a bad URL encoding such as `/api/bets/%FF`, a path parameter past its length limit)
   * are answered before any route runs, and Fastify sets up no end-of-request log for them: the
   * line is written here when the answer has been sent, like every other request's.
   */
  logged<A extends unknown[]>(handler: (err: unknown, request: FastifyRequest, reply: FastifyReply, ...rest: A) => void) {
    return (err: unknown, request: FastifyRequest, reply: FastifyReply, ...rest: A): void => {
      const started = performance.now();
      const done = (error?: Error) => {
        reply.raw.off('finish', done).off('error', done);
        this.write(error, request, reply, performance.now() - started);
      };
      reply.raw.once('finish', done).once('error', done);
      // no onRequest hook ran: the request's notes (its error code, for the line) start here
      runWithRequest(request, () => handler(err, request, reply, ...rest));
    };
  }

  /** The root logger without redaction, for the success line only (below); made on first use. */
  private plain: FastifyBaseLogger | undefined;

  private write(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply, responseTime: number): void {
    if (this.isLogDisabled(request)) return;
    const about = accessLogFields(request);
    if (error) {
      reply.log.error({ req: request, res: reply, err: error, responseTime, ...about }, 'request errored');
      return;
    }
    // The success line has only fields we name here: reqId (a plain token or a UUID), req (the
    // method and the masked URL: the `req` serializer), res (the status: the `res` serializer),
    // responseTime, and operatorId / roundId / errorCode (requestLogFields). None of them is a
    // secret field of the redaction list (app.ts SECRET_FIELDS), so pino's redaction, which costs
    // more than the rest of the line (≈ 20× in a micro-benchmark: every key goes through a
    // redactor of ≈ 60 wildcard paths), could never change it: it is written without it, the
    // same bytes as before (docs/performance.md, issue 25). The error line keeps the redaction.
    // a route's own log level (reply.log) still decides
    if ((reply.log as { isLevelEnabled?(level: string): boolean }).isLevelEnabled?.('info') === false) return;
    this.plain ??= request.server.log.child({}, { redact: { paths: [] } });
    this.plain.info({ reqId: request.id, req: request, res: reply, responseTime, ...about }, 'request completed');
  }
}

/** operatorId (met by the request, else named by its body or query), roundId and errorCode of a request. */
function accessLogFields(request: FastifyRequest): Record<string, string> {
  const named = [request.body, request.query]
    .map((o) => (o && typeof o === 'object' ? (o as Record<string, unknown>).operatorId : undefined))
    .find((v): v is string => typeof v === 'string' && v.length <= 200);
  if (named) noteRequest({ operatorId: named }, request);
  return requestLogFields(request);
}

/** A symbol of pino's, found on the logger by its description (pino exports it as `pino.symbols`, a dependency of Fastify, not ours). */
function pinoSymbol(logger: object, description: string): symbol | null {
  for (let o: object | null = logger; o !== null; o = Object.getPrototypeOf(o) as object | null) {
    const found = Object.getOwnPropertySymbols(o).find((sym) => sym.description === description);
    if (found) return found;
  }
  return null;
}

/**
 * Fastify's `childLoggerFactory`: the logger of each request, bound to its request id. Pino's
 * `child({ reqId })` passes the binding through the redaction (≈ 60 wildcard paths: 6 µs and
 * 11 KiB of garbage a request, measured for issue 25) although a request id is never secret
 * (a plain token or a UUID, `requestId` below) and `reqId` is no secret field: so the child is
 * made without bindings and given the same `,"reqId":"…"` text pino would have written.
 * Everything the request then logs through it is redacted as before. Any other binding or
 * option (a route's log level) takes pino's own path.
 */
export function requestLoggerFactory(): NonNullable<FastifyServerOptions['childLoggerFactory']> {
  let chindings: symbol | null | undefined;
  return function childLogger(logger, bindings: Record<string, unknown>, opts) {
    chindings ??= pinoSymbol(logger, 'pino.chindings');
    const keys = Object.keys(bindings);
    const value = bindings.reqId;
    if (chindings === null || keys.length !== 1 || keys[0] !== 'reqId' || typeof value !== 'string' || Object.keys(opts).length > 0) {
      return logger.child(bindings, opts);
    }
    const child = logger.child({}) as FastifyBaseLogger & Record<symbol, string>;
    child[chindings] = `${(logger as unknown as Record<symbol, string>)[chindings]},"reqId":${JSON.stringify(value)}`;
    return child;
  };
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Fastify's genReqId: the caller's `X-Request-Id` when it is a plain token (a proxy's id keeps
 * one id across hops), else a new UUID; unique across pods, unlike Fastify's per-process counter.
 */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * Answers carry their request id, so a client's report finds its log lines. While the process
 * shuts down (server.ts) every answer also closes its connection, so keep-alive clients move to
 * another pod.
 */
export function registerAnswerHeaders(app: FastifyInstance, lifecycle: { shuttingDown: boolean }): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    void reply.header('x-request-id', request.id);
    if (lifecycle.shuttingDown) void reply.header('connection', 'close');
    done(null, payload);
  });
}

const kContext = Symbol('gp.traceContext');
const kSpan = Symbol('gp.span');
type Traced = FastifyRequest & { [kContext]?: Context; [kSpan]?: Span };

type Hook = (this: unknown, ...args: unknown[]) => unknown;

/** Runs a route function inside its request's trace context. */
function inRequestContext(fn: Hook): Hook {
  return function (this: unknown, ...args: unknown[]) {
    const ctx = (args[0] as Traced)[kContext];
    return ctx ? context.with(ctx, fn, this, ...args) : fn.apply(this, args);
  };
}

const ROUTE_HOOKS = ['onRequest', 'preParsing', 'preValidation', 'preHandler'] as const;

/**
 * A server span per request (the incoming `traceparent` continued), named by the matched route
 * pattern. Register after every plugin that adds route hooks (authentication, rate limits) and
 * before the routes: each route's hooks and handler are wrapped to run in the span's context.
 * Only called when tracing is on.
 */
export function registerRequestTracing(app: FastifyInstance): void {
  const tracer = activeTracer();
  if (!tracer) return;
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer.startSpan(
      `${request.method} ${route}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'http.route': route, 'gp.request_id': request.id } },
      parent,
    );
    const r = request as Traced;
    r[kSpan] = span;
    r[kContext] = trace.setSpan(parent, span);
    context.with(r[kContext], done);
  });
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    const span = (request as Traced)[kSpan];
    if (span) {
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
  app.addHook('onRoute', (route: RouteOptions) => {
    route.handler = inRequestContext(route.handler as Hook) as RouteOptions['handler'];
    const r = route as unknown as Record<string, Hook | Hook[] | undefined>;
    for (const name of ROUTE_HOOKS) {
      const hooks = r[name];
      if (hooks) r[name] = Array.isArray(hooks) ? hooks.map(inRequestContext) : inRequestContext(hooks);
    }
  });
}

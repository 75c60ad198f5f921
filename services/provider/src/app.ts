/**
 * The application factory: the services (services.ts), then the Fastify app in a visible order —
 * logging, lossless JSON parsing and serialising, the error envelope, authentication (which every
 * route declares), the OpenAPI collector, then the routes (http/routes/index.ts).
 */
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import Fastify from 'fastify';
import type { Config } from './config.js';
import { AppError } from './errors.js';
import { CSRF_COOKIE, registerAuthentication } from './http/authentication.js';
import { frameworkErrors, registerErrorHandler } from './http/error-handler.js';
import { AccessLog, registerAnswerHeaders, registerRequestMetrics, registerRequestTracing, requestId, requestLoggerFactory } from './http/observability.js';
import { runWithRequest } from './infra/request-context.js';
import { registerOpenApi } from './http/openapi.js';
import { registerRateLimits } from './http/rate-limits.js';
import { logTraceIds } from './infra/tracing.js';
import { registerRoutes } from './http/routes/index.js';
import { zodSerializerCompiler, zodValidatorCompiler, type AppInstance, type ZodTypeProvider } from './http/zod-provider.js';
import { answerText, parseJson } from './infra/json.js';
import { stdoutDestination } from './infra/log-destination.js';
import { registerTenantShare } from './http/tenant-share.js';
import { closeServices, createServices, type ServiceOptions, type Services } from './services.js';

export type { AppInstance } from './http/zod-provider.js';
export type { Services } from './services.js';

export interface BuildOptions extends ServiceOptions {
  logger?: boolean | Record<string, unknown>;
  /** Log every request and its answer (off in tests unless asked: the log scan test asks). */
  requestLogging?: boolean;
}

const MAX_BODY_BYTES = 64 * 1024;

/** Query parameters whose values never reach a log line: launch tokens and session ids (a session id is the player's key). */
const SECRET_QUERY = /([?&](?:token|launchToken|sessionId|secret|sharedSecret)=)[^&#]*/gi;
/** Session ids in paths (`/api/sessions/<id>/free-bets`): any segment after `sessions/`, however the path is spelled. */
const SECRET_PATH = /(\/sessions\/+)(?!end(?:[/?#]|$))[^/?#]+/gi;
export const maskUrl = (url: string) => url.replace(SECRET_PATH, '$1[redacted]').replace(SECRET_QUERY, '$1[redacted]');

/** Field names whose values never reach a log line, at any of the first three levels of a logged object. */
const SECRET_FIELDS = [
  'authorization',
  'cookie',
  '"set-cookie"',
  '"x-signature"',
  'sharedSecret',
  'secret',
  'launchToken',
  'token',
  'sessionId',
  'password',
  'signature',
  'cronSecret',
  'adminToken',
  'secretKey',
  'serverSeed',
  'CRON_SECRET',
  'ADMIN_TOKEN',
  'SECRET_KEY',
  'DATABASE_URL',
  'REDIS_URL',
];
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-signature"]',
  'res.headers["set-cookie"]',
  ...SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`]),
];

/**
 * Pino options: JSON lines with the request id (`reqId`) and, when tracing is on, the trace and
 * span ids; no secret ever reaches a log line (the fields above are censored, tokens and session
 * ids in query strings and paths are masked).
 */
function loggerOptions(config: Config, override: BuildOptions['logger']) {
  if (override === false) return false;
  return {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    mixin: logTraceIds,
    serializers: {
      req(req: { method: string; url: string }) {
        return { method: req.method, url: maskUrl(req.url) };
      },
    },
    // standard output, one write per turn of the event loop (infra/log-destination.ts); a test's own stream replaces it
    ...(typeof override === 'object' && 'stream' in override ? {} : { stream: stdoutDestination() }),
    ...(typeof override === 'object' ? override : {}),
  };
}

export async function buildApp(config: Config, opts: BuildOptions = {}): Promise<{ app: AppInstance; services: Services }> {
  const services = await createServices(config, opts);
  const accessLog = new AccessLog({ disableRequestLogging: opts.requestLogging === undefined ? config.env === 'test' : !opts.requestLogging });
  const app = Fastify({
    logger: loggerOptions(config, opts.logger),
    bodyLimit: MAX_BODY_BYTES,
    logController: accessLog,
    genReqId: requestId,
    childLoggerFactory: requestLoggerFactory(),
    // A hop count trusts that many proxies in front (Fastify's own reading of a number).
    trustProxy: typeof config.trustProxy === 'number' ? (_address: string, hop: number) => hop < (config.trustProxy as number) : config.trustProxy,
    routerOptions: { maxParamLength: 500, ignoreTrailingSlash: true },
    frameworkErrors: accessLog.logged(frameworkErrors),
  }).withTypeProvider<ZodTypeProvider>() as AppInstance;

  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(
    zodSerializerCompiler({
      strict: config.env === 'test',
      onMismatch: (route, issues) => app.log.error({ route, issues }, 'an answer does not fit its schema'),
    }),
  );
  // an answer already written for its idempotency record is sent as written (infra/json.ts stringifyAnswer)
  app.setReplySerializer((payload) => answerText(payload));
  registerErrorHandler(app);

  // Lossless JSON bodies (CONTRACT.md §3); the raw text is kept for signed operator requests.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', 'application/*+json'], { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    request.rawBody = text;
    try {
      done(null, text.trim() === '' ? undefined : parseJson(text));
    } catch {
      done(new AppError('VALIDATION_ERROR', 'the request body is not valid JSON'), undefined);
    }
  });
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, _body, done) => {
    done(new AppError('VALIDATION_ERROR', 'the request body must be application/json'), undefined);
  });

  registerRequestMetrics(app, services.metrics);
  // The request id travels with the async context: wallet callbacks send it as X-Request-Id.
  app.addHook('onRequest', (request, _reply, done) => runWithRequest(request, done));
  registerAnswerHeaders(app, services.lifecycle);
  // The admin console's session cookie and CSRF tokens (issue 13; http/authentication.ts `staff`).
  await app.register(fastifyCookie);
  await app.register(fastifyCsrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: CSRF_COOKIE,
    cookieOpts: { path: '/', sameSite: 'strict', httpOnly: true, secure: config.production },
    getToken: (request) => {
      const v = request.headers['x-csrf-token'];
      return typeof v === 'string' ? v : '';
    },
  });
  registerAuthentication(app, services);
  await registerRateLimits(app, services);
  registerTenantShare(app, services);
  // After every plugin that adds route hooks, before the routes (a no-op when tracing is off).
  registerRequestTracing(app);
  registerOpenApi(app, config.publicBaseUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`);
  registerRoutes(app, services);
  // One structured event per wallet callback that was not a plain success (services.ts).
  services.walletLog.logger = app.log;

  app.addHook('onClose', async () => closeServices(services));
  return { app, services };
}

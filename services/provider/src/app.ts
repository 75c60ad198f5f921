/**
 * The application factory: the services (services.ts), then the Fastify app in a visible order —
 * logging, lossless JSON parsing and serialising, the error envelope, authentication (which every
 * route declares), the OpenAPI collector, then the routes (http/routes/index.ts).
 */
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import Fastify, { LogController } from 'fastify';
import type { Config } from './config.js';
import { AppError } from './errors.js';
import { CSRF_COOKIE, registerAuthentication } from './http/authentication.js';
import { frameworkErrors, registerErrorHandler } from './http/error-handler.js';
import { registerOpenApi } from './http/openapi.js';
import { registerRoutes } from './http/routes/index.js';
import { zodSerializerCompiler, zodValidatorCompiler, type AppInstance, type ZodTypeProvider } from './http/zod-provider.js';
import { parseJson, stringifyJson } from './infra/json.js';
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
export const maskUrl = (url: string) => url.replace(SECRET_QUERY, '$1[redacted]');

/** Pino options: no secret ever reaches a log line (tokens and session ids in query strings are masked). */
function loggerOptions(config: Config, override: BuildOptions['logger']) {
  if (override === false) return false;
  return {
    level: config.logLevel,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-signature"]', 'res.headers["set-cookie"]', '*.sharedSecret', '*.launchToken', '*.sessionId', '*.password'],
      censor: '[redacted]',
    },
    serializers: {
      req(req: { method: string; url: string }) {
        return { method: req.method, url: maskUrl(req.url) };
      },
    },
    ...(typeof override === 'object' ? override : {}),
  };
}

export async function buildApp(config: Config, opts: BuildOptions = {}): Promise<{ app: AppInstance; services: Services }> {
  const services = await createServices(config, opts);
  const app = Fastify({
    logger: loggerOptions(config, opts.logger),
    bodyLimit: MAX_BODY_BYTES,
    logController: new LogController({ disableRequestLogging: opts.requestLogging === undefined ? config.env === 'test' : !opts.requestLogging }),
    trustProxy: true,
    routerOptions: { maxParamLength: 500, ignoreTrailingSlash: true },
    frameworkErrors,
  }).withTypeProvider<ZodTypeProvider>() as AppInstance;

  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(zodSerializerCompiler({ strict: config.env === 'test', onMismatch: (route, issues) => app.log.error({ route, issues }, 'an answer does not fit its schema') }));
  app.setReplySerializer((payload) => stringifyJson(payload));
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
  registerOpenApi(app, config.publicBaseUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`);
  registerRoutes(app, services);

  app.addHook('onClose', async () => closeServices(services));
  return { app, services };
}

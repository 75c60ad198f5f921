/**
 * The application factory: builds the Fastify app and its services from a Config.
 * Order: stores (database, Redis or in-process), domain services, then HTTP plugins and routes.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawReplyDefaultExpression, type RawRequestDefaultExpression, type RawServerDefault } from 'fastify';
import type { Config } from './config.js';
import { AppError } from './errors.js';
import { registerErrorHandler } from './http/error-handler.js';
import { parseJson, stringifyJson } from './http/json.js';
import { registerOpenApi } from './http/openapi.js';
import { losslessSerializerCompiler, zodValidatorCompiler, type ZodTypeProvider } from './http/zod-provider.js';
import { createKeyValueStore, type KeyValueStore } from './infra/kv.js';
import { createSecretBox, resolveSecretKey, type SecretBox } from './infra/secret-box.js';
import { ensureDemoOperator } from './operators/operators.js';
import { createOperatorStore, type OperatorStore } from './operators/operator-store.js';
import { createSessionService, type SessionService } from './sessions/sessions.js';
import { openDatabase, type DbHandle } from './store/db.js';
import { createDemoCasino, type DemoCasino } from './wallet/demo-casino.js';
import { createWalletClient, httpTransport, type WalletClient, type WalletTransport } from './wallet/wallet-client.js';
import { healthRoutes } from './http/routes/health.js';
import { adminOperatorRoutes } from './http/routes/admin-operators.js';
import { operatorConfigRoutes } from './http/routes/operator-config.js';
import { sandboxRoutes } from './http/routes/sandbox.js';
import { sessionRoutes } from './http/routes/sessions.js';
import { betRoutes } from './http/routes/bets.js';
import { walletRetryRoutes } from './http/routes/wallet-retries.js';
import { reconciliationRoutes } from './http/routes/reconciliation.js';
import { fairnessRoutes } from './http/routes/fairness.js';
import { minesRoutes } from './http/routes/mines.js';
import { blackjackRoutes } from './http/routes/blackjack.js';
import { gamePageRoutes } from './http/routes/game-page.js';
import { retryPending } from './rounds/retries.js';
import type { RoundDeps } from './rounds/round-actions.js';

export type AppInstance = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, ZodTypeProvider>;

export interface Services {
  config: Config;
  dbHandle: DbHandle;
  db: DbHandle['db'];
  kv: KeyValueStore;
  box: SecretBox;
  operators: OperatorStore;
  wallet: WalletClient;
  demoCasino: DemoCasino;
  sessions: SessionService;
  /** What the money path needs (rounds/). */
  money: RoundDeps;
  startedAt: number;
  /** Work started in the background (retries of a new session), awaited on close. */
  background: Set<Promise<unknown>>;
}

export interface BuildOptions {
  /** Replaces the HTTP transport of wallet callbacks (tests of transport faults). */
  httpTransport?: WalletTransport;
  logger?: boolean | Record<string, unknown>;
}

const MAX_BODY_BYTES = 64 * 1024;

export async function createServices(config: Config, opts: BuildOptions = {}): Promise<Services> {
  const dbHandle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const kv = createKeyValueStore(config.redisUrl, config.redisKeyPrefix);
  const box = createSecretBox(resolveSecretKey({ secretKey: config.secretKey, production: config.production, dataDir: config.dataDir, persist: config.env !== 'test' }));
  const operators = createOperatorStore(box);
  const db = dbHandle.db;
  const demoCasino = createDemoCasino(db);
  const wallet = createWalletClient({ timeoutMs: config.callbackTimeoutMs, http: opts.httpTransport ?? httpTransport(), sandbox: demoCasino });
  if (config.demoOperator) await ensureDemoOperator(db, operators);
  const background = new Set<Promise<unknown>>();
  const sessions = createSessionService({
    db,
    box,
    operators,
    wallet,
    // A new session starts the retries of that player's pending credits and rollbacks, in the background.
    retryPlayer: (operatorId, playerRef) => {
      const p = retryPending(money, { operatorId, playerRef, limit: 100 }).catch(() => undefined);
      background.add(p);
      void p.finally(() => background.delete(p));
    },
  });
  const money: RoundDeps = { db, box, operators, wallet, config, sessions, kv };
  return { config, dbHandle, db, kv, box, operators, wallet, demoCasino, sessions, money, startedAt: Date.now(), background };
}

export async function closeServices(s: Services): Promise<void> {
  await Promise.allSettled([...s.background]);
  await s.wallet.close().catch(() => undefined);
  await s.kv.close().catch(() => undefined);
  await s.dbHandle.close();
}

/** Pino options: no secret ever reaches a log line (tokens in query strings are masked). */
function loggerOptions(config: Config, override: BuildOptions['logger']) {
  if (override === false) return false;
  return {
    level: config.logLevel,
    redact: { paths: ['req.headers.authorization', 'req.headers["x-signature"]', '*.sharedSecret', '*.launchToken'], censor: '[redacted]' },
    serializers: {
      req(req: { method: string; url: string }) {
        return { method: req.method, url: req.url.replace(/([?&](?:token|launchToken)=)[^&]*/gi, '$1[redacted]') };
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
    disableRequestLogging: config.env === 'test',
    trustProxy: true,
    routerOptions: { maxParamLength: 500, ignoreTrailingSlash: true },
  }).withTypeProvider<ZodTypeProvider>() as AppInstance;

  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(losslessSerializerCompiler);
  app.setReplySerializer((payload) => stringifyJson(payload));
  registerErrorHandler(app);

  // Lossless JSON bodies (CONTRACT.md §3); the raw text is kept for signed operator requests.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', 'application/*+json'], { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    (request as unknown as { rawBody: string }).rawBody = text;
    try {
      done(null, text.trim() === '' ? undefined : parseJson(text));
    } catch {
      done(new AppError('VALIDATION_ERROR', 'the request body is not valid JSON'), undefined);
    }
  });
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, _body, done) => {
    done(new AppError('VALIDATION_ERROR', 'the request body must be application/json'), undefined);
  });

  registerOpenApi(app);
  healthRoutes(app, services);
  adminOperatorRoutes(app, services);
  operatorConfigRoutes(app, services);
  sandboxRoutes(app, services);
  sessionRoutes(app, services);
  betRoutes(app, services);
  walletRetryRoutes(app, services);
  reconciliationRoutes(app, services);
  fairnessRoutes(app, services);
  minesRoutes(app, services);
  blackjackRoutes(app, services);
  gamePageRoutes(app, services);

  app.addHook('onClose', async () => closeServices(services));
  return { app, services };
}

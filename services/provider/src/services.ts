/**
 * The composition root: the stores (database, Redis or in-process), the secret box, the operator
 * store, the wallet client and the demo casino, the sessions, and what the money path needs —
 * built from a Config, closed together. The HTTP app (app.ts) is built on top.
 */
import { awardCountsByOperator } from './rounds/promotions/award-store.js';
import { hostname } from 'node:os';
import type { Config } from './config.js';
import { createKeyValueStore, type KeyValueStore } from './infra/kv.js';
import { createMetrics, walletOutcomeLabel, type Metrics } from './infra/metrics.js';
import { createSecretBox, resolveSecretKey, type SecretBox } from './infra/secret-box.js';
import { ensureDemoOperator } from './operators/operators.js';
import { createOperatorStore, type OperatorStore } from './operators/operator-store.js';
import type { RoundDeps } from './rounds/round-actions.js';
import { createRetryScheduler, type RetryScheduler } from './rounds/retry-scheduler.js';
import { createPromotionRunner, type PromotionRunner } from './rounds/promotions/promotion-runner.js';
import { countOpenRounds } from './rounds/round-store/work.js';
import { retriesOnSessionStart } from './rounds/wallet-retry-job.js';
import { oldestPendingAges } from './rounds/pending-age.js';
import { currentRequestId, noteRequest } from './infra/request-context.js';
import { createWebhookDispatcher, type WebhookDispatcher } from './webhooks/dispatcher.js';
import { enqueueEvent } from './webhooks/webhook-store.js';
import { createSessionService, type SessionService } from './sessions/sessions.js';
import { batchesOf, openDatabase, type DbHandle } from './store/db.js';
import { loadTimePartitions } from './rounds/round-store/partitions.js';
import { createDemoCasino, type DemoCasino } from './wallet/demo-casino.js';
import { createOperatorBulkheads } from './wallet/operator-bulkhead.js';
import { createWalletClient, httpTransport, type WalletClient, type WalletTransport } from './wallet/wallet-client.js';

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
  metrics: Metrics;
  /** Set on SIGTERM (server.ts): /ready answers 503 from then on. */
  lifecycle: { shuttingDown: boolean };
  /** The in-service wallet retry scheduler (started when WALLET_RETRY_SCHEDULER is on). */
  retryScheduler: RetryScheduler;
  /** Operators' webhooks: the outbox dispatcher (started when WEBHOOKS is on). */
  webhooks: WebhookDispatcher;
  /** Promotions: drop draws, tournament standings, promo credits (started when PROMOTIONS is on). */
  promotions: PromotionRunner;
  /** Where the wallet events go (app.ts sets the app's logger). */
  walletLog: { logger: WalletEventLogger | null };
}

/** The part of a pino logger the wallet events use. */
export interface WalletEventLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface ServiceOptions {
  /** Replaces the HTTP transport of wallet callbacks (tests of transport faults). */
  httpTransport?: WalletTransport;
}

export async function createServices(config: Config, opts: ServiceOptions = {}): Promise<Services> {
  const dbHandle = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    hotBatches: config.hotBatches,
    migrate: config.migrateOnStart,
  });
  // the months of rounds and callbacks, so a bet's statements name its month's partitions (round-store/partitions.ts)
  await loadTimePartitions(dbHandle.db).catch(() => undefined);
  const kv = createKeyValueStore(config.redisUrl, config.redisKeyPrefix);
  const box = createSecretBox(
    resolveSecretKey({ secretKey: config.secretKey, production: config.production, dataDir: config.dataDir, persist: config.env !== 'test' }),
  );
  const operators = createOperatorStore(box);
  const db = dbHandle.db;
  const demoCasino = createDemoCasino(db);
  const metrics = createMetrics();
  const walletLog: Services['walletLog'] = { logger: null };
  const wallet = createWalletClient({
    timeoutMs: config.callbackTimeoutMs,
    http: opts.httpTransport ?? httpTransport({ production: config.production, maxResponseBytes: config.tenantShare.walletMaxResponseBytes }),
    sandbox: demoCasino,
    bulkheads: createOperatorBulkheads({ maxInFlight: config.tenantShare.walletMaxInFlight, maxQueued: config.tenantShare.walletMaxQueued }),
    onCall: (operatorId, path, outcome, seconds, idempotencyKey) => {
      const label = walletOutcomeLabel(outcome.kind, outcome.errorCode);
      metrics.walletCall(
        operatorId,
        path.slice(8),
        label,
        seconds,
        outcome.kind === 'refused' || outcome.kind === 'conflict' ? (outcome.casinoCode ?? '') : null,
      );
      const roundId = idempotencyKey?.split(':')[0];
      noteRequest({ operatorId, roundId });
      // One structured event per callback that was not a plain success: refused, conflict,
      // ambiguous (timeout, network, 429/5xx, no JSON), or confirmed only on its retry.
      if (outcome.kind !== 'confirmed' || outcome.attempts > 1) {
        const event = {
          event: 'wallet_callback',
          reqId: currentRequestId(),
          operatorId,
          roundId,
          operation: path.slice(8),
          idempotencyKey,
          attempt: outcome.attempts,
          httpStatus: outcome.statusCode,
          casinoCode: outcome.casinoCode,
          errorCode: outcome.errorCode,
          latencyMs: Math.round(seconds * 1000),
          outcome: label,
        };
        if (outcome.kind === 'confirmed') walletLog.logger?.info(event, 'wallet callback confirmed on its retry');
        else walletLog.logger?.warn(event, `wallet callback ${label}`);
      }
    },
    // Each pod's circuit is its own: the event says which pod saw it (docs/integration.md "Webhooks").
    onCircuit: (operatorId, open) =>
      void enqueueEvent(
        db,
        operatorId,
        open ? 'wallet.circuit_opened' : 'wallet.circuit_closed',
        { instance: hostname(), at: new Date().toISOString() },
        null,
      ).catch(() => undefined),
  });
  if (config.demoOperator) await ensureDemoOperator(db, operators);
  const background = new Set<Promise<unknown>>();
  const sessions = createSessionService({
    db,
    box,
    operators,
    wallet,
    lifetimes: { idleMs: config.sessionIdleMs, maxMs: config.sessionMaxMs },
    retryPlayer: retriesOnSessionStart(
      () => money,
      background,
      (operatorId, s) => metrics.retryRun(operatorId, 'session', { claimed: s.scanned, settled: s.succeeded, failed: s.stillPending }),
    ),
  });
  const money: RoundDeps = { db, box, operators, wallet, config, sessions, kv, metrics, onStatus: metrics.roundReached };
  const webhooks = createWebhookDispatcher({ db, operators, production: config.production }, config.webhooks, (msg, err) =>
    console.error(msg, err instanceof Error ? err.message : String(err)),
  );
  const retryScheduler = createRetryScheduler(
    money,
    config.walletRetryScheduler,
    (msg, err) => console.error(msg, err instanceof Error ? err.message : String(err)),
    (operatorId, items) =>
      metrics.retryRun(operatorId, 'scheduler', {
        claimed: items.length,
        settled: items.filter((i) => i.outcome === 'succeeded').length,
        failed: items.filter((i) => i.outcome !== 'succeeded').length,
      }),
  );
  const promotions = createPromotionRunner(money, (msg, err) => console.error(msg, err instanceof Error ? err.message : String(err)));
  const services: Services = {
    config,
    dbHandle,
    db,
    kv,
    box,
    operators,
    wallet,
    demoCasino,
    sessions,
    money,
    startedAt: Date.now(),
    background,
    metrics,
    lifecycle: { shuttingDown: false },
    walletLog,
    retryScheduler,
    webhooks,
    promotions,
  };
  if (config.walletRetryScheduler.enabled) retryScheduler.start();
  if (config.promotions.enabled) promotions.start();
  if (config.webhooks.enabled) webhooks.start();
  metrics.setSources({
    openRounds: () => countOpenRounds(db),
    circuits: () => wallet.circuits(),
    ready: async () => (await readiness(services)).ready,
    pool: () => poolFigures(db),
    hotStatements: () => (dbHandle.mode === 'postgres' ? batchesOf(db).figures() : null),
    operatorIds: async () => (await db('operators').pluck('operator_id')) as string[],
    oldestPending: () => oldestPendingAges(db),
    promoCredits: () => awardCountsByOperator(db),
  });
  return services;
}

export interface Readiness {
  ready: boolean;
  checks: Record<string, string>;
}

/**
 * What /ready answers (CONTRACT.md §13): the database, Redis (or `in-process`), and for an
 * operator (the query's, else READINESS_OPERATOR_ID) that it exists, is enabled and its wallet
 * circuit in this process is closed; no casino call. A process shutting down is not ready.
 */
export async function readiness(s: Services, operatorId?: string): Promise<Readiness> {
  const checks: Record<string, string> = {};
  if (s.lifecycle.shuttingDown) checks.shutdown = 'shutting down';
  try {
    await s.db.raw('select 1');
    checks.database = 'ok';
  } catch {
    checks.database = 'unreachable';
  }
  if (s.kv.mode === 'in-process') {
    checks.redis = 'in-process';
  } else {
    try {
      await s.kv.ping();
      checks.redis = 'ok';
    } catch {
      checks.redis = 'unreachable';
    }
  }
  const id = operatorId ?? s.config.readinessOperatorId;
  if (id) {
    if (checks.database !== 'ok') {
      checks.operator = 'unknown (database unreachable)';
    } else {
      const op = await s.operators.get(s.db, id);
      checks.operator = !op ? 'not found' : !op.enabled ? 'disabled' : s.wallet.circuitOpen(op.operatorId) ? 'wallet circuit open' : 'ok';
    }
  }
  return { ready: Object.values(checks).every((v) => v === 'ok' || v === 'in-process'), checks };
}

/** The PostgreSQL pool (knex's tarn pool) of this process; null for the embedded database. */
function poolFigures(db: Services['db']): { used: number; free: number; pending: number } | null {
  const pool = (db.client as { pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number } }).pool;
  if (!pool || typeof pool.numUsed !== 'function') return null;
  return { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires() };
}

export async function closeServices(s: Services): Promise<void> {
  await s.retryScheduler.stop();
  await s.promotions.stop();
  await s.webhooks.stop();
  await Promise.allSettled([...s.background]);
  await s.wallet.close().catch(() => undefined);
  await s.kv.close().catch(() => undefined);
  await s.dbHandle.close();
}

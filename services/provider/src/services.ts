/**
 * The composition root: the stores (database, Redis or in-process), the secret box, the operator
 * store, the wallet client and the demo casino, the sessions, and what the money path needs —
 * built from a Config, closed together. The HTTP app (app.ts) is built on top.
 */
import type { Config } from './config.js';
import { createKeyValueStore, type KeyValueStore } from './infra/kv.js';
import { createSecretBox, resolveSecretKey, type SecretBox } from './infra/secret-box.js';
import { ensureDemoOperator } from './operators/operators.js';
import { createOperatorStore, type OperatorStore } from './operators/operator-store.js';
import type { RoundDeps } from './rounds/round-actions.js';
import { runWalletRetryJob } from './rounds/wallet-retry-job.js';
import { createSessionService, type SessionService } from './sessions/sessions.js';
import { openDatabase, type DbHandle } from './store/db.js';
import { createDemoCasino, type DemoCasino } from './wallet/demo-casino.js';
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
}

export interface ServiceOptions {
  /** Replaces the HTTP transport of wallet callbacks (tests of transport faults). */
  httpTransport?: WalletTransport;
}

export async function createServices(config: Config, opts: ServiceOptions = {}): Promise<Services> {
  const dbHandle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, migrate: config.migrateOnStart });
  const kv = createKeyValueStore(config.redisUrl, config.redisKeyPrefix);
  const box = createSecretBox(resolveSecretKey({ secretKey: config.secretKey, production: config.production, dataDir: config.dataDir, persist: config.env !== 'test' }));
  const operators = createOperatorStore(box);
  const db = dbHandle.db;
  const demoCasino = createDemoCasino(db);
  const wallet = createWalletClient({ timeoutMs: config.callbackTimeoutMs, http: opts.httpTransport ?? httpTransport({ production: config.production }), sandbox: demoCasino });
  if (config.demoOperator) await ensureDemoOperator(db, operators);
  const background = new Set<Promise<unknown>>();
  const sessions = createSessionService({
    db,
    box,
    operators,
    wallet,
    // A new session starts the retries of that player's pending credits and rollbacks, in the background.
    retryPlayer: (operatorId, playerRef) => {
      const p = runWalletRetryJob(money, { operatorId, playerRef, limit: 100, sweepAbandoned: false }).catch(() => undefined);
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


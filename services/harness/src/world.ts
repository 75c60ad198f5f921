/**
 * One harness world: a fresh PostgreSQL database, a redis-server of our own, the reference
 * casino in its own process, and provider processes sharing both, with operator profiles on
 * both sides. Ports come from a base (HARNESS_PORT_BASE, default 3400) plus an offset per tool,
 * so the bench, the chaos run and the tests never collide.
 */
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CasinoControl } from './casino.js';
import { closePools, ProviderSet } from './client.js';
import { createRunDatabase, serverUrl, trackFunctionCalls, type RunDatabase } from './pg.js';
import { startWireCounter, type WireCounter } from './pg-wire-counter.js';
import { putOperator, providerEnv, runSecrets, type OperatorSpec, type RunSecrets } from './players.js';
import { startCasino, startProvider, startRedis, type CasinoProcess, type ProviderProcess, type RedisProcess } from './processes.js';

export const PORT_BASE = Number(process.env.HARNESS_PORT_BASE ?? 3400);
export const REDIS_PORT_BASE = Number(process.env.HARNESS_REDIS_PORT_BASE ?? 6394);

/** Port offsets (from PORT_BASE) and Redis ports (from REDIS_PORT_BASE) of each tool. */
export const SLOTS = {
  bench: { port: 0, redis: 0 },
  chaos: { port: 20, redis: 1 },
  chaosTest: { port: 40, redis: 2 },
  multiTest: { port: 60, redis: 3 },
  soak: { port: 80, redis: 4 },
  noisy: { port: 100, redis: 5 },
  noisyTest: { port: 120, redis: 6 },
  bigTest: { port: 140, redis: 7 },
} as const;
export type Slot = keyof typeof SLOTS;

export interface WorldOptions {
  slot: Slot;
  /** Provider processes to start (they share the database and Redis). */
  providers: number;
  operators: OperatorSpec[];
  callbackTimeoutMs?: number;
  logLevel?: string;
  /** Node flags of the provider processes (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** Prometheus listeners on their own ports (default on). */
  metrics?: boolean;
  logDir?: string;
  /** Extra environment of the provider processes. */
  env?: Record<string, string>;
  /** Providers reach PostgreSQL through a wire-protocol relay that counts their statements (pg-wire-counter.ts). */
  countStatements?: boolean;
  /** The run's database counts each PL/pgSQL function's calls (pg.ts trackFunctionCalls), when the role may set it. */
  trackFunctionCalls?: boolean;
}

export interface World {
  logDir: string;
  db: RunDatabase;
  redis: RedisProcess;
  casinoProcess: CasinoProcess;
  casino: CasinoControl;
  providers: ProviderProcess[];
  set: ProviderSet;
  secrets: RunSecrets;
  operators: OperatorSpec[];
  /** Port of the n-th provider process (0-based); the 10 ports after the providers' are free for other servers. */
  port(n: number): number;
  /** Starts one more provider process on the next port. */
  addProvider(): Promise<ProviderProcess>;
  /** The statement-counting relay the providers reach PostgreSQL through (with `countStatements`). */
  wire: WireCounter | null;
  /** The run's database counts PL/pgSQL calls (`trackFunctionCalls` asked, and the role could set it). */
  functionsTracked: boolean;
  stop(opts?: { keepDatabase?: boolean }): Promise<void>;
}

export function defaultLogDir(tool: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return path.join(os.tmpdir(), 'gp-harness', `${tool}-${stamp}`);
}

export async function startWorld(o: WorldOptions): Promise<World> {
  const slot = SLOTS[o.slot];
  const base = PORT_BASE + slot.port;
  const logDir = o.logDir ?? defaultLogDir(o.slot);
  mkdirSync(logDir, { recursive: true });
  const secrets = runSecrets();
  const decimals: Record<string, number> = {};
  for (const op of o.operators) decimals[op.currency] = op.decimals;

  const started: { stop(): Promise<void> }[] = [];
  const db = await createRunDatabase(`gp_h${o.slot.toLowerCase()}_`, serverUrl());
  try {
    // before any provider connects: a session reads its database's settings when it starts
    const functionsTracked = o.trackFunctionCalls ? await trackFunctionCalls(db.name) : false;
    const wire = o.countStatements ? await startWireCounter(db.url) : null;
    if (wire) started.push({ stop: () => wire.close() });
    const providerDbUrl = wire ? wire.urlFor(db.url) : db.url;
    const redis = await startRedis({ port: REDIS_PORT_BASE + slot.redis, logDir });
    started.push(redis);
    const casinoProcess = await startCasino({
      port: base,
      logDir,
      operators: Object.fromEntries(o.operators.map((op) => [op.operatorId, { secret: op.secret, currency: op.currency, decimals: op.decimals }])),
    });
    started.push(casinoProcess);
    const casino = new CasinoControl(casinoProcess.url, decimals);
    const providers: ProviderProcess[] = [];
    const port = (n: number) => base + 1 + n;
    const metricsPort = (n: number) => (o.metrics === false ? 0 : base + 11 + n);
    let count = 0;
    const addProvider = async () => {
      const n = count++;
      const p = await startProvider({
        name: `provider-${n + 1}`,
        port: port(n),
        logDir,
        nodeArgs: o.nodeArgs ?? [],
        env: providerEnv({
          databaseUrl: providerDbUrl,
          redisUrl: redis.url,
          secrets,
          callbackTimeoutMs: o.callbackTimeoutMs ?? 3000,
          metricsPort: metricsPort(n),
          logLevel: o.logLevel ?? 'info',
          extra: o.env ?? {},
        }),
      });
      providers[n] = p;
      started.push(p);
      set.origins = providers.filter(Boolean).map((x) => x.url);
      return p;
    };
    const set = new ProviderSet([]);
    // The first process migrates the database; the others start once it is done.
    await addProvider();
    for (const op of o.operators) await putOperator(providers[0]!.url, casinoProcess.url, op, secrets.adminToken);
    // the others side by side (the database is migrated now)
    await Promise.all(Array.from({ length: o.providers - 1 }, () => addProvider()));
    return {
      logDir,
      db,
      redis,
      casinoProcess,
      casino,
      providers,
      set,
      secrets,
      operators: o.operators,
      port,
      addProvider,
      wire,
      functionsTracked,
      async stop(opts = {}) {
        await closePools();
        for (const s of started.reverse()) await s.stop().catch(() => undefined);
        if (!opts.keepDatabase) await db.drop().catch(() => undefined);
      },
    };
  } catch (err) {
    for (const s of started.reverse()) await s.stop().catch(() => undefined);
    await db.drop().catch(() => undefined);
    throw err;
  }
}

/**
 * Configuration from the environment (CONTRACT.md §1), validated once at start.
 * A bad value stops the service with a message naming the variable.
 */
import { z } from 'zod';

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

export const PUBLIC_BASE_URL_RULE =
  'must be the public http(s):// address of the service (e.g. https://games.example.com), without user info, query or fragment';

/** An http(s) base URL without user info, query or fragment, written without a trailing slash; null when it is not one. */
function publicBase(v: string): string | null {
  if (/\s/.test(v)) return null;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return null;
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password || u.search || u.hash || v.includes('?') || v.includes('#')) return null;
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** The hot statements' batches (store/statement-batches.ts, docs/operations.md "Scale"). */
export const DEFAULT_HOT_BATCHES = { inFlight: 2, maxBatch: 16 } as const;

export const SECRET_KEY_RULE = 'must be 32 bytes written as 64 hex characters (e.g. `openssl rand -hex 32`)';

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: optionalText,
  DATA_DIR: z.string().min(1).default('./.data'),
  /** Hot statements' batches at PostgreSQL at once from this process (store/statement-batches.ts). */
  DB_HOT_BATCHES: z.coerce.number().int().min(1).max(64).default(DEFAULT_HOT_BATCHES.inFlight),
  /** Hot statements one batch takes at most. */
  DB_HOT_BATCH_MAX: z.coerce.number().int().min(1).max(256).default(DEFAULT_HOT_BATCHES.maxBatch),
  REDIS_URL: optionalText,
  ADMIN_TOKEN: optionalText.refine((v) => v === undefined || v.length >= 16, 'must be at least 16 characters'),
  CRON_SECRET: optionalText.refine((v) => v === undefined || v.length >= 16, 'must be at least 16 characters'),
  READINESS_OPERATOR_ID: optionalText,
  CALLBACK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
  CLOCK_SKEW_S: z.coerce.number().int().min(1).max(3600).default(300),
  /** 32 bytes written as 64 hex characters: encrypts operator secrets and launch tokens at rest. */
  SECRET_KEY: optionalText.refine((v) => v === undefined || /^[0-9a-fA-F]{64}$/.test(v), SECRET_KEY_RULE),
  DEMO_OPERATOR: optionalText,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** The public address of the service (launch URLs, thumbnails): never taken from a request's Host header. Required in production. */
  PUBLIC_BASE_URL: optionalText.transform((v, ctx) => {
    if (v === undefined) return undefined;
    const base = publicBase(v);
    if (base === null) {
      ctx.addIssue({ code: 'custom', message: PUBLIC_BASE_URL_RULE });
      return z.NEVER;
    }
    return base;
  }),
  RATE_LIMIT_AUTH_FAILURES_PER_MIN: z.coerce.number().int().min(1).max(1_000_000_000).default(20),
  /** How long idempotency records (a key's stored answer) are kept: a retry with the same key later than this is a new request. */
  IDEMPOTENCY_RETENTION_HOURS: z.coerce.number().min(0.0001).max(87_600).default(168),
  RATE_LIMIT_SESSION_PER_MIN: z.coerce.number().int().min(1).max(1_000_000_000).default(600),
  RATE_LIMIT_IP_PER_MIN: z.coerce.number().int().min(1).max(1_000_000_000).default(120),
  RATE_LIMIT_LOGIN_PER_MIN: z.coerce.number().int().min(1).max(1_000_000_000).default(10),
  /** Prometheus /metrics on its own listener; 0 turns it off. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** SIGTERM: /ready answers 503 and the listener still serves for DRAIN, then waits up to GRACE for requests in flight. */
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).default(5000),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(25_000),
  /** Proxies trusted for X-Forwarded-For: `true`/`false`, a hop count, or addresses/CIDRs (comma-separated). */
  TRUST_PROXY: optionalText,
  /** Each casino's bounded share of a pod (docs/reliability.md "Tenants"). */
  WALLET_MAX_RESPONSE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024)
    .default(64 * 1024),
  WALLET_MAX_IN_FLIGHT_PER_OPERATOR: z.coerce.number().int().min(1).max(10_000).default(32),
  WALLET_MAX_QUEUED_PER_OPERATOR: z.coerce.number().int().min(0).max(100_000).default(128),
  PLAYER_MAX_IN_FLIGHT_PER_OPERATOR: z.coerce.number().int().min(1).max(100_000).default(64),
  /** A player session ends after this long without a request, and this long after it began. */
  SESSION_IDLE_MINUTES: z.coerce
    .number()
    .min(0.005)
    .max(7 * 24 * 60)
    .default(120),
  SESSION_MAX_HOURS: z.coerce
    .number()
    .min(0.0001)
    .max(24 * 30)
    .default(24),
  /** The in-service wallet retry scheduler (rounds/retry-scheduler.ts): on by default, off by default under NODE_ENV=test. */
  WALLET_RETRY_SCHEDULER: z.enum(['on', 'off', '']).optional(),
  /** Backoff between one round's retries, seconds: the first after the round was left pending, …; the last step repeats. */
  WALLET_RETRY_BACKOFF_S: z
    .string()
    .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, 'comma-separated whole seconds, e.g. 5,15,60,300,1800')
    .default('5,15,60,300,1800')
    .transform((v) => v.split(',').map((x) => Number(x.trim())))
    .refine((v) => v.length <= 20 && v.every((x) => x >= 1 && x <= 86_400), 'at most 20 steps, each 1..86400 seconds'),
  WALLET_RETRY_TICK_MS: z.coerce.number().int().min(50).max(600_000).default(1000),
  WALLET_RETRY_PROBE_S: z.coerce.number().int().min(1).max(86_400).default(30),
  WALLET_RETRY_PER_OPERATOR: z.coerce.number().int().min(1).max(1000).default(20),
  WALLET_RETRY_SWEEP_S: z.coerce.number().int().min(1).max(86_400).default(300),
  /** Promotions (issue 30, rounds/promotions/promotion-runner.ts): drop draws, tournament standings, promo credits; on by default, off by default under NODE_ENV=test. */
  PROMOTIONS: z.enum(['on', 'off', '']).optional(),
  PROMOTION_TICK_MS: z.coerce.number().int().min(50).max(600_000).default(2000),
  /** Seconds after a promotion's end before its final standings / last draw (rounds still settling). */
  PROMOTION_GRACE_S: z.coerce.number().int().min(0).max(3600).default(30),
  /** How long a pod serves a leaderboard from memory. */
  LEADERBOARD_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(2000),
  /** Operators' webhooks (webhooks/dispatcher.ts): the dispatcher of the outbox; on by default, off by default under NODE_ENV=test. */
  WEBHOOKS: z.enum(['on', 'off', '']).optional(),
  WEBHOOK_TICK_MS: z.coerce.number().int().min(50).max(3_600_000).default(1000),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  WEBHOOK_BACKOFF_S: z
    .string()
    .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, 'comma-separated whole seconds, e.g. 5,15,60,300,1800')
    .default('5,15,60,300,1800')
    .transform((v) => v.split(',').map((x) => Number(x.trim())))
    .refine((v) => v.length <= 20 && v.every((x) => x >= 1 && x <= 86_400), 'at most 20 steps, each 1..86400 seconds'),
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(60),
  WEBHOOK_PER_OPERATOR: z.coerce.number().int().min(1).max(1000).default(20),
  WEBHOOK_STUCK_AFTER_MINUTES: z.coerce.number().int().min(1).max(100_000).default(15),
  /** Delivered and failed webhook events (and their delivery log) are kept this many days. */
  WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** false: only check the database is at the latest migration (pods in Kubernetes; a Job migrates). */
  MIGRATE_ON_START: z
    .enum(['true', 'false', '1', '0', ''])
    .default('true')
    .transform((v) => v !== 'false' && v !== '0'),
});

export type Env = z.input<typeof envSchema>;

export interface Config {
  env: 'development' | 'production' | 'test';
  production: boolean;
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  adminToken: string | undefined;
  cronSecret: string | undefined;
  readinessOperatorId: string | undefined;
  callbackTimeoutMs: number;
  clockSkewSeconds: number;
  secretKey: string | undefined;
  demoOperator: boolean;
  logLevel: string;
  publicBaseUrl: string | undefined;
  migrateOnStart: boolean;
  /** Namespaces Redis keys (tests run side by side on one Redis). */
  redisKeyPrefix: string;
  /** How long a request waits for a concurrent duplicate of its idempotency key (CONTRACT.md §13). */
  idempotencyWaitMs: number;
  /** How long idempotency records are kept (IDEMPOTENCY_RETENTION_HOURS, 7 days): the cron pass removes older ones. */
  idempotencyRetentionHours: number;
  rateLimits: {
    /** Failed admin, cron and operator authentications per client IP and minute. */
    authFailuresPerMinute: number;
    /** Bet and round-action requests per session and minute (each route its own budget). */
    sessionPerMinute: number;
    /** Session creation, sandbox launch and verify per client IP and minute. */
    ipPerMinute: number;
    /** Admin console login attempts per client IP and minute. */
    loginPerMinute: number;
  };
  /** Prometheus listener (0: none). */
  metricsPort: number;
  metricsHost: string;
  shutdownDrainMs: number;
  shutdownGraceMs: number;
  /** Fastify's trustProxy: which X-Forwarded-For hops to believe (per-IP rate limits key on the result). */
  trustProxy: boolean | number | string;
  /** Each casino's bounded share of this pod (docs/reliability.md "Tenants"). */
  tenantShare: {
    /** The largest wallet answer read; a bigger one is cut off and counts as no readable answer. */
    walletMaxResponseBytes: number;
    /** Wallet callbacks to one operator in flight at once, and waiting for a slot. */
    walletMaxInFlight: number;
    walletMaxQueued: number;
    /** Player requests (sessions, bets, round actions, balance) of one operator's players in progress at once. */
    playerMaxInFlight: number;
  };
  /** The hot statements' batches (store/statement-batches.ts): at PostgreSQL at once, and statements a batch takes at most. */
  hotBatches: { inFlight: number; maxBatch: number };
  /** Player sessions: idle and absolute lifetimes (docs/DECISIONS.md). */
  sessionIdleMs: number;
  sessionMaxMs: number;
  /** Operators' webhooks (webhooks/dispatcher.ts, docs/integration.md "Webhooks"). */
  webhooks: {
    enabled: boolean;
    tickMs: number;
    timeoutMs: number;
    backoffSeconds: number[];
    maxAttempts: number;
    perOperator: number;
    stuckMinutes: number;
    retentionDays: number;
  };
  /** Promotions (issue 30, docs/promotions.md): the pass that draws drops, fixes standings and pays prizes. */
  promotions: {
    enabled: boolean;
    tickMs: number;
    graceSeconds: number;
    leaderboardCacheMs: number;
  };
  /** The in-service wallet retry scheduler (rounds/retry-scheduler.ts, docs/operations.md "Wallet retries"). */
  walletRetryScheduler: {
    enabled: boolean;
    backoffSeconds: number[];
    tickMs: number;
    probeSeconds: number;
    perOperator: number;
    sweepSeconds: number;
  };
}

/**
 * TRUST_PROXY → Fastify's trustProxy. Unset: no proxy is trusted, so `X-Forwarded-For` is
 * ignored and the client IP is the socket's peer: a client cannot pick its own per-IP rate-limit
 * key or the IP of an audit line with a forged header, whatever network it comes from.
 * Deployments name their real hops (the chart: `trustProxy`; docs/operations.md): a hop count
 * (`1` behind one ingress controller), addresses or CIDRs, or `true` (every hop — only when the
 * only way in is through a proxy that overwrites the header).
 */
export const DEFAULT_TRUST_PROXY = false;
function parseTrustProxy(v: string | undefined): boolean | number | string {
  if (v === undefined) return DEFAULT_TRUST_PROXY;
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (/^\d+$/.test(v)) return Number(v);
  return v;
}

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  if (production && !e.SECRET_KEY && !overrides.secretKey) {
    throw new ConfigError(`Invalid configuration:\n  SECRET_KEY: is required in production; it ${SECRET_KEY_RULE}`);
  }
  if (production && !e.PUBLIC_BASE_URL && !overrides.publicBaseUrl) {
    throw new ConfigError(`Invalid configuration:\n  PUBLIC_BASE_URL: is required in production; it ${PUBLIC_BASE_URL_RULE}`);
  }
  return {
    env: e.NODE_ENV,
    production,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    hotBatches: { inFlight: e.DB_HOT_BATCHES, maxBatch: e.DB_HOT_BATCH_MAX },
    redisUrl: e.REDIS_URL,
    adminToken: e.ADMIN_TOKEN,
    cronSecret: e.CRON_SECRET,
    readinessOperatorId: e.READINESS_OPERATOR_ID,
    callbackTimeoutMs: e.CALLBACK_TIMEOUT_MS,
    idempotencyRetentionHours: e.IDEMPOTENCY_RETENTION_HOURS,
    clockSkewSeconds: e.CLOCK_SKEW_S,
    secretKey: e.SECRET_KEY,
    demoOperator: !production || e.DEMO_OPERATOR === '1',
    logLevel: e.LOG_LEVEL,
    publicBaseUrl: e.PUBLIC_BASE_URL,
    migrateOnStart: e.MIGRATE_ON_START,
    redisKeyPrefix: 'gp:',
    idempotencyWaitMs: 10_000,
    rateLimits: {
      authFailuresPerMinute: e.RATE_LIMIT_AUTH_FAILURES_PER_MIN,
      sessionPerMinute: e.RATE_LIMIT_SESSION_PER_MIN,
      ipPerMinute: e.RATE_LIMIT_IP_PER_MIN,
      loginPerMinute: e.RATE_LIMIT_LOGIN_PER_MIN,
    },
    metricsPort: e.METRICS_PORT,
    metricsHost: e.METRICS_HOST,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    tenantShare: {
      walletMaxResponseBytes: e.WALLET_MAX_RESPONSE_BYTES,
      walletMaxInFlight: e.WALLET_MAX_IN_FLIGHT_PER_OPERATOR,
      walletMaxQueued: e.WALLET_MAX_QUEUED_PER_OPERATOR,
      playerMaxInFlight: e.PLAYER_MAX_IN_FLIGHT_PER_OPERATOR,
    },
    sessionIdleMs: Math.round(e.SESSION_IDLE_MINUTES * 60_000),
    sessionMaxMs: Math.round(e.SESSION_MAX_HOURS * 3_600_000),
    webhooks: {
      enabled: e.WEBHOOKS ? e.WEBHOOKS === 'on' : e.NODE_ENV !== 'test',
      tickMs: e.WEBHOOK_TICK_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      backoffSeconds: e.WEBHOOK_BACKOFF_S,
      maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
      perOperator: e.WEBHOOK_PER_OPERATOR,
      stuckMinutes: e.WEBHOOK_STUCK_AFTER_MINUTES,
      retentionDays: e.WEBHOOK_RETENTION_DAYS,
    },
    promotions: {
      enabled: e.PROMOTIONS ? e.PROMOTIONS === 'on' : e.NODE_ENV !== 'test',
      tickMs: e.PROMOTION_TICK_MS,
      graceSeconds: e.PROMOTION_GRACE_S,
      leaderboardCacheMs: e.LEADERBOARD_CACHE_MS,
    },
    walletRetryScheduler: {
      // Tests start it where they test it: elsewhere a background pass would race their assertions.
      enabled: e.WALLET_RETRY_SCHEDULER ? e.WALLET_RETRY_SCHEDULER === 'on' : e.NODE_ENV !== 'test',
      backoffSeconds: e.WALLET_RETRY_BACKOFF_S,
      tickMs: e.WALLET_RETRY_TICK_MS,
      probeSeconds: e.WALLET_RETRY_PROBE_S,
      perOperator: e.WALLET_RETRY_PER_OPERATOR,
      sweepSeconds: e.WALLET_RETRY_SWEEP_S,
    },
    ...overrides,
  };
}

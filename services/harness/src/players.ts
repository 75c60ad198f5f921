/**
 * Operators and players as a casino would set them up: an operator-currency profile on the
 * provider (admin API) pointing at the reference casino, a wallet per player in the casino, a
 * launch token from the casino, and a lobby session on the provider (so one session plays all
 * six games).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CasinoControl } from './casino.js';
import { toMinor } from './casino.js';
import { request } from './client.js';

/** Credentials of a harness run: fixed test values for the admin and cron tokens, a random key. */
export function runSecrets() {
  return {
    adminToken: 'harness-admin-token-0123456789',
    cronSecret: 'harness-cron-secret-0123456789',
    secretKey: randomBytes(32).toString('hex'),
  };
}
export type RunSecrets = ReturnType<typeof runSecrets>;

export interface ProviderEnvOptions {
  databaseUrl: string;
  redisUrl: string;
  secrets: RunSecrets;
  callbackTimeoutMs?: number;
  /** Prometheus listener of this process (OPS-CONTRACT.md); 0 turns it off. */
  metricsPort?: number;
  logLevel?: string;
  extra?: Record<string, string>;
}

/**
 * The environment of a provider process. Rate limits are lifted (a load test sends far more
 * than a player), graceful shutdown is short (the harness stops processes itself).
 */
export function providerEnv(o: ProviderEnvOptions): Record<string, string> {
  return {
    NODE_ENV: 'development',
    DATABASE_URL: o.databaseUrl,
    REDIS_URL: o.redisUrl,
    ADMIN_TOKEN: o.secrets.adminToken,
    CRON_SECRET: o.secrets.cronSecret,
    SECRET_KEY: o.secrets.secretKey,
    CALLBACK_TIMEOUT_MS: String(o.callbackTimeoutMs ?? 3000),
    LOG_LEVEL: o.logLevel ?? 'info',
    METRICS_PORT: String(o.metricsPort ?? 0),
    MIGRATE_ON_START: 'true',
    SHUTDOWN_DRAIN_MS: '0',
    SHUTDOWN_GRACE_MS: '3000',
    RATE_LIMIT_SESSION_PER_MIN: '100000000',
    RATE_LIMIT_IP_PER_MIN: '100000000',
    RATE_LIMIT_LOGIN_PER_MIN: '100000000',
    RATE_LIMIT_AUTH_FAILURES_PER_MIN: '100000000',
    ...o.extra,
  };
}

export interface OperatorSpec {
  operatorId: string;
  currency: string;
  decimals: number;
  secret: string;
  minBet: string;
  stakeStep: string;
  maxPayout: string;
}

export async function putOperator(providerUrl: string, casinoUrl: string, op: OperatorSpec, adminToken: string): Promise<void> {
  const body = `{"currency":"${op.currency}","callbackBaseUrl":"${casinoUrl}","sharedSecret":"${op.secret}","minBet":${op.minBet},"stakeStep":${op.stakeStep},"maxPayout":${op.maxPayout},"enabledGames":["dice","limbo","plinko","keno","mines","blackjack"]}`;
  const res = await request(providerUrl, 'PUT', `/api/admin/operators/${op.operatorId}`, body, { authorization: `Bearer ${adminToken}` });
  if (res.status !== 200 && res.status !== 201) throw new Error(`operator ${op.operatorId}: ${res.status} ${res.error ?? res.text}`);
}

export interface Player {
  index: number;
  playerRef: string;
  operatorId: string;
  currency: string;
  decimals: number;
  launchToken: string;
  sessionId: string;
  startBalance: bigint;
}

/**
 * Opens a lobby session; retried while the casino's validate-session or balance fails (faults),
 * or a provider process is down. Answers the session id.
 */
export async function openSession(origin: () => string, p: Pick<Player, 'operatorId' | 'launchToken' | 'playerRef'>, attempts = 40): Promise<string> {
  let last = '';
  for (let i = 0; i < attempts; i++) {
    const res = await request(origin(), 'POST', '/api/sessions', {
      operatorId: p.operatorId,
      launchToken: p.launchToken,
      gameType: 'dice',
      launchMode: 'lobby',
    });
    if (res.status === 200 && typeof res.body.sessionId === 'string') return res.body.sessionId;
    last = `${res.status} ${res.error ?? res.text.slice(0, 200)}`;
    await sleep(100 + i * 50);
  }
  throw new Error(`no session for ${p.playerRef}: ${last}`);
}

export async function createPlayer(
  casino: CasinoControl,
  origin: () => string,
  o: { index: number; playerRef: string; operator: Pick<OperatorSpec, 'operatorId' | 'currency' | 'decimals'>; balance: string },
): Promise<Player> {
  await casino.createPlayer(o.playerRef, o.operator.currency, o.balance);
  const launchToken = await casino.launchToken(o.playerRef, o.operator.operatorId);
  const sessionId = await openSession(origin, { operatorId: o.operator.operatorId, launchToken, playerRef: o.playerRef });
  return {
    index: o.index,
    playerRef: o.playerRef,
    operatorId: o.operator.operatorId,
    currency: o.operator.currency,
    decimals: o.operator.decimals,
    launchToken,
    sessionId,
    startBalance: toMinor(o.balance, o.operator.decimals),
  };
}

/** Creates players a few at a time. */
export async function createPlayers(n: number, make: (i: number) => Promise<Player>, parallel = 8): Promise<Player[]> {
  const out: Player[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, n) }, async () => {
      for (let i = next++; i < n; i = next++) out[i] = await make(i);
    }),
  );
  return out;
}

/**
 * What the service keeps in Redis (or, without REDIS_URL, in this process): the replay cache of
 * signed requests (SET NX with a TTL of at least the skew window) and short locks with owner
 * tokens. Locks save pods from doing the same work twice; exactly-once is the database's job
 * (conditional updates and unique keys), so a lost lock never moves money twice.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

export interface Lock {
  readonly name: string;
  readonly token: string;
  /** Releases the lock if this owner still holds it; true when it did. */
  release(): Promise<boolean>;
}

export interface KeyValueStore {
  readonly mode: 'redis' | 'in-process';
  /** Remembers `key` for `ttlMs`; true when it was not there yet (first use of a nonce). */
  claimOnce(key: string, ttlMs: number): Promise<boolean>;
  /**
   * Counts one more event under `key` in a fixed window of `windowMs` (the window starts at the
   * first event); answers the count so far. Rate limits of failed authentication use it.
   */
  hit(key: string, windowMs: number): Promise<number>;
  /** The count under `key` in its current window (0 when none). */
  hits(key: string): Promise<number>;
  /**
   * Pacing (issue 27): when the last start recorded under `key` is at least `intervalMs` ago (or
   * none is), records now as the last start and answers 0; else records nothing and answers the
   * milliseconds still to wait. Atomic across pods (one Lua script on Redis' own clock).
   */
  paceStart(key: string, intervalMs: number): Promise<number>;
  /** Takes the lock `name` for `ttlMs`, or answers null when another owner holds it. */
  tryLock(name: string, ttlMs: number): Promise<Lock | null>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** The Redis client, for the rate limiter's counters (null in-process). */
  readonly redis: Redis | null;
}

/** KEYS[1] the last start (ms, Redis TIME), ARGV[1] the interval, ARGV[2] how long to keep the start. */
const PACE_SCRIPT = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local last = tonumber(redis.call('GET', KEYS[1]) or '-1')
local wait = tonumber(ARGV[1])
if last >= 0 and now - last < wait then return wait - (now - last) end
redis.call('SET', KEYS[1], now, 'PX', tonumber(ARGV[2]))
return 0`;
/** A recorded start is kept this long: longer than any interval the rules allow (60 s). */
const PACE_KEEP_MS = 120_000;

const RELEASE_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * ioredis is loaded when a Redis store is made: the embedded default (no REDIS_URL) never loads it
 * (the first start's peak RSS, issue 25). It is a CommonJS package, so it loads synchronously.
 */
const loadRedis = (): typeof Redis => (createRequire(import.meta.url)('ioredis') as { Redis: typeof Redis }).Redis;

export function createRedisStore(url: string, prefix: string): KeyValueStore {
  const RedisClient = loadRedis();
  const redis = new RedisClient(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  redis.on('error', () => {
    /* reported through /ready and the failing call; ioredis reconnects by itself */
  });
  return {
    mode: 'redis',
    redis,
    async claimOnce(key, ttlMs) {
      const res = await redis.set(prefix + key, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX');
      return res === 'OK';
    },
    async hit(key, windowMs) {
      const k = `${prefix}hits:${key}`;
      const [[, count]] = (await redis
        .multi()
        .incr(k)
        .pexpire(k, Math.max(1, Math.ceil(windowMs)), 'NX')
        .exec()) as [[null, number]];
      return count;
    },
    async hits(key) {
      return Number((await redis.get(`${prefix}hits:${key}`)) ?? 0);
    },
    async paceStart(key, intervalMs) {
      return Number(await redis.eval(PACE_SCRIPT, 1, `${prefix}pace:${key}`, Math.max(0, Math.ceil(intervalMs)), PACE_KEEP_MS));
    },
    async tryLock(name, ttlMs) {
      const token = randomBytes(16).toString('hex');
      const key = `${prefix}lock:${name}`;
      const res = await redis.set(key, token, 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX');
      if (res !== 'OK') return null;
      return {
        name,
        token,
        async release() {
          const n = (await redis.eval(RELEASE_SCRIPT, 1, key, token)) as number;
          return n === 1;
        },
      };
    },
    async ping() {
      await redis.ping();
    },
    async close() {
      redis.disconnect();
    },
  };
}

export function createInProcessStore(now: () => number = Date.now): KeyValueStore {
  const entries = new Map<string, { value: string; expiresAt: number }>();
  const live = (key: string): string | undefined => {
    const e = entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return e.value;
  };
  const sweep = setInterval(() => {
    const t = now();
    for (const [k, e] of entries) if (e.expiresAt <= t) entries.delete(k);
  }, 60_000);
  sweep.unref();
  return {
    mode: 'in-process',
    redis: null,
    async claimOnce(key, ttlMs) {
      if (live(key) !== undefined) return false;
      entries.set(key, { value: '1', expiresAt: now() + ttlMs });
      return true;
    },
    async hit(key, windowMs) {
      const k = `hits:${key}`;
      const count = Number(live(k) ?? 0) + 1;
      const expiresAt = count === 1 ? now() + windowMs : (entries.get(k)?.expiresAt ?? now() + windowMs);
      entries.set(k, { value: String(count), expiresAt });
      return count;
    },
    async hits(key) {
      return Number(live(`hits:${key}`) ?? 0);
    },
    async paceStart(key, intervalMs) {
      const k = `pace:${key}`;
      const t = now();
      const last = live(k);
      if (last !== undefined && t - Number(last) < intervalMs) return intervalMs - (t - Number(last));
      entries.set(k, { value: String(t), expiresAt: t + PACE_KEEP_MS });
      return 0;
    },
    async tryLock(name, ttlMs) {
      const key = `lock:${name}`;
      if (live(key) !== undefined) return null;
      const token = randomBytes(16).toString('hex');
      entries.set(key, { value: token, expiresAt: now() + ttlMs });
      return {
        name,
        token,
        async release() {
          if (live(key) !== token) return false;
          entries.delete(key);
          return true;
        },
      };
    },
    async ping() {},
    async close() {
      clearInterval(sweep);
      entries.clear();
    },
  };
}

export function createKeyValueStore(redisUrl: string | undefined, prefix: string): KeyValueStore {
  return redisUrl ? createRedisStore(redisUrl, prefix) : createInProcessStore();
}

/**
 * Runs `fn` holding the lock `name`, waiting up to `waitMs` for it (polling). Throws
 * LockBusyError when it could not be taken in time.
 */
export class LockBusyError extends Error {}

export async function withLock<T>(
  kv: KeyValueStore,
  name: string,
  opts: { ttlMs: number; waitMs: number; onWait?: (seconds: number) => void },
  fn: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const deadline = Date.now() + opts.waitMs;
  let lock = await kv.tryLock(name, opts.ttlMs);
  while (!lock) {
    if (Date.now() >= deadline) {
      opts.onWait?.((performance.now() - started) / 1000);
      throw new LockBusyError(`lock ${name} is busy`);
    }
    await new Promise((r) => setTimeout(r, 25));
    lock = await kv.tryLock(name, opts.ttlMs);
  }
  opts.onWait?.((performance.now() - started) / 1000);
  try {
    return await fn();
  } finally {
    await lock.release().catch(() => false);
  }
}

/**
 * The rate limits' counters in Redis (http/rate-limits.ts), shared by every pod. Fixed windows:
 * the first count of a window sets the key's expiry; a count past `max` is refused.
 *
 * **Leased counts** (the `session` policy, issue 25): a bet paid a Redis round trip for its rate
 * limit (≈ 8 % of the provider's CPU per bet, a socket write and read, a Lua script in Redis). A
 * pod now takes a session's counts from Redis in small blocks (INCRBY n) and hands them out
 * itself: the counts are still numbered by Redis, so each number is handed out once across every
 * pod, and a request is refused when its number is past `max` — **no pod, and no set of pods,
 * ever lets more than `max` requests of a key through in a window**. A block starts at 1 and
 * doubles while the key keeps coming back in the window, up to LEASE_MAX, and never exceeds half
 * of what is left below `max` as this pod last saw it (so near the limit blocks are single
 * counts, and one pod alone refuses exactly at `max + 1`, as before). The cost: counts a pod took
 * and did not use before the window ended are lost, so a session whose requests are spread over
 * several pods may be refused a little before `max` (by at most the unused counts of its other
 * pods' blocks, LEASE_MAX each). A pod's requests of one key that arrive while its next block is
 * being taken wait for that block (one round trip, no counts taken twice). A pod's block lives only as long as the Redis window it came from (its end
 * measured from before the call, so it ends no later than Redis's). The keys are the same as
 * before (`<prefix>rl:<method><route>-<key>`), so tenants and routes stay apart.
 */
import type { FastifyRateLimitOptions, FastifyRateLimitStore } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';

/** The largest block of counts one pod takes at once. */
export const LEASE_MAX = 16;

/** A store's route options carry `leased: true` to lease counts (http/rate-limits.ts, the session policy). */
interface RouteStoreOptions {
  leased?: boolean;
  routeInfo: { method?: string | string[]; url?: string };
}

type Done = (error: Error | null, result?: { current: number; ttl: number }) => void;

const SCRIPT = `local n = tonumber(ARGV[2])
local current = redis.call('INCRBY', KEYS[1], n)
local ttl
if current == n then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
else
  ttl = redis.call('PTTL', KEYS[1])
  if ttl < 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
    ttl = tonumber(ARGV[1])
  end
end
return {current, ttl}`;

type RedisWithLease = Redis & {
  gpRateLease(key: string, windowMs: number, count: number, cb: (err: Error | null, res?: [number, number]) => void): void;
};

interface Block {
  /** the next number to hand out, and the last of the block */
  next: number;
  last: number;
  /** when the block's window ends (Date.now() ms) */
  ends: number;
  /** the size of the last block taken */
  size: number;
}

/** How many counts to take next: 1 in a new window, then doubling, never past half of what is left below `max`. */
export function nextBlockSize(previous: Block | undefined, now: number, max: number): number {
  if (!previous || now >= previous.ends) return 1;
  const left = max - previous.last;
  return Math.max(1, Math.min(previous.size * 2, LEASE_MAX, Math.floor(left / 2)));
}

/** One route's counters. */
class RouteCounter implements FastifyRateLimitStore {
  private readonly blocks = new Map<string, Block>();
  /** keys whose next block is being taken: their requests wait for it rather than take one each */
  private readonly waiting = new Map<string, (() => void)[]>();
  private taken = 0;

  constructor(
    private readonly redis: RedisWithLease,
    private readonly prefix: string,
    private readonly leased: boolean,
  ) {}

  incr(key: string, done: Done, timeWindow: number, max: number): void {
    const now = Date.now();
    const block = this.leased ? this.blocks.get(key) : undefined;
    if (block && now < block.ends && block.next <= block.last) {
      done(null, { current: block.next++, ttl: block.ends - now });
      return;
    }
    if (!this.leased) {
      this.redis.gpRateLease(this.prefix + key, timeWindow, 1, (err, res) => {
        if (err || !res) done(err ?? new Error('no answer from the rate limit script'));
        else done(null, { current: res[0], ttl: res[1] });
      });
      return;
    }
    const queue = this.waiting.get(key);
    if (queue) {
      queue.push(() => this.incr(key, done, timeWindow, max));
      return;
    }
    this.waiting.set(key, []);
    const size = nextBlockSize(block, now, max);
    this.redis.gpRateLease(this.prefix + key, timeWindow, size, (err, res) => {
      const waiters = this.waiting.get(key) ?? [];
      this.waiting.delete(key);
      if (err || !res) {
        done(err ?? new Error('no answer from the rate limit script'));
      } else {
        const [total, ttl] = res;
        this.blocks.set(key, { next: total - size + 2, last: total, ends: now + ttl, size });
        if (++this.taken % 1024 === 0) this.forgetEnded(Date.now());
        done(null, { current: total - size + 1, ttl });
      }
      for (const next of waiters) next();
    });
  }

  child(): FastifyRateLimitStore {
    return this;
  }

  /** Drops the blocks of ended windows (their keys have expired in Redis too). */
  private forgetEnded(now: number): void {
    for (const [key, block] of this.blocks) if (now >= block.ends) this.blocks.delete(key);
  }
}

/** The store class for @fastify/rate-limit's `store` option: a counter per route, under `nameSpace`. */
export function redisRateLimitStore(redis: Redis, nameSpace: string) {
  const client = redis as RedisWithLease;
  if (typeof client.gpRateLease !== 'function') client.defineCommand('gpRateLease', { numberOfKeys: 1, lua: SCRIPT });
  return class RedisRateLimitStore implements FastifyRateLimitStore {
    /** the plugin's global counter (unused: every limit is a route's, `global: false`), counted exactly */
    private readonly global = new RouteCounter(client, nameSpace, false);

    constructor(_options: FastifyRateLimitOptions) {}

    incr(key: string, done: Done, timeWindow: number, max: number): void {
      this.global.incr(key, done, timeWindow, max);
    }

    child(options: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
      // at run time the plugin passes the route's merged limit options (typed as route options)
      const routeOptions = options as unknown as RouteStoreOptions;
      // the key of @fastify/rate-limit's own RedisStore, so the counters are the same
      const { method, url } = routeOptions.routeInfo;
      return new RouteCounter(client, `${nameSpace}${String(method)}${String(url)}-`, routeOptions.leased === true);
    }
  };
}

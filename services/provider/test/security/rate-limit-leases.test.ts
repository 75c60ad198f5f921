/**
 * The session policy's leased counts (http/rate-limit-store.ts, issue 25), against the real
 * Redis: two pods' stores on one key never let more than `max` requests through in a window,
 * however their requests interleave; one pod alone refuses exactly at `max + 1`, as the
 * exact count did; and most requests cost no Redis round trip.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_MAX, nextBlockSize, redisRateLimitStore } from '../../src/http/rate-limit-store.js';
import { REDIS_URL } from '../helpers/env.js';

const prefix = `gp-test-rll:${randomBytes(4).toString('hex')}:rl:`;
let redisA: Redis;
let redisB: Redis;
beforeAll(() => {
  redisA = new Redis(REDIS_URL);
  redisB = new Redis(REDIS_URL);
});
afterAll(async () => {
  const keys = await redisA.keys(`${prefix}*`);
  if (keys.length) await redisA.del(...keys);
  redisA.disconnect();
  redisB.disconnect();
});

type Store = ReturnType<ReturnType<typeof redisRateLimitStore>['prototype']['child']>;

/** A pod's store of one route (the plugin's `child`), and a count of its Redis calls. */
function pod(redis: Redis, leased = true): { store: Store; calls: () => number } {
  const Ctor = redisRateLimitStore(redis, prefix);
  let calls = 0;
  const client = redis as unknown as { gpRateLease: (...a: unknown[]) => void };
  const original = client.gpRateLease.bind(redis);
  client.gpRateLease = (...a: unknown[]) => {
    calls++;
    original(...a);
  };
  const store = new Ctor({}).child({ leased, routeInfo: { method: 'POST', url: '/api/bets' } } as never);
  return { store, calls: () => calls };
}

const count = (store: Store, key: string, max: number) =>
  new Promise<number>((resolve, reject) => store.incr(key, (err, res) => (err ? reject(err) : resolve(res!.current)), 60_000, max));

describe('leased rate-limit counts', () => {
  it('block sizes: 1 in a new window, then doubling up to the cap, never past half of what is left', () => {
    const now = 1000;
    expect(nextBlockSize(undefined, now, 600)).toBe(1);
    expect(nextBlockSize({ next: 2, last: 1, ends: now - 1, size: 8 }, now, 600)).toBe(1);
    expect(nextBlockSize({ next: 2, last: 1, ends: now + 1, size: 1 }, now, 600)).toBe(2);
    expect(nextBlockSize({ next: 8, last: 7, ends: now + 1, size: LEASE_MAX }, now, 600)).toBe(LEASE_MAX);
    expect(nextBlockSize({ next: 591, last: 590, ends: now + 1, size: 8 }, now, 600)).toBe(5);
    expect(nextBlockSize({ next: 600, last: 599, ends: now + 1, size: 8 }, now, 600)).toBe(1);
  });

  it('one pod alone: exactly max allowed, the next refused, with a fraction of the Redis calls', async () => {
    const a = pod(redisA);
    const key = `s:one-${randomBytes(3).toString('hex')}`;
    const max = 200;
    const seen: number[] = [];
    for (let i = 0; i < max + 3; i++) seen.push(await count(a.store, key, max));
    expect(seen.filter((c) => c <= max)).toHaveLength(max);
    expect(seen.slice(0, max).every((c) => c <= max)).toBe(true);
    expect(seen.slice(max).every((c) => c > max)).toBe(true);
    expect(new Set(seen.slice(0, max)).size).toBe(max);
    expect(a.calls()).toBeLessThan(max / 4);
  });

  it('two pods on one key, interleaved at random: never more than max through, each count handed out once', async () => {
    const a = pod(redisA);
    const b = pod(redisB);
    for (let round = 0; round < 5; round++) {
      const key = `s:two-${round}-${randomBytes(3).toString('hex')}`;
      const max = 50 + round * 37;
      const seen: number[] = [];
      // in parallel bursts as well as one at a time
      for (let i = 0; i < max * 2;) {
        const burst = 1 + Math.floor(Math.random() * 4);
        seen.push(...(await Promise.all(Array.from({ length: burst }, () => count(Math.random() < 0.5 ? a.store : b.store, key, max)))));
        i += burst;
      }
      const allowed = seen.filter((c) => c <= max);
      expect(allowed.length).toBeLessThanOrEqual(max);
      expect(new Set(allowed).size).toBe(allowed.length);
      // what the blocks may leave unused is bounded: most of the budget is used
      expect(allowed.length).toBeGreaterThanOrEqual(max - 2 * LEASE_MAX);
    }
  });

  it('an exact store (the ip and login policies) takes one count per request', async () => {
    const a = pod(redisA, false);
    const key = `ip:exact-${randomBytes(3).toString('hex')}`;
    for (let i = 1; i <= 5; i++) expect(await count(a.store, key, 3)).toBe(i);
    expect(a.calls()).toBe(5);
  });

  it('the window comes from Redis: the key expires with the window, and a new window starts at 1', async () => {
    const a = pod(redisA);
    const key = `s:ttl-${randomBytes(3).toString('hex')}`;
    const ttl = await new Promise<number>((resolve, reject) => a.store.incr(key, (err, res) => (err ? reject(err) : resolve(res!.ttl)), 60_000, 10));
    expect(ttl).toBeGreaterThan(59_000);
    expect(await redisA.pttl(`${prefix}POST/api/bets-${key}`)).toBeGreaterThan(59_000);
  });
});

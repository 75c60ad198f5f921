/** The replay cache and locks: Redis and the in-process store pass the same suite. */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createInProcessStore, createRedisStore, LockBusyError, withLock, type KeyValueStore } from '../../src/infra/kv.js';
import { REDIS_URL } from '../helpers/env.js';

const stores: KeyValueStore[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

const implementations: [string, () => KeyValueStore][] = [
  ['redis', () => createRedisStore(REDIS_URL, `gp-test-kv:${randomBytes(4).toString('hex')}:`)],
  ['in-process', () => createInProcessStore()],
];

describe.each(implementations)('%s store', (_name, make) => {
  const kv = make();
  stores.push(kv);

  it('claims a nonce once, and again after its TTL', async () => {
    expect(await kv.claimOnce('n1', 200)).toBe(true);
    expect(await kv.claimOnce('n1', 200)).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    expect(await kv.claimOnce('n1', 200)).toBe(true);
  });

  it('gives a lock to one owner at a time', async () => {
    const a = await kv.tryLock('L', 5_000);
    expect(a).not.toBeNull();
    expect(await kv.tryLock('L', 5_000)).toBeNull();
    expect(await a!.release()).toBe(true);
    const b = await kv.tryLock('L', 5_000);
    expect(b).not.toBeNull();
    await b!.release();
  });

  it('does not let a former owner release a lock that expired and was taken', async () => {
    const a = await kv.tryLock('E', 100);
    await new Promise((r) => setTimeout(r, 200));
    const b = await kv.tryLock('E', 5_000);
    expect(b).not.toBeNull();
    expect(await a!.release()).toBe(false);
    expect(await kv.tryLock('E', 5_000)).toBeNull();
    await b!.release();
  });

  it('withLock serialises concurrent work and gives up after its wait', async () => {
    const order: string[] = [];
    const work = (name: string) =>
      withLock(kv, 'W', { ttlMs: 5_000, waitMs: 5_000 }, async () => {
        order.push(`${name}:in`);
        await new Promise((r) => setTimeout(r, 50));
        order.push(`${name}:out`);
      });
    await Promise.all([work('a'), work('b')]);
    expect([order.slice(0, 2), order.slice(2)].every(([i, o]) => i!.split(':')[0] === o!.split(':')[0])).toBe(true);
    const held = await kv.tryLock('W2', 5_000);
    await expect(withLock(kv, 'W2', { ttlMs: 1000, waitMs: 100 }, async () => 1)).rejects.toBeInstanceOf(LockBusyError);
    await held!.release();
  });

  it('answers ping', async () => {
    await expect(kv.ping()).resolves.toBeUndefined();
  });
});

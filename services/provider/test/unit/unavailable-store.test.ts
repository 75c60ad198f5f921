/**
 * A store that cannot be reached answers 503 NOT_READY in the envelope, never 500 (issue 16: the
 * chaos run's Redis restart answered 500 to the requests of that second).
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { toAppError } from '../../src/http/error-handler.js';

describe('an unreachable store', () => {
  it('Redis down: the error ioredis raises becomes 503 NOT_READY with checks.redis', async () => {
    // a port nobody listens on, the client's settings of infra/kv.ts
    const redis = new Redis('redis://127.0.0.1:1', { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true, retryStrategy: () => 10 });
    redis.on('error', () => undefined);
    const err = await redis.get('x').catch((e: unknown) => e);
    redis.disconnect();
    const app = toAppError(err);
    expect([app.statusCode, app.code]).toEqual([503, 'NOT_READY']);
    expect(app.extras).toMatchObject({ ready: false, checks: { redis: 'unavailable' } });
  });

  it('PostgreSQL gone (connection failure, admin shutdown): 503 NOT_READY with checks.database', () => {
    for (const e of [
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('x'), { code: '08006' }),
      new Error('Connection terminated unexpectedly'),
    ]) {
      const app = toAppError(e);
      expect([app.statusCode, app.code, app.extras.checks]).toEqual([503, 'NOT_READY', { database: 'unavailable' }]);
    }
  });

  it('anything else unexpected stays a 500 without its message', () => {
    const app = toAppError(new TypeError('boom with a secret'));
    expect([app.statusCode, app.code, app.message]).toEqual([500, 'INTERNAL_ERROR', 'internal error']);
  });
});

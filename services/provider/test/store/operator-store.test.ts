/**
 * The operator store's cache (operators/operator-store.ts): the requests that find a profile's
 * entry expired together wait for one read; a change on this pod is seen by the next request
 * even while a read that began before it is in flight.
 */
import knexPkg, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/infra/secret-box.js';
import { DEFAULT_ABANDONED_ROUND_POLICY } from '../../src/operators/operator-schema.js';
import { createOperatorStore } from '../../src/operators/operator-store.js';
import { createTestDatabase, SECRET_KEY } from '../helpers/app.js';

let db: Knex;
let drop: () => Promise<void>;
let reads = 0;
const box = createSecretBox(Buffer.from(SECRET_KEY, 'hex'));

const profile = (maxPayout: bigint) => ({
  operatorId: 'op-cache',
  tenantId: null,
  currency: 'USD' as const,
  callbackBaseUrl: 'sandbox://demo-casino',
  minBet: 1n,
  maxBet: null,
  stakeStep: 1n,
  maxPayout,
  enabledGames: ['dice' as const],
  theme: { showBalanceInEmbed: true, autobetStopOnHidden: false },
  allowedEmbedOrigins: [],
  abandonedRoundPolicy: DEFAULT_ABANDONED_ROUND_POLICY,
  responsibleGaming: null,
  enabled: true,
  sharedSecret: 'secret-of-op-cache-0123456789',
});

beforeAll(async () => {
  const d = await createTestDatabase();
  drop = d.drop;
  db = knexPkg.knex({ client: 'pg', connection: d.url, pool: { min: 0, max: 4 } });
  db.on('query', (q: { sql: string }) => {
    if (/from "operators"/.test(q.sql)) reads += 1;
  });
});
afterAll(async () => {
  await db?.destroy();
  await drop?.();
});

describe('the operator store', () => {
  it('answers the requests that miss together with one read', async () => {
    const store = createOperatorStore(box, { cacheMs: 60_000 });
    await store.upsert(db, profile(1000n));
    reads = 0;
    const got = await Promise.all(Array.from({ length: 20 }, () => store.getWithSecret(db, 'op-cache')));
    expect(reads).toBe(1);
    for (const op of got) expect(op).toMatchObject({ operatorId: 'op-cache', maxPayout: 1000n, sharedSecret: 'secret-of-op-cache-0123456789' });
    await store.get(db, 'op-cache');
    expect(reads).toBe(1);
    expect(await store.get(db, 'nobody')).toBeNull();
  });

  it('a change on this pod is read by the next request, not answered from a read begun before it', async () => {
    const store = createOperatorStore(box, { cacheMs: 60_000 });
    await store.upsert(db, profile(1000n));
    const before = store.getWithSecret(db, 'op-cache'); // in flight
    await store.upsert(db, profile(2000n));
    const after = await store.getWithSecret(db, 'op-cache');
    expect(after?.maxPayout).toBe(2000n);
    await before;
    expect((await store.getWithSecret(db, 'op-cache'))?.maxPayout).toBe(2000n);
  });
});

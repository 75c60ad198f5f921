/**
 * Retention of the staff's sign-in attempts (staff/staff-store.ts purgeOldSignInAttempts): a row
 * with no lock in force that nobody touched for a day goes, from the periodic maintenance (the
 * cron route's pass here; the in-service scheduler's sweep calls the same function), in bounded
 * batches. A lock in force and a recent count stay.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeOldSignInAttempts } from '../../src/staff/staff-store.js';
import { startWorld, type World } from '../helpers/casino.js';

let w: World;
beforeAll(async () => {
  w = await startWorld([{ operatorId: 'op-attempts' }]);
});
afterAll(async () => w?.close());

const keyOf = (email: string) => createHash('sha256').update(email).digest('hex');
const db = () => w.t.services.db;
const ago = (hours: number) => db().raw(`now() - make_interval(hours => ?)`, [hours]);
const ahead = (hours: number) => db().raw(`now() + make_interval(hours => ?)`, [hours]);
const keys = async () => new Set((await db()('staff_login_attempts').select<{ email_key: string }[]>('email_key')).map((r) => r.email_key));

describe('old sign-in attempts', () => {
  it('go with the cron pass when unlocked (or the lock is over) and untouched for a day; a lock in force and a recent count stay', async () => {
    await db()('staff_login_attempts').delete();
    const rows = {
      oldCount: { email_key: keyOf('old-count@example.test'), attempts: 3, locked_until: null, updated_at: ago(25) },
      lockOver: { email_key: keyOf('lock-over@example.test'), attempts: 5, locked_until: ago(30), updated_at: ago(48) },
      lockInForce: { email_key: keyOf('locked@example.test'), attempts: 5, locked_until: ahead(1), updated_at: ago(48) },
      recentCount: { email_key: keyOf('recent@example.test'), attempts: 2, locked_until: null, updated_at: ago(23) },
      recentLockOver: { email_key: keyOf('recent-lock@example.test'), attempts: 5, locked_until: ago(1), updated_at: ago(2) },
    };
    await db()('staff_login_attempts').insert(Object.values(rows));
    const res = await w.cron('limit=10');
    expect(res.status, res.text).toBe(200);
    expect(await keys()).toEqual(new Set([rows.lockInForce.email_key, rows.recentCount.email_key, rows.recentLockOver.email_key]));
  });

  it('are removed a bounded batch at a time', async () => {
    await db()('staff_login_attempts').delete();
    await db()('staff_login_attempts').insert(
      Array.from({ length: 5 }, (_, i) => ({ email_key: keyOf(`stuffed-${i}@example.test`), attempts: 1, updated_at: ago(72) })),
    );
    expect(await purgeOldSignInAttempts(db(), 2)).toBe(2);
    expect((await keys()).size).toBe(3);
    expect(await purgeOldSignInAttempts(db(), 2)).toBe(2);
    expect(await purgeOldSignInAttempts(db(), 2)).toBe(1);
    expect(await purgeOldSignInAttempts(db(), 2)).toBe(0);
    expect((await keys()).size).toBe(0);
  });
});

/** Data access for staff_accounts and staff_sessions (the admin console's accounts and server-side sessions). */
import { sqlLimit, toIso, type Queryable } from '../store/db.js';

export const STAFF_ROLES = ['platform_admin', 'admin', 'viewer'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

export interface StaffAccount {
  staffId: string;
  email: string;
  role: StaffRole;
  /** null for a platform admin; the casino (operator-currency profiles sharing it) otherwise. */
  tenantId: string | null;
  passwordChangedAt: string;
  lastLoginAt: string | null;
  createdAt: string;
}

interface AccountRow {
  staff_id: string;
  email: string;
  password_hash: string;
  role: StaffRole;
  tenant_id: string | null;
  password_changed_at: Date | string;
  last_login_at: Date | string | null;
  created_at: Date | string;
}

const fromRow = (r: AccountRow): StaffAccount => ({
  staffId: r.staff_id,
  email: r.email,
  role: r.role,
  tenantId: r.tenant_id,
  passwordChangedAt: toIso(r.password_changed_at),
  lastLoginAt: r.last_login_at === null ? null : toIso(r.last_login_at),
  createdAt: toIso(r.created_at),
});

export async function findAccountByEmail(db: Queryable, email: string): Promise<(StaffAccount & { passwordHash: string }) | null> {
  const row = await db<AccountRow>('staff_accounts').where({ email: email.toLowerCase() }).first();
  return row ? { ...fromRow(row), passwordHash: row.password_hash } : null;
}

export async function getAccount(db: Queryable, staffId: string): Promise<(StaffAccount & { passwordHash: string }) | null> {
  const row = await db<AccountRow>('staff_accounts').where({ staff_id: staffId }).first();
  return row ? { ...fromRow(row), passwordHash: row.password_hash } : null;
}

/** Accounts of one tenant, or every account (tenantId undefined). */
export async function listAccounts(db: Queryable, tenantId?: string): Promise<StaffAccount[]> {
  const q = db<AccountRow>('staff_accounts').orderBy([{ column: 'tenant_id', order: 'asc', nulls: 'first' }, 'email']);
  if (tenantId !== undefined) q.where({ tenant_id: tenantId });
  return (await q).map(fromRow);
}

export async function countAccounts(db: Queryable): Promise<number> {
  const [row] = await db('staff_accounts').count<{ n: string | number }[]>({ n: '*' });
  return Number(row?.n ?? 0);
}

export async function insertAccount(
  db: Queryable,
  a: { staffId: string; email: string; passwordHash: string; role: StaffRole; tenantId: string | null },
): Promise<StaffAccount> {
  const [row] = await db<AccountRow>('staff_accounts')
    .insert({ staff_id: a.staffId, email: a.email.toLowerCase(), password_hash: a.passwordHash, role: a.role, tenant_id: a.tenantId })
    .returning('*');
  return fromRow(row as AccountRow);
}

export async function updateAccount(
  db: Queryable,
  staffId: string,
  change: { role?: StaffRole; tenantId?: string | null; passwordHash?: string },
): Promise<StaffAccount | null> {
  const patch: Record<string, unknown> = { updated_at: db.fn.now() };
  if (change.role !== undefined) patch.role = change.role;
  if (change.tenantId !== undefined) patch.tenant_id = change.tenantId;
  if (change.passwordHash !== undefined) {
    patch.password_hash = change.passwordHash;
    patch.password_changed_at = db.fn.now();
  }
  const [row] = await db<AccountRow>('staff_accounts').where({ staff_id: staffId }).update(patch).returning('*');
  return row ? fromRow(row as AccountRow) : null;
}

export async function deleteAccount(db: Queryable, staffId: string): Promise<boolean> {
  return (await db('staff_accounts').where({ staff_id: staffId }).delete()) > 0;
}

/**
 * Reserves one sign-in attempt (a login, or a password change's current password) for an email
 * key (staff.ts `emailKey`), before the password is hashed: answers false, counting nothing, while
 * the key is locked. The attempt that brings the count to `maxAttempts` sets the lock, so at most
 * `maxAttempts` attempts are evaluated before the lock and one per lock period after it, however
 * many arrive at once: the check and the count are one statement on one row (the upsert locks
 * it, and its WHERE sees the latest count). A correct password clears the key (below).
 */
export async function reserveSignInAttempt(db: Queryable, emailKey: string, maxAttempts: number, lockMs: number): Promise<boolean> {
  const result = await db.raw<{ rows: unknown[] }>(
    `INSERT INTO staff_login_attempts AS l (email_key, attempts, locked_until, updated_at)
       VALUES (?, 1, CASE WHEN 1 >= ? THEN now() + (? * interval '1 millisecond') END, now())
     ON CONFLICT (email_key) DO UPDATE SET
       attempts = l.attempts + 1,
       locked_until = CASE WHEN l.attempts + 1 >= ? THEN now() + (? * interval '1 millisecond') END,
       updated_at = now()
     WHERE l.locked_until IS NULL OR l.locked_until <= now()
     RETURNING l.attempts`,
    [emailKey, maxAttempts, lockMs, maxAttempts, lockMs],
  );
  return result.rows.length === 1;
}

/** A correct password: the count starts again. */
export async function clearSignInAttempts(db: Queryable, emailKey: string): Promise<void> {
  await db('staff_login_attempts').where({ email_key: emailKey }).delete();
}

/**
 * Retention of sign-in attempts: a row with no lock in force that nobody touched for a day goes
 * (every address ever tried leaves one, a mistyped or a guessed one too), at most `batch` rows a
 * call, so a table swollen by a credential-stuffing run is emptied over several passes without a
 * long statement. What goes is a count of failures over a day old; a lock in force always stays.
 * The rows are picked FOR UPDATE SKIP LOCKED: a sign-in counting on a row at that moment keeps it
 * (its updated_at is then recent). Answers how many went. Run by the wallet retry scheduler's
 * sweep and the cron route's pass (rounds/retry-scheduler.ts, rounds/wallet-retry-job.ts).
 */
export async function purgeOldSignInAttempts(db: Queryable, batch = 1000): Promise<number> {
  const result = await db.raw<{ rowCount: number | null }>(
    `DELETE FROM staff_login_attempts WHERE email_key IN (
       SELECT email_key FROM staff_login_attempts
        WHERE (locked_until IS NULL OR locked_until <= now()) AND updated_at < now() - interval '1 day'
        LIMIT ${sqlLimit(batch)} FOR UPDATE SKIP LOCKED)`,
  );
  return result.rowCount ?? 0;
}

/** The lock end of each email key that has one (the console's "Locked" badge). */
export async function lockedUntilOf(db: Queryable, emailKeys: string[]): Promise<Map<string, string>> {
  if (emailKeys.length === 0) return new Map();
  const rows = await db('staff_login_attempts')
    .whereIn('email_key', emailKeys)
    .whereNotNull('locked_until')
    .select<{ email_key: string; locked_until: Date | string }[]>('email_key', 'locked_until');
  return new Map(rows.map((r) => [r.email_key, toIso(r.locked_until)]));
}

export async function recordSuccessfulLogin(db: Queryable, staffId: string): Promise<void> {
  await db('staff_accounts').where({ staff_id: staffId }).update({ last_login_at: db.fn.now() });
}

/* --------------------------------------------------------------------------------- sessions */

export interface SessionRow {
  token_hash: string;
  staff_id: string;
  created_at: Date | string;
  last_seen_at: Date | string;
  expires_at: Date | string;
  revoked_at: Date | string | null;
}

export async function insertSession(
  db: Queryable,
  s: { tokenHash: string; staffId: string; ip: string; userAgent: string | null; expiresAt: Date },
): Promise<void> {
  await db('staff_sessions').insert({ token_hash: s.tokenHash, staff_id: s.staffId, ip: s.ip, user_agent: s.userAgent, expires_at: s.expiresAt });
}

/** A live session (not revoked, not expired, seen within `idleMs`) with its account. */
export async function liveSession(db: Queryable, tokenHash: string, idleMs: number): Promise<{ account: StaffAccount; lastSeenAt: Date } | null> {
  const row = await db('staff_sessions as s')
    .join('staff_accounts as a', 'a.staff_id', 's.staff_id')
    .where('s.token_hash', tokenHash)
    .whereNull('s.revoked_at')
    .where('s.expires_at', '>', db.fn.now())
    .where('s.last_seen_at', '>', db.raw(`now() - (? * interval '1 millisecond')`, [idleMs]))
    .first<(AccountRow & { last_seen_at_s: Date | string }) | undefined>('a.*', 's.last_seen_at as last_seen_at_s');
  return row ? { account: fromRow(row), lastSeenAt: new Date(toIso(row.last_seen_at_s)) } : null;
}

export async function touchSession(db: Queryable, tokenHash: string): Promise<void> {
  await db('staff_sessions').where({ token_hash: tokenHash }).update({ last_seen_at: db.fn.now() });
}

export async function revokeSession(db: Queryable, tokenHash: string): Promise<void> {
  await db('staff_sessions').where({ token_hash: tokenHash }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
}

/** Revokes every session of an account, but `keep` (the one changing its password). */
export async function revokeSessionsOf(db: Queryable, staffId: string, keep?: string): Promise<number> {
  const q = db('staff_sessions').where({ staff_id: staffId }).whereNull('revoked_at');
  if (keep) q.whereNot({ token_hash: keep });
  return q.update({ revoked_at: db.fn.now() });
}

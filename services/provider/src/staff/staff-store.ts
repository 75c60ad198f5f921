/** Data access for staff_accounts and staff_sessions (the admin console's accounts and server-side sessions). */
import { toIso, type Queryable } from '../store/db.js';

export const STAFF_ROLES = ['platform_admin', 'admin', 'viewer'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

export interface StaffAccount {
  staffId: string;
  email: string;
  role: StaffRole;
  /** null for a platform admin; the casino (operator-currency profiles sharing it) otherwise. */
  tenantId: string | null;
  failedLogins: number;
  lockedUntil: string | null;
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
  failed_logins: number;
  locked_until: Date | string | null;
  password_changed_at: Date | string;
  last_login_at: Date | string | null;
  created_at: Date | string;
}

const fromRow = (r: AccountRow): StaffAccount => ({
  staffId: r.staff_id,
  email: r.email,
  role: r.role,
  tenantId: r.tenant_id,
  failedLogins: r.failed_logins,
  lockedUntil: r.locked_until === null ? null : toIso(r.locked_until),
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

export async function insertAccount(db: Queryable, a: { staffId: string; email: string; passwordHash: string; role: StaffRole; tenantId: string | null }): Promise<StaffAccount> {
  const [row] = await db<AccountRow>('staff_accounts')
    .insert({ staff_id: a.staffId, email: a.email.toLowerCase(), password_hash: a.passwordHash, role: a.role, tenant_id: a.tenantId })
    .returning('*');
  return fromRow(row as AccountRow);
}

export async function updateAccount(db: Queryable, staffId: string, change: { role?: StaffRole; tenantId?: string | null; passwordHash?: string }): Promise<StaffAccount | null> {
  const patch: Record<string, unknown> = { updated_at: db.fn.now() };
  if (change.role !== undefined) patch.role = change.role;
  if (change.tenantId !== undefined) patch.tenant_id = change.tenantId;
  if (change.passwordHash !== undefined) {
    patch.password_hash = change.passwordHash;
    patch.password_changed_at = db.fn.now();
    patch.failed_logins = 0;
    patch.locked_until = null;
  }
  const [row] = await db<AccountRow>('staff_accounts').where({ staff_id: staffId }).update(patch).returning('*');
  return row ? fromRow(row as AccountRow) : null;
}

export async function deleteAccount(db: Queryable, staffId: string): Promise<boolean> {
  return (await db('staff_accounts').where({ staff_id: staffId }).delete()) > 0;
}

/** One more failed login; locks the account for `lockMs` once `maxFailures` are reached in a row. */
export async function recordFailedLogin(db: Queryable, staffId: string, maxFailures: number, lockMs: number): Promise<void> {
  await db.raw(
    `UPDATE staff_accounts SET failed_logins = failed_logins + 1,
       locked_until = CASE WHEN failed_logins + 1 >= ? THEN now() + (? * interval '1 millisecond') ELSE locked_until END
     WHERE staff_id = ?`,
    [maxFailures, lockMs, staffId],
  );
}

export async function recordSuccessfulLogin(db: Queryable, staffId: string): Promise<void> {
  await db('staff_accounts').where({ staff_id: staffId }).update({ failed_logins: 0, locked_until: null, last_login_at: db.fn.now() });
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

export async function insertSession(db: Queryable, s: { tokenHash: string; staffId: string; ip: string; userAgent: string | null; expiresAt: Date }): Promise<void> {
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

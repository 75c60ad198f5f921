/**
 * Staff accounts of the admin console (issue 13 item 1): login with lockout, server-side sessions
 * (revocable, in PostgreSQL; the cookie holds a random token, the database its SHA-256), logout,
 * password change, and the accounts a platform admin or a casino's admin manages.
 *
 * Roles: `platform_admin` (every operator, no tenant), and casino staff bound to one tenant
 * (the operator-currency profiles sharing a `tenantId`) as `admin` (changes) or `viewer` (reads).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../errors.js';
import type { Queryable } from '../store/db.js';
import { DUMMY_HASH, hashPassword, verifyPassword } from './passwords.js';
import {
  findAccountByEmail,
  insertAccount,
  clearSignInAttempts,
  insertSession,
  liveSession,
  recordSuccessfulLogin,
  reserveSignInAttempt,
  revokeSession,
  revokeSessionsOf,
  touchSession,
  updateAccount,
  getAccount,
  type StaffAccount,
  type StaffRole,
} from './staff-store.js';

/**
 * Sign-in attempts per email (issue 23 defect 2): five attempts without a correct password lock the
 * email for 15 minutes; after the lock one more wrong password locks it again, until a correct one
 * clears the count. Counted per normalised email whether or not an account has it, so the lock
 * reveals nothing about which emails exist; the login and the password change share the count.
 */
export const LOCKOUT = { maxFailures: 5, lockMs: 15 * 60_000 };

/** The key of an email's attempt count: SHA-256 (hex) of the email as accounts store it (lower case). */
export const emailKey = (email: string) => createHash('sha256').update(email.toLowerCase()).digest('hex');

const LOCKED_MESSAGE = 'too many failed sign-in attempts for this email; try again later or ask an administrator';
const WRONG_LOGIN = 'the email or the password is wrong';
export const SESSION = { absoluteMs: 12 * 3_600_000, idleMs: 2 * 3_600_000, touchEveryMs: 60_000 };

/** Who is calling an admin route: a staff member by session cookie, or the bootstrap bearer token (a platform admin). */
export interface StaffPrincipal {
  staffId: string | null;
  email: string | null;
  role: StaffRole;
  tenantId: string | null;
  via: 'session' | 'token';
  /** SHA-256 of the session token (never the token itself). */
  sessionHash: string | null;
}

export const TOKEN_PRINCIPAL: StaffPrincipal = { staffId: null, email: null, role: 'platform_admin', tenantId: null, via: 'token', sessionHash: null };

export const isPlatformAdmin = (p: Pick<StaffPrincipal, 'role'>) => p.role === 'platform_admin';

/** May this principal see data of this tenant? Profiles without a tenant belong to the platform only. */
export const seesTenant = (p: Pick<StaffPrincipal, 'role' | 'tenantId'>, tenantId: string | null) =>
  isPlatformAdmin(p) || (tenantId !== null && p.tenantId === tenantId);

const ROLE_RANK: Record<StaffRole, number> = { viewer: 0, admin: 1, platform_admin: 2 };
/** The minimum role a route asks for (http/authentication.ts `config.staff`). */
export type RequiredRole = 'viewer' | 'admin' | 'platform';
export const meetsRole = (p: StaffPrincipal, required: RequiredRole) => ROLE_RANK[p.role] >= ROLE_RANK[required === 'platform' ? 'platform_admin' : required];

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export interface LoginMeta {
  ip: string;
  userAgent: string | null;
}

/** Checks the password and opens a session; answers the cookie token (shown to nobody but the browser). */
export async function login(
  db: Queryable,
  email: string,
  password: string,
  meta: LoginMeta,
): Promise<{ token: string; account: StaffAccount; expiresAt: Date }> {
  // The attempt is counted before the slow hash, atomically (staff-store.ts): a burst cannot get
  // more evaluations than the limit. Unknown emails count and lock the same way.
  const key = emailKey(email);
  if (!(await reserveSignInAttempt(db, key, LOCKOUT.maxFailures, LOCKOUT.lockMs))) throw new AppError('RATE_LIMITED', LOCKED_MESSAGE);
  const account = await findAccountByEmail(db, email);
  // An unknown email costs the same scrypt work (DUMMY_HASH has the same parameters) and answers the same.
  const matches = await verifyPassword(password, account?.passwordHash ?? DUMMY_HASH);
  if (!account || !matches) throw new AppError('UNAUTHORIZED', WRONG_LOGIN);
  await clearSignInAttempts(db, key);
  await recordSuccessfulLogin(db, account.staffId);
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + SESSION.absoluteMs);
  await insertSession(db, { tokenHash: hashToken(token), staffId: account.staffId, ip: meta.ip, userAgent: meta.userAgent?.slice(0, 300) ?? null, expiresAt });
  const { passwordHash: _h, ...rest } = account;
  return { token, account: rest, expiresAt };
}

/** The principal of a session cookie, or null when the session is unknown, revoked, expired or idle too long. */
export async function principalOfSession(db: Queryable, token: string): Promise<StaffPrincipal | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const sessionHash = hashToken(token);
  const live = await liveSession(db, sessionHash, SESSION.idleMs);
  if (!live) return null;
  if (Date.now() - live.lastSeenAt.getTime() > SESSION.touchEveryMs) await touchSession(db, sessionHash);
  const a = live.account;
  return { staffId: a.staffId, email: a.email, role: a.role, tenantId: a.tenantId, via: 'session', sessionHash };
}

export async function logout(db: Queryable, p: StaffPrincipal): Promise<void> {
  if (p.sessionHash) await revokeSession(db, p.sessionHash);
}

/** Password change: the current password (counted like a login attempt), then every other session of the account is revoked. */
export async function changePassword(db: Queryable, p: StaffPrincipal, current: string, next: string): Promise<void> {
  if (!p.staffId) throw new AppError('FORBIDDEN', 'the bootstrap token has no password to change');
  if (current === next) throw new AppError('VALIDATION_ERROR', 'the new password must differ from the current one');
  const account = await getAccount(db, p.staffId);
  if (!account) throw new AppError('UNAUTHORIZED', 'the session has ended');
  // A wrong current password counts against the same limit as a failed login (a stolen session
  // cannot guess the password either).
  const key = emailKey(account.email);
  if (!(await reserveSignInAttempt(db, key, LOCKOUT.maxFailures, LOCKOUT.lockMs))) throw new AppError('RATE_LIMITED', LOCKED_MESSAGE);
  if (!(await verifyPassword(current, account.passwordHash))) throw new AppError('VALIDATION_ERROR', 'the current password is wrong');
  await clearSignInAttempts(db, key);
  await updateAccount(db, p.staffId, { passwordHash: await hashPassword(next) });
  await revokeSessionsOf(db, p.staffId, p.sessionHash ?? undefined);
}

/** Creates an account (the CLI's first platform admin, an invitation); email taken → VALIDATION_ERROR. */
export async function createAccount(db: Queryable, a: { email: string; password: string; role: StaffRole; tenantId: string | null }): Promise<StaffAccount> {
  if ((a.role === 'platform_admin') !== (a.tenantId === null)) throw new AppError('VALIDATION_ERROR', 'a platform admin has no tenant; casino staff have one');
  if (await findAccountByEmail(db, a.email)) throw new AppError('VALIDATION_ERROR', 'an account with this email exists');
  return insertAccount(db, { staffId: randomUUID(), email: a.email, passwordHash: await hashPassword(a.password), role: a.role, tenantId: a.tenantId });
}

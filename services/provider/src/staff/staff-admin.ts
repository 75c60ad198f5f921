/**
 * Staff management (issue 13 item 5; moved out of the route file by issue 24 item 3): who may see,
 * invite, re-role and remove which account, and the audit of each change. A casino's admin manages
 * the staff of their own tenant; a platform admin manages every account. An invitation creates the
 * account with a temporary password shown once (the console has no mail).
 *
 * The role hierarchy: `viewer` < `admin` < `platform_admin` (staff.ts `meetsRole`). Casino staff
 * never create, become or remove a platform admin; a platform admin and casino staff are different
 * accounts (a role never crosses that line); nobody changes their own role or removes themselves.
 */
import { AppError } from '../errors.js';
import type { Queryable } from '../store/db.js';
import { recordChange, type Actor } from './config-audit.js';
import { generatePassword } from './passwords.js';
import { deleteAccount, getAccount, listAccounts, lockedUntilOf, revokeSessionsOf, updateAccount, type StaffAccount, type StaffRole } from './staff-store.js';
import type { OperatorStore } from '../operators/operator-store.js';
import { changePassword, createAccount, emailKey, isPlatformAdmin, seesTenant, type StaffPrincipal } from './staff.js';

/** An account as the console shows it (its sign-in lock is kept per email in staff_login_attempts). */
export interface StaffView {
  staffId: string;
  email: string;
  role: StaffRole;
  tenantId: string | null;
  lockedUntil: string | null;
  lastLoginAt: string | null;
  createdAt: string;
}

async function views(db: Queryable, accounts: StaffAccount[]): Promise<StaffView[]> {
  const locks = await lockedUntilOf(
    db,
    accounts.map((a) => emailKey(a.email)),
  );
  return accounts.map((a) => ({
    staffId: a.staffId,
    email: a.email,
    role: a.role,
    tenantId: a.tenantId,
    lockedUntil: locks.get(emailKey(a.email)) ?? null,
    lastLoginAt: a.lastLoginAt,
    createdAt: a.createdAt,
  }));
}
const auditView = (a: StaffAccount) => ({ email: a.email, role: a.role, tenantId: a.tenantId });
const otherCasino = () => new AppError('FORBIDDEN', 'this belongs to another casino');

/** The accounts the caller may see: casino staff their tenant's (another tenant asked: 403), a platform admin any tenant's or all. */
export async function listStaff(db: Queryable, p: StaffPrincipal, tenantId: string | undefined): Promise<StaffView[]> {
  if (!isPlatformAdmin(p) && tenantId && tenantId !== p.tenantId) throw otherCasino();
  return views(db, await listAccounts(db, isPlatformAdmin(p) ? tenantId : p.tenantId!));
}

/** Invites a member: casino staff invite into their own tenant only and never a platform admin. */
export async function inviteStaff(
  db: Queryable,
  p: StaffPrincipal,
  actor: Actor,
  ask: { email: string; role: StaffRole; tenantId?: string | null | undefined },
): Promise<{ staff: StaffView; temporaryPassword: string }> {
  const role = ask.role;
  let tenantId = ask.tenantId ?? null;
  if (!isPlatformAdmin(p)) {
    if (role === 'platform_admin') throw new AppError('FORBIDDEN', 'only a platform admin creates platform admins');
    if (tenantId !== null && tenantId !== p.tenantId) throw otherCasino();
    tenantId = p.tenantId;
  }
  if (role === 'platform_admin') tenantId = null;
  else if (tenantId === null) throw new AppError('VALIDATION_ERROR', 'casino staff need a tenantId');
  const temporaryPassword = generatePassword();
  const account = await createAccount(db, { email: ask.email, password: temporaryPassword, role, tenantId });
  await recordChange(db, actor, {
    action: 'staff.invited',
    tenantId,
    operatorId: null,
    targetType: 'staff',
    targetId: account.staffId,
    before: null,
    after: auditView(account),
  });
  return { staff: (await views(db, [account]))[0]!, temporaryPassword };
}

/** Changes a member's role within their side of the platform/casino line; never one's own. */
export async function changeStaffRole(db: Queryable, p: StaffPrincipal, actor: Actor, staffId: string, role: StaffRole): Promise<StaffView> {
  const before = await getAccount(db, staffId);
  if (!before) throw new AppError('NOT_FOUND', 'no such staff account');
  if ((role === 'platform_admin') !== (before.role === 'platform_admin')) {
    if (!isPlatformAdmin(p)) throw new AppError('FORBIDDEN', 'only a platform admin changes platform roles');
    throw new AppError('VALIDATION_ERROR', 'a platform admin and casino staff are different accounts: invite a new one');
  }
  if (before.staffId === p.staffId) throw new AppError('VALIDATION_ERROR', 'you cannot change your own role');
  const after = (await updateAccount(db, before.staffId, { role }))!;
  await recordChange(db, actor, {
    action: 'staff.role_changed',
    tenantId: before.tenantId,
    operatorId: null,
    targetType: 'staff',
    targetId: before.staffId,
    before: auditView(before),
    after: auditView(after),
  });
  return (await views(db, [after]))[0]!;
}

/** Removes a member (their sessions end at once); never oneself, a platform admin only by a platform admin. */
export async function removeStaff(db: Queryable, p: StaffPrincipal, actor: Actor, staffId: string): Promise<void> {
  const before = await getAccount(db, staffId);
  if (!before) throw new AppError('NOT_FOUND', 'no such staff account');
  if (before.staffId === p.staffId) throw new AppError('VALIDATION_ERROR', 'you cannot remove yourself');
  if (before.role === 'platform_admin' && !isPlatformAdmin(p)) throw otherCasino();
  await revokeSessionsOf(db, before.staffId);
  await deleteAccount(db, before.staffId);
  await recordChange(db, actor, {
    action: 'staff.removed',
    tenantId: before.tenantId,
    operatorId: null,
    targetType: 'staff',
    targetId: before.staffId,
    before: auditView(before),
    after: null,
  });
}

/** The tenants whose profiles the principal sees (every tenant that has a profile, for a platform admin). */
export async function visibleTenants(db: Queryable, operators: Pick<OperatorStore, 'list'>, p: Pick<StaffPrincipal, 'role' | 'tenantId'>): Promise<string[]> {
  const all = [...new Set((await operators.list(db)).map((o) => o.tenantId).filter((t): t is string => t !== null))].sort();
  return all.filter((t) => seesTenant(p, t));
}

/** One's own password change (staff.ts `changePassword`: counted like a login, other sessions revoked), audited. */
export async function changeOwnPassword(db: Queryable, p: StaffPrincipal, actor: Actor, current: string, next: string): Promise<void> {
  await changePassword(db, p, current, next);
  await recordChange(db, actor, {
    action: 'staff.password_changed',
    tenantId: p.tenantId,
    operatorId: null,
    targetType: 'staff',
    targetId: p.staffId ?? '',
    before: null,
    after: null,
  });
}

/**
 * Staff management (issue 13 item 5): a casino's admin invites and removes staff of their own
 * tenant; a platform admin manages every account. An invitation creates the account with a
 * temporary password shown once (the console has no mail); the member changes it after signing in.
 */
import { z } from 'zod';
import type { Services } from '../../../services.js';
import type { AppInstance } from '../../zod-provider.js';
import { AppError } from '../../../errors.js';
import { generatePassword } from '../../../staff/passwords.js';
import { recordChange } from '../../../staff/config-audit.js';
import { deleteAccount, getAccount, listAccounts, lockedUntilOf, revokeSessionsOf, updateAccount, type StaffAccount } from '../../../staff/staff-store.js';
import { createAccount, emailKey, isPlatformAdmin } from '../../../staff/staff.js';
import { staffOf } from '../../authentication.js';
import { okAnswer, staffAnswer } from '../../answers.js';
import { actorOf } from './actor.js';
import { emailSchema } from './auth.js';

const tenantIdSchema = z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash and underscore only');
const roleSchema = z.enum(['platform_admin', 'admin', 'viewer']);
const params = z.object({ staffId: z.uuid() });
const inviteBody = z.object({ email: emailSchema, role: roleSchema, tenantId: tenantIdSchema.nullable().optional() }).strict();
const editBody = z.object({ role: roleSchema }).strict();
const listQuery = z.object({ tenantId: tenantIdSchema.optional() });

const view = (a: StaffAccount, locks: Map<string, string>) => ({ staffId: a.staffId, email: a.email, role: a.role, tenantId: a.tenantId, lockedUntil: locks.get(emailKey(a.email)) ?? null, lastLoginAt: a.lastLoginAt, createdAt: a.createdAt });
/** The accounts' views with their sign-in locks (kept per email in staff_login_attempts). */
async function views(s: Services, accounts: StaffAccount[]) {
  const locks = await lockedUntilOf(s.db, accounts.map((a) => emailKey(a.email)));
  return accounts.map((a) => view(a, locks));
}
const auditView = (a: StaffAccount) => ({ email: a.email, role: a.role, tenantId: a.tenantId });

export function adminStaffRoutes(app: AppInstance, s: Services): void {
  app.get(
    '/api/admin/staff',
    { config: { auth: 'staff', staff: { role: 'viewer', scope: 'self' } }, schema: { operationId: 'listStaff', summary: 'Staff accounts (casino staff: their own tenant)', tags: ['admin'], querystring: listQuery, response: { 200: z.object({ staff: z.array(staffAnswer) }) } } },
    async (request) => {
      const p = staffOf(request);
      if (!isPlatformAdmin(p) && request.query.tenantId && request.query.tenantId !== p.tenantId) throw new AppError('FORBIDDEN', 'this belongs to another casino');
      const tenant = isPlatformAdmin(p) ? request.query.tenantId : p.tenantId!;
      return { staff: await views(s, await listAccounts(s.db, tenant)) };
    },
  );

  app.post(
    '/api/admin/staff',
    {
      config: { auth: 'staff', staff: { role: 'admin', scope: 'self' } },
      schema: { operationId: 'inviteStaff', summary: 'Invite a staff member: the account and a temporary password shown once', tags: ['admin'], body: inviteBody, response: { 201: z.object({ staff: staffAnswer, temporaryPassword: z.string() }) } },
    },
    async (request, reply) => {
      const p = staffOf(request);
      const role = request.body.role;
      let tenantId = request.body.tenantId ?? null;
      if (!isPlatformAdmin(p)) {
        if (role === 'platform_admin') throw new AppError('FORBIDDEN', 'only a platform admin creates platform admins');
        if (tenantId !== null && tenantId !== p.tenantId) throw new AppError('FORBIDDEN', 'this belongs to another casino');
        tenantId = p.tenantId;
      }
      if (role === 'platform_admin') tenantId = null;
      else if (tenantId === null) throw new AppError('VALIDATION_ERROR', 'casino staff need a tenantId');
      const temporaryPassword = generatePassword();
      const account = await createAccount(s.db, { email: request.body.email, password: temporaryPassword, role, tenantId });
      await recordChange(s.db, actorOf(request), { action: 'staff.invited', tenantId, operatorId: null, targetType: 'staff', targetId: account.staffId, before: null, after: auditView(account) });
      return reply.status(201).send({ staff: (await views(s, [account]))[0]!, temporaryPassword });
    },
  );

  app.patch(
    '/api/admin/staff/:staffId',
    { config: { auth: 'staff', staff: { role: 'admin', scope: 'staff' } }, schema: { operationId: 'editStaff', summary: 'Change a staff member’s role', tags: ['admin'], params, body: editBody, response: { 200: staffAnswer } } },
    async (request) => {
      const p = staffOf(request);
      const before = await getAccount(s.db, request.params.staffId);
      if (!before) throw new AppError('NOT_FOUND', 'no such staff account');
      const role = request.body.role;
      if ((role === 'platform_admin') !== (before.role === 'platform_admin')) {
        if (!isPlatformAdmin(p)) throw new AppError('FORBIDDEN', 'only a platform admin changes platform roles');
        throw new AppError('VALIDATION_ERROR', 'a platform admin and casino staff are different accounts: invite a new one');
      }
      if (before.staffId === p.staffId) throw new AppError('VALIDATION_ERROR', 'you cannot change your own role');
      const after = await updateAccount(s.db, before.staffId, { role });
      await recordChange(s.db, actorOf(request), { action: 'staff.role_changed', tenantId: before.tenantId, operatorId: null, targetType: 'staff', targetId: before.staffId, before: auditView(before), after: auditView(after!) });
      return (await views(s, [after!]))[0]!;
    },
  );

  app.delete(
    '/api/admin/staff/:staffId',
    { config: { auth: 'staff', staff: { role: 'admin', scope: 'staff' } }, schema: { operationId: 'removeStaff', summary: 'Remove a staff member (their sessions end at once)', tags: ['admin'], params, response: { 200: okAnswer } } },
    async (request) => {
      const p = staffOf(request);
      const before = await getAccount(s.db, request.params.staffId);
      if (!before) throw new AppError('NOT_FOUND', 'no such staff account');
      if (before.staffId === p.staffId) throw new AppError('VALIDATION_ERROR', 'you cannot remove yourself');
      if (before.role === 'platform_admin' && !isPlatformAdmin(p)) throw new AppError('FORBIDDEN', 'this belongs to another casino');
      await revokeSessionsOf(s.db, before.staffId);
      await deleteAccount(s.db, before.staffId);
      await recordChange(s.db, actorOf(request), { action: 'staff.removed', tenantId: before.tenantId, operatorId: null, targetType: 'staff', targetId: before.staffId, before: auditView(before), after: null });
      return { ok: true as const };
    },
  );
}

/**
 * Staff management routes (issue 13 item 5): list, invite, change a role, remove. The rules (who
 * may manage whom, the tenant, the audit) are in staff/staff-admin.ts.
 */
import { z } from 'zod';
import type { Services } from '../../../services.js';
import type { AppInstance } from '../../zod-provider.js';
import { tenantIdSchema } from '../../../operators/profile-fields.js';
import { STAFF_ROLES } from '../../../staff/staff-store.js';
import { changeStaffRole, inviteStaff, listStaff, removeStaff } from '../../../staff/staff-admin.js';
import { staffOf } from '../../authentication.js';
import { okAnswer, staffAnswer } from '../../answers.js';
import { actorOf } from './actor.js';
import { emailSchema } from './auth.js';

const roleSchema = z.enum(STAFF_ROLES);
const params = z.object({ staffId: z.uuid() });
const inviteBody = z.object({ email: emailSchema, role: roleSchema, tenantId: tenantIdSchema.nullable().optional() }).strict();
const editBody = z.object({ role: roleSchema }).strict();
const listQuery = z.object({ tenantId: tenantIdSchema.optional() });

export function adminStaffRoutes(app: AppInstance, s: Services): void {
  app.get(
    '/api/admin/staff',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'self' } },
      schema: {
        operationId: 'listStaff',
        summary: 'Staff accounts (casino staff: their own tenant)',
        tags: ['admin'],
        querystring: listQuery,
        response: { 200: z.object({ staff: z.array(staffAnswer) }) },
      },
    },
    async (request) => ({ staff: await listStaff(s.db, staffOf(request), request.query.tenantId) }),
  );

  app.post(
    '/api/admin/staff',
    {
      config: { auth: 'staff', staff: { role: 'admin', scope: 'self' } },
      schema: {
        operationId: 'inviteStaff',
        summary: 'Invite a staff member: the account and a temporary password shown once',
        tags: ['admin'],
        body: inviteBody,
        response: { 201: z.object({ staff: staffAnswer, temporaryPassword: z.string() }) },
      },
    },
    async (request, reply) => reply.status(201).send(await inviteStaff(s.db, staffOf(request), actorOf(request), request.body)),
  );

  app.patch(
    '/api/admin/staff/:staffId',
    {
      config: { auth: 'staff', staff: { role: 'admin', scope: 'staff' } },
      schema: { operationId: 'editStaff', summary: 'Change a staff member’s role', tags: ['admin'], params, body: editBody, response: { 200: staffAnswer } },
    },
    async (request) => changeStaffRole(s.db, staffOf(request), actorOf(request), request.params.staffId, request.body.role),
  );

  app.delete(
    '/api/admin/staff/:staffId',
    {
      config: { auth: 'staff', staff: { role: 'admin', scope: 'staff' } },
      schema: {
        operationId: 'removeStaff',
        summary: 'Remove a staff member (their sessions end at once)',
        tags: ['admin'],
        params,
        response: { 200: okAnswer },
      },
    },
    async (request) => {
      await removeStaff(s.db, staffOf(request), actorOf(request), request.params.staffId);
      return { ok: true as const };
    },
  );
}

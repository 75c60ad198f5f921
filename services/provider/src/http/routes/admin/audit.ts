/** The config-change audit, read-only (issue 13 item 4): no route edits or deletes a record. */
import { z } from 'zod';
import type { Services } from '../../../services.js';
import type { AppInstance } from '../../zod-provider.js';
import { listChanges } from '../../../staff/config-audit.js';
import { staffOf } from '../../authentication.js';
import { auditAnswer } from '../../answers.js';
import { operatorIdText, queryInt } from '../../schemas.js';

const query = z.object({
  operatorId: operatorIdText.optional(),
  targetType: z.enum(['operator', 'secret', 'staff', 'round']).optional(),
  cursor: z
    .string()
    .regex(/^[0-9]{1,18}$/)
    .optional(),
  limit: queryInt(1, 200, 50),
});

export function adminAuditRoutes(app: AppInstance, s: Services): void {
  app.get(
    '/api/admin/audit',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'list' } },
      schema: {
        operationId: 'listConfigChanges',
        summary: 'Config changes, newest first (casino staff: their tenant)',
        tags: ['admin'],
        querystring: query,
        response: { 200: auditAnswer },
      },
    },
    async (request) => {
      const p = staffOf(request);
      return listChanges(s.db, { ...request.query, tenantIds: p.tenantId === null ? undefined : [p.tenantId] });
    },
  );
}

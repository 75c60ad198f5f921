/** GET /api/reconciliation: admin token, or a casino's signed request scoped to its operator (CONTRACT.md §6–§7). */
import { z } from 'zod';
import type { AppInstance, Services } from '../../app.js';
import { AppError } from '../../errors.js';
import { reconciliationRows, RECONCILIATION_TYPES } from '../../rounds/reconciliation.js';
import { adminOrOperator } from '../auth.js';

const isoTime = z.string().refine((v) => !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 time');
const query = z.object({
  operatorId: z.string().min(1).max(200).optional(),
  type: z.enum(RECONCILIATION_TYPES).optional(),
  from: isoTime.optional(),
  to: isoTime.optional(),
  cursor: z.string().min(1).max(40).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export function reconciliationRoutes(app: AppInstance, s: Services): void {
  app.get(
    '/api/reconciliation',
    { schema: { summary: 'Reconciliation rows of wallet callbacks', tags: ['operator', 'admin'], security: [{ adminToken: [] }], querystring: query } },
    async (request) => {
      const caller = await adminOrOperator(request, s);
      let operatorId = request.query.operatorId;
      if (caller.kind === 'operator') {
        if (operatorId && operatorId !== caller.operatorId) throw new AppError('FORBIDDEN', 'a casino reads only its own operator');
        operatorId = caller.operatorId;
      }
      return reconciliationRows(s.db, { ...request.query, operatorId });
    },
  );
}

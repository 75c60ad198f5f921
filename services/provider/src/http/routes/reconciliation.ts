/** GET /api/reconciliation: admin token, or a casino's signed request scoped to its operator (CONTRACT.md §6–§7). */
import { z } from 'zod';
import type { Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import { AppError } from '../../errors.js';
import { reconciliationRows, RECONCILIATION_TYPES } from '../../rounds/reconciliation.js';
import { operatorIdText, queryInt, queryTime } from '../schemas.js';
import { reconciliationAnswer } from '../answers.js';

const query = z.object({
  operatorId: operatorIdText.optional(),
  type: z.enum(RECONCILIATION_TYPES).optional(),
  from: queryTime.optional(),
  to: queryTime.optional(),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,400}$/, 'must be a cursor this route answered')
    .optional(),
  limit: queryInt(1, 500, 100),
  /** `true`: only callbacks of free-bet rounds; `false`: only paid ones (docs/free-bets.md) */
  freeBet: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true')),
  /** `true`: the promo credits (promotions' prizes, docs/promotions.md) instead of the rounds' callbacks */
  promo: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true'),
});

export function reconciliationRoutes(app: AppInstance, s: Services): void {
  app.get(
    '/api/reconciliation',
    {
      config: { auth: 'admin-or-operator' },
      schema: {
        operationId: 'getReconciliation',
        summary: 'Reconciliation rows of wallet callbacks',
        tags: ['operator', 'admin'],
        response: { 200: reconciliationAnswer },
        querystring: query,
      },
    },
    async (request) => {
      const caller = request.caller;
      let operatorId = request.query.operatorId;
      if (caller.kind === 'operator') {
        if (operatorId && operatorId !== caller.operatorId) throw new AppError('FORBIDDEN', 'a casino reads only its own operator');
        operatorId = caller.operatorId;
      }
      return reconciliationRows(s.db, { ...request.query, operatorId });
    },
  );
}

/** GET /api/operators/{operatorId}/config: the public configuration (CONTRACT.md §5). */
import { z } from 'zod';
import type { Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import { AppError } from '../../errors.js';
import { publicConfigView } from '../../operators/operators.js';
import { operatorIdText } from '../schemas.js';

export function operatorConfigRoutes(app: AppInstance, s: Services): void {
  app.get(
    '/api/operators/:operatorId/config',
    { config: { auth: 'public' }, schema: { summary: 'Public operator configuration', tags: ['operators'], params: z.object({ operatorId: operatorIdText }) } },
    async (request) => {
      const op = await s.operators.get(s.db, request.params.operatorId);
      if (!op || !op.enabled) throw new AppError('NOT_FOUND', 'no such operator');
      return publicConfigView(op);
    },
  );
}

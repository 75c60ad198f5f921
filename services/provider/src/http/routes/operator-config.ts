/** GET /api/operators/{operatorId}/config: the public configuration (CONTRACT.md §5). */
import { z } from 'zod';
import type { Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import { AppError } from '../../errors.js';
import { publicConfigView } from '../../operators/operators.js';
import { operatorIdText } from '../schemas.js';
import { publicConfigAnswer } from '../answers.js';

export function operatorConfigRoutes(app: AppInstance, s: Services): void {
  app.get(
    '/api/operators/:operatorId/config',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'getOperatorConfig',
        summary: 'Public operator configuration',
        tags: ['operators'],
        response: { 200: publicConfigAnswer },
        params: z.object({ operatorId: operatorIdText }),
      },
    },
    async (request) => {
      const op = await s.operators.get(s.db, request.params.operatorId);
      if (!op || !op.enabled) throw new AppError('NOT_FOUND', 'no such operator');
      return publicConfigView(op);
    },
  );
}

/** The admin API of operator profiles (CONTRACT.md §7), behind the administrator token. */
import { z } from 'zod';
import type { Services } from '../../../services.js';
import type { AppInstance } from '../../zod-provider.js';
import { AppError } from '../../../errors.js';
import { adminOperatorView, operatorIdSchema, operatorPutSchema, toOperatorWrite } from '../../../operators/operators.js';
import { adminOperatorAnswer } from '../../answers.js';

const params = z.object({ operatorId: operatorIdSchema });

export function adminOperatorRoutes(app: AppInstance, s: Services): void {
  app.put(
    '/api/admin/operators/:operatorId',
    { config: { auth: 'admin' }, schema: { operationId: 'putOperator', summary: 'Create or replace an operator-currency profile', tags: ['admin'], response: { 200: adminOperatorAnswer, 201: adminOperatorAnswer }, params, body: operatorPutSchema } },
    async (request, reply) => {
      const write = toOperatorWrite(request.params.operatorId, request.body, s.config.production);
      const { operator, created } = await s.operators.upsert(s.db, write);
      return reply.status(created ? 201 : 200).send(adminOperatorView(operator));
    },
  );

  app.get('/api/admin/operators', { config: { auth: 'admin' }, schema: { operationId: 'listOperators', summary: 'List operator profiles', tags: ['admin'], response: { 200: z.object({ operators: z.array(adminOperatorAnswer) }) } } }, async () => ({
    operators: (await s.operators.list(s.db)).map(adminOperatorView),
  }));

  app.get(
    '/api/admin/operators/:operatorId',
    { config: { auth: 'admin' }, schema: { operationId: 'getOperator', summary: 'One operator profile', tags: ['admin'], response: { 200: adminOperatorAnswer }, params } },
    async (request) => {
      const op = await s.operators.get(s.db, request.params.operatorId);
      if (!op) throw new AppError('NOT_FOUND', 'no such operator');
      return adminOperatorView(op);
    },
  );
}

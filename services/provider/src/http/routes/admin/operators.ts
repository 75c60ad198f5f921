/**
 * The admin API of operator profiles (CONTRACT.md §7, issue 13 item 3): the bearer token's PUT,
 * list and read, and the console's create (secret generated, shown once), edit, enable/disable,
 * secret rotation with a grace period, and the profile's change history. Every change is audited
 * (staff/config-audit.ts) without the secret; tenant isolation is each route's `config.staff`, the
 * tenant a profile lands in and the audit of each change are in staff/profile-changes.ts.
 */
import { z } from 'zod';
import type { Services } from '../../../services.js';
import type { AppInstance } from '../../zod-provider.js';
import { AppError } from '../../../errors.js';
import { adminOperatorView, operatorCreateSchema, operatorEditSchema, operatorIdSchema, operatorPutSchema } from '../../../operators/operators.js';
import { listChanges } from '../../../staff/config-audit.js';
import { createProfile, editProfile, putProfile, rotateProfileSecret, type ProfileDeps } from '../../../staff/profile-changes.js';
import { staffOf } from '../../authentication.js';
import { adminOperatorAnswer, auditAnswer, createdOperatorAnswer, rotatedSecretAnswer } from '../../answers.js';
import { queryInt } from '../../schemas.js';
import { actorOf } from './actor.js';

const params = z.object({ operatorId: operatorIdSchema });
const rotateBody = z
  .object({
    graceHours: z
      .number()
      .int()
      .min(0)
      .max(24 * 30),
  })
  .strict();
const historyQuery = z.object({
  cursor: z
    .string()
    .regex(/^[0-9]{1,18}$/)
    .optional(),
  limit: queryInt(1, 200, 50),
});

export function adminOperatorRoutes(app: AppInstance, s: Services): void {
  const deps: ProfileDeps = { db: s.db, operators: s.operators, production: s.config.production };

  app.put(
    '/api/admin/operators/:operatorId',
    {
      config: { auth: 'staff', staff: { role: 'admin', scope: 'operator', allowNew: true } },
      schema: {
        operationId: 'putOperator',
        summary: 'Create or replace an operator-currency profile',
        tags: ['admin'],
        response: { 200: adminOperatorAnswer, 201: adminOperatorAnswer },
        params,
        body: operatorPutSchema,
      },
    },
    async (request, reply) => {
      const { operator, created } = await putProfile(deps, staffOf(request), actorOf(request), request.params.operatorId, request.body);
      return reply.status(created ? 201 : 200).send(adminOperatorView(operator));
    },
  );

  app.get(
    '/api/admin/operators',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'list' } },
      schema: {
        operationId: 'listOperators',
        summary: 'List operator profiles',
        tags: ['admin'],
        response: { 200: z.object({ operators: z.array(adminOperatorAnswer) }) },
      },
    },
    async (request) => {
      const visible = request.staffScope.operatorIds;
      return { operators: (await s.operators.list(s.db)).filter((o) => visible === null || visible.includes(o.operatorId)).map(adminOperatorView) };
    },
  );

  app.get(
    '/api/admin/operators/:operatorId',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'operator' } },
      schema: { operationId: 'getOperator', summary: 'One operator profile', tags: ['admin'], response: { 200: adminOperatorAnswer }, params },
    },
    async (request) => {
      const op = await s.operators.get(s.db, request.params.operatorId);
      if (!op) throw new AppError('NOT_FOUND', 'no such operator');
      return adminOperatorView(op);
    },
  );

  app.post(
    '/api/admin/operators/:operatorId',
    {
      config: { auth: 'staff', staff: { role: 'admin', scope: 'operator', allowNew: true } },
      schema: {
        operationId: 'createOperator',
        summary: 'Create a profile; its shared secret is generated and shown once',
        tags: ['admin'],
        response: { 201: createdOperatorAnswer },
        params,
        body: operatorCreateSchema,
      },
    },
    async (request, reply) => {
      const { operator, sharedSecret } = await createProfile(deps, staffOf(request), actorOf(request), request.params.operatorId, request.body);
      return reply.status(201).send({ operator: adminOperatorView(operator), sharedSecret });
    },
  );

  app.patch(
    '/api/admin/operators/:operatorId',
    {
      config: { auth: 'staff', staff: { role: 'admin', scope: 'operator' } },
      schema: {
        operationId: 'editOperator',
        summary: 'Edit a profile (any field but the secret; enable or disable)',
        tags: ['admin'],
        response: { 200: adminOperatorAnswer },
        params,
        body: operatorEditSchema,
      },
    },
    async (request) => adminOperatorView(await editProfile(deps, staffOf(request), actorOf(request), request.params.operatorId, request.body)),
  );

  app.post(
    '/api/admin/operators/:operatorId/rotate-secret',
    {
      config: { auth: 'staff', staff: { role: 'admin', scope: 'operator' } },
      schema: {
        operationId: 'rotateOperatorSecret',
        summary: 'A new shared secret, shown once; the old one verifies signed requests until the grace period ends',
        tags: ['admin'],
        response: { 200: rotatedSecretAnswer },
        params,
        body: rotateBody,
      },
    },
    async (request) => rotateProfileSecret(deps, actorOf(request), request.params.operatorId, request.body.graceHours),
  );

  app.get(
    '/api/admin/operators/:operatorId/history',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'operator' } },
      schema: {
        operationId: 'operatorHistory',
        summary: 'The config-change audit of a profile, newest first',
        tags: ['admin'],
        response: { 200: auditAnswer },
        params,
        querystring: historyQuery,
      },
    },
    async (request) => listChanges(s.db, { operatorId: request.params.operatorId, cursor: request.query.cursor, limit: request.query.limit }),
  );
}

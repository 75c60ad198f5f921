/**
 * The admin API of operator profiles (CONTRACT.md §7, issue 13 item 3): the bearer token's PUT,
 * list and read, and the console's create (secret generated, shown once), edit, enable/disable,
 * secret rotation with a grace period, and the profile's change history. Every change is audited
 * (staff/config-audit.ts) without the secret; tenant isolation is each route's `config.staff`.
 */
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import type { Services } from '../../../services.js';
import type { AppInstance } from '../../zod-provider.js';
import { AppError } from '../../../errors.js';
import {
  adminOperatorView,
  newSharedSecret,
  operatorAsPut,
  operatorCreateSchema,
  operatorEditSchema,
  operatorIdSchema,
  operatorPutSchema,
  toOperatorWrite,
  type OperatorPut,
} from '../../../operators/operators.js';
import type { Operator } from '../../../operators/operator-schema.js';
import { listChanges, recordChange } from '../../../staff/config-audit.js';
import { isPlatformAdmin } from '../../../staff/staff.js';
import { staffOf } from '../../authentication.js';
import { adminOperatorAnswer, auditAnswer, createdOperatorAnswer, rotatedSecretAnswer } from '../../answers.js';
import { queryInt } from '../../schemas.js';
import { actorOf } from './actor.js';

const params = z.object({ operatorId: operatorIdSchema });
const rotateBody = z.object({ graceHours: z.number().int().min(0).max(24 * 30) }).strict();
const historyQuery = z.object({ cursor: z.string().regex(/^[0-9]{1,18}$/).optional(), limit: queryInt(1, 200, 50) });

/** Casino staff keep a profile in their own tenant; only a platform admin places one elsewhere. */
function tenantFor(request: FastifyRequest, asked: string | null | undefined, current: string | null): string | null {
  const p = staffOf(request);
  if (isPlatformAdmin(p)) return asked === undefined ? current : asked;
  if (asked !== undefined && asked !== null && asked !== p.tenantId) throw new AppError('FORBIDDEN', 'casino staff cannot move a profile to another casino');
  return p.tenantId;
}

export function adminOperatorRoutes(app: AppInstance, s: Services): void {
  const view = (op: Operator) => adminOperatorView(op);
  const save = async (request: FastifyRequest, operatorId: string, body: OperatorPut, action: string, before: (Operator & { sharedSecret?: string }) | null) => {
    const write = toOperatorWrite(operatorId, body, s.config.production);
    const { operator, created } = await s.operators.upsert(s.db, write);
    await recordChange(s.db, actorOf(request), {
      action: created ? 'operator.created' : action,
      tenantId: operator.tenantId,
      operatorId,
      targetType: 'operator',
      targetId: operatorId,
      before: before ? operatorAsPut(before) : null,
      after: operatorAsPut(operator),
    });
    if (before?.sharedSecret !== undefined && before.sharedSecret !== body.sharedSecret) {
      await recordChange(s.db, actorOf(request), { action: 'secret.replaced', tenantId: operator.tenantId, operatorId, targetType: 'secret', targetId: operatorId, before: null, after: null });
    }
    return { operator, created };
  };

  app.put(
    '/api/admin/operators/:operatorId',
    { config: { auth: 'staff', staff: { role: 'admin', scope: 'operator', allowNew: true } }, schema: { operationId: 'putOperator', summary: 'Create or replace an operator-currency profile', tags: ['admin'], response: { 200: adminOperatorAnswer, 201: adminOperatorAnswer }, params, body: operatorPutSchema } },
    async (request, reply) => {
      const before = await s.operators.getWithSecret(s.db, request.params.operatorId);
      const body = { ...request.body, tenantId: tenantFor(request, request.body.tenantId, before?.tenantId ?? null) };
      const { operator, created } = await save(request, request.params.operatorId, body, 'operator.replaced', before);
      return reply.status(created ? 201 : 200).send(view(operator));
    },
  );

  app.get(
    '/api/admin/operators',
    { config: { auth: 'staff', staff: { role: 'viewer', scope: 'list' } }, schema: { operationId: 'listOperators', summary: 'List operator profiles', tags: ['admin'], response: { 200: z.object({ operators: z.array(adminOperatorAnswer) }) } } },
    async (request) => {
      const visible = request.staffScope.operatorIds;
      return { operators: (await s.operators.list(s.db)).filter((o) => visible === null || visible.includes(o.operatorId)).map(view) };
    },
  );

  app.get(
    '/api/admin/operators/:operatorId',
    { config: { auth: 'staff', staff: { role: 'viewer', scope: 'operator' } }, schema: { operationId: 'getOperator', summary: 'One operator profile', tags: ['admin'], response: { 200: adminOperatorAnswer }, params } },
    async (request) => {
      const op = await s.operators.get(s.db, request.params.operatorId);
      if (!op) throw new AppError('NOT_FOUND', 'no such operator');
      return view(op);
    },
  );

  app.post(
    '/api/admin/operators/:operatorId',
    {
      config: { auth: 'staff', staff: { role: 'admin', scope: 'operator', allowNew: true } },
      schema: { operationId: 'createOperator', summary: 'Create a profile; its shared secret is generated and shown once', tags: ['admin'], response: { 201: createdOperatorAnswer }, params, body: operatorCreateSchema },
    },
    async (request, reply) => {
      if (await s.operators.get(s.db, request.params.operatorId)) throw new AppError('VALIDATION_ERROR', `a profile ${request.params.operatorId} exists already`);
      const sharedSecret = newSharedSecret();
      const body = { ...request.body, sharedSecret, tenantId: tenantFor(request, request.body.tenantId, null) };
      const { operator } = await save(request, request.params.operatorId, body, 'operator.created', null);
      return reply.status(201).send({ operator: view(operator), sharedSecret });
    },
  );

  app.patch(
    '/api/admin/operators/:operatorId',
    { config: { auth: 'staff', staff: { role: 'admin', scope: 'operator' } }, schema: { operationId: 'editOperator', summary: 'Edit a profile (any field but the secret; enable or disable)', tags: ['admin'], response: { 200: adminOperatorAnswer }, params, body: operatorEditSchema } },
    async (request) => {
      const current = await s.operators.getWithSecret(s.db, request.params.operatorId);
      if (!current) throw new AppError('NOT_FOUND', 'no such operator');
      const edit = Object.fromEntries(Object.entries(request.body).filter(([, v]) => v !== undefined)) as Partial<OperatorPut>;
      const merged: OperatorPut = { ...operatorAsPut(current), ...edit, sharedSecret: current.sharedSecret, tenantId: tenantFor(request, request.body.tenantId, current.tenantId) };
      const action = Object.keys(edit).length === 1 && edit.enabled !== undefined ? (edit.enabled ? 'operator.enabled' : 'operator.disabled') : 'operator.edited';
      const { operator } = await save(request, request.params.operatorId, merged, action, current);
      return view(operator);
    },
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
    async (request) => {
      const id = request.params.operatorId;
      const sharedSecret = newSharedSecret();
      const graceUntil = request.body.graceHours > 0 ? new Date(Date.now() + request.body.graceHours * 3_600_000) : null;
      const operator = await s.operators.rotateSecret(s.db, id, sharedSecret, graceUntil);
      if (!operator) throw new AppError('NOT_FOUND', 'no such operator');
      await recordChange(s.db, actorOf(request), {
        action: 'secret.rotated',
        tenantId: operator.tenantId,
        operatorId: id,
        targetType: 'secret',
        targetId: id,
        before: null,
        after: { graceHours: request.body.graceHours, previousSecretValidUntil: graceUntil?.toISOString() ?? null },
      });
      return { operatorId: id, sharedSecret, previousSecretValidUntil: graceUntil?.toISOString() ?? null };
    },
  );

  app.get(
    '/api/admin/operators/:operatorId/history',
    { config: { auth: 'staff', staff: { role: 'viewer', scope: 'operator' } }, schema: { operationId: 'operatorHistory', summary: 'The config-change audit of a profile, newest first', tags: ['admin'], response: { 200: auditAnswer }, params, querystring: historyQuery } },
    async (request) => listChanges(s.db, { operatorId: request.params.operatorId, cursor: request.query.cursor, limit: request.query.limit }),
  );
}

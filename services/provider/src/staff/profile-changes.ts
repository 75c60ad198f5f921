/**
 * Changes to operator-currency profiles by the admin API and console (CONTRACT.md §7, issue 13
 * item 3; moved out of the route file by issue 24 item 3): the tenant a profile lands in, and the
 * audit of every change (never the secret's value). Here rather than in operators/ because the
 * caller (a staff principal) and the audit live in staff/, one layer above operators/.
 */
import { AppError } from '../errors.js';
import type { Operator } from '../operators/operator-schema.js';
import type { OperatorStore } from '../operators/operator-store.js';
import { newSharedSecret, operatorAsPut, toOperatorWrite, type OperatorEdit, type OperatorPut } from '../operators/operators.js';
import type { Queryable } from '../store/db.js';
import { recordChange, type Actor } from './config-audit.js';
import { isPlatformAdmin, type StaffPrincipal } from './staff.js';

export interface ProfileDeps {
  db: Queryable;
  operators: OperatorStore;
  production: boolean;
}

/** Casino staff keep a profile in their own tenant; only a platform admin places one elsewhere (`asked` undefined: unchanged). */
export function tenantFor(p: StaffPrincipal, asked: string | null | undefined, current: string | null): string | null {
  if (isPlatformAdmin(p)) return asked === undefined ? current : asked;
  if (asked !== undefined && asked !== null && asked !== p.tenantId) throw new AppError('FORBIDDEN', 'casino staff cannot move a profile to another casino');
  return p.tenantId;
}

/** Writes a profile and audits it (`operator.created` when it is new, else `action`; `secret.replaced` when a PUT changed the secret). */
export async function saveProfile(
  deps: ProfileDeps,
  actor: Actor,
  operatorId: string,
  body: OperatorPut,
  action: string,
  before: (Operator & { sharedSecret?: string }) | null,
): Promise<{ operator: Operator; created: boolean }> {
  const { operator, created } = await deps.operators.upsert(deps.db, toOperatorWrite(operatorId, body, deps.production));
  await recordChange(deps.db, actor, {
    action: created ? 'operator.created' : action,
    tenantId: operator.tenantId,
    operatorId,
    targetType: 'operator',
    targetId: operatorId,
    before: before ? operatorAsPut(before) : null,
    after: operatorAsPut(operator),
  });
  if (before?.sharedSecret !== undefined && before.sharedSecret !== body.sharedSecret) {
    await recordChange(deps.db, actor, {
      action: 'secret.replaced',
      tenantId: operator.tenantId,
      operatorId,
      targetType: 'secret',
      targetId: operatorId,
      before: null,
      after: null,
    });
  }
  return { operator, created };
}

/** The admin PUT: creates or replaces a profile, in the caller's tenant unless a platform admin places it. */
export async function putProfile(
  deps: ProfileDeps,
  p: StaffPrincipal,
  actor: Actor,
  operatorId: string,
  body: OperatorPut,
): Promise<{ operator: Operator; created: boolean }> {
  const before = await deps.operators.getWithSecret(deps.db, operatorId);
  return saveProfile(deps, actor, operatorId, { ...body, tenantId: tenantFor(p, body.tenantId, before?.tenantId ?? null) }, 'operator.replaced', before);
}

/** The console's create: the shared secret is generated here and answered once. */
export async function createProfile(
  deps: ProfileDeps,
  p: StaffPrincipal,
  actor: Actor,
  operatorId: string,
  body: Omit<OperatorPut, 'sharedSecret'>,
): Promise<{ operator: Operator; sharedSecret: string }> {
  if (await deps.operators.get(deps.db, operatorId)) throw new AppError('VALIDATION_ERROR', `a profile ${operatorId} exists already`);
  const sharedSecret = newSharedSecret();
  const { operator } = await saveProfile(
    deps,
    actor,
    operatorId,
    { ...body, sharedSecret, tenantId: tenantFor(p, body.tenantId, null) } as OperatorPut,
    'operator.created',
    null,
  );
  return { operator, sharedSecret };
}

/** An edit (any field but the secret); a change of `enabled` alone is audited as enabled/disabled. */
export async function editProfile(deps: ProfileDeps, p: StaffPrincipal, actor: Actor, operatorId: string, edit: OperatorEdit): Promise<Operator> {
  const current = await deps.operators.getWithSecret(deps.db, operatorId);
  if (!current) throw new AppError('NOT_FOUND', 'no such operator');
  const given = Object.fromEntries(Object.entries(edit).filter(([, v]) => v !== undefined)) as Partial<OperatorPut>;
  const merged: OperatorPut = {
    ...operatorAsPut(current),
    ...given,
    sharedSecret: current.sharedSecret,
    tenantId: tenantFor(p, edit.tenantId, current.tenantId),
  };
  const action =
    Object.keys(given).length === 1 && given.enabled !== undefined ? (given.enabled ? 'operator.enabled' : 'operator.disabled') : 'operator.edited';
  return (await saveProfile(deps, actor, operatorId, merged, action, current)).operator;
}

/** A new shared secret, answered once; the old one verifies until `graceHours` pass (0: at once). Audited without either value. */
export async function rotateProfileSecret(
  deps: ProfileDeps,
  actor: Actor,
  operatorId: string,
  graceHours: number,
): Promise<{ operatorId: string; sharedSecret: string; previousSecretValidUntil: string | null }> {
  const sharedSecret = newSharedSecret();
  const graceUntil = graceHours > 0 ? new Date(Date.now() + graceHours * 3_600_000) : null;
  const operator = await deps.operators.rotateSecret(deps.db, operatorId, sharedSecret, graceUntil);
  if (!operator) throw new AppError('NOT_FOUND', 'no such operator');
  const previousSecretValidUntil = graceUntil?.toISOString() ?? null;
  await recordChange(deps.db, actor, {
    action: 'secret.rotated',
    tenantId: operator.tenantId,
    operatorId,
    targetType: 'secret',
    targetId: operatorId,
    before: null,
    after: { graceHours, previousSecretValidUntil },
  });
  return { operatorId, sharedSecret, previousSecretValidUntil };
}

/**
 * The tenant rule of an embedded currency switch (CONTRACT.md §14): a switch names a profile of
 * the same casino. When the profile of the session being switched from has a `tenantId`, a target
 * profile with another `tenantId` (or none) is refused with FORBIDDEN, before any casino call.
 * The game page sends `switchFromSessionId` with the POST /api/sessions of a switch.
 */
import { AppError } from '../errors.js';
import type { Operator } from '../operators/operator-schema.js';
import type { OperatorStore } from '../operators/operator-store.js';
import type { Queryable } from '../store/db.js';

export async function checkSwitchTenant(db: Queryable, operators: OperatorStore, fromSessionId: string, target: Operator): Promise<void> {
  const from = (await db('sessions').where({ session_id: fromSessionId }).first('operator_id')) as { operator_id: string } | undefined;
  if (!from) throw new AppError('INVALID_SESSION', 'unknown session to switch from');
  const current = await operators.get(db, from.operator_id);
  if (!current) throw new AppError('INVALID_SESSION', 'unknown session to switch from');
  if (current.tenantId !== null && target.tenantId !== current.tenantId) {
    throw new AppError('FORBIDDEN', 'the new currency profile belongs to another casino');
  }
}

/** Every check, in the order they run: the session first, the checks over the whole run last. */
import { idempotencyChecks } from './idempotency.js';
import { inputChecks } from './input.js';
import { moneyChecks } from './money.js';
import { performanceChecks } from './performance.js';
import { rollbackChecks } from './rollback.js';
import { runChecks } from './run.js';
import { sessionChecks } from './session.js';
import { signatureChecks } from './signature.js';
import type { CheckDef } from './types.js';

export const CHECKS: readonly CheckDef[] = [
  ...sessionChecks,
  ...signatureChecks,
  ...moneyChecks,
  ...idempotencyChecks,
  ...rollbackChecks,
  ...inputChecks,
  ...performanceChecks,
  ...runChecks,
];

export { CATEGORIES, type Category, type CheckDef, type CheckOutcome, type Figures } from './types.js';

export { startReferenceCasino, type ReferenceCasino, type ReferenceCasinoOptions, type RequestLogEntry } from './server.js';
export {
  formatMinor,
  parseMinor,
  SPEC_DECIMALS,
  type CreatePlayerInput,
  type LaunchTokenOptions,
  type CasinoRefusal,
  type RefusableOperation,
  type ResponsibleGamingSettings,
  REFUSABLE_OPERATIONS,
  validateResponsibleGaming,
  type OperatorConfig,
  type Transaction,
  type TransactionType,
} from './ledger.js';
export { MISBEHAVIOURS, MISBEHAVIOUR_NAMES, validateMisbehaviours, type MisbehaviourName, type Misbehaviours } from './misbehaviours.js';
export { validateFaultRules, type FaultAction, type FaultRule, type FaultState } from './faults.js';
export { NONCE_PATTERN, sign, signingPayload, signRequest, type SignatureCode, type SignRequestInput } from './signature.js';

/**
 * A rule of the games, the fairness scheme or the money arithmetic refused its input. The code
 * is one of CONTRACT.md §2; whoever answers a client (the provider's error handler, the game
 * page) turns it into its status and words. Pure: no HTTP here.
 */
export type RuleCode =
  | 'VALIDATION_ERROR'
  | 'UNSUPPORTED_CURRENCY'
  | 'BET_OUT_OF_RANGE'
  | 'MAX_PAYOUT_EXCEEDED'
  | 'INVALID_GAME_PARAMS'
  | 'ACTION_NOT_AVAILABLE'
  | 'ROUND_NOT_ACTIVE'
  | 'TILE_ALREADY_REVEALED';

export class RuleError extends Error {
  readonly code: RuleCode;
  readonly extras: Record<string, unknown>;

  constructor(code: RuleCode, message: string, extras: Record<string, unknown> = {}) {
    super(message);
    this.name = 'RuleError';
    this.code = code;
    this.extras = extras;
  }
}

export function isRuleError(err: unknown): err is RuleError {
  return err instanceof RuleError;
}

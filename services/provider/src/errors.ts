/**
 * The error catalogue of CONTRACT.md §2: every code the service answers with, and its HTTP
 * status. Code anywhere throws `AppError`; one handler (http/error-handler.ts) turns it into
 * Fastify's error shape. Nothing else decides a status.
 */
import { isRuleError } from '@gp/game-core';

export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  INVALID_SESSION: 400,
  INSUFFICIENT_FUNDS: 400,
  GAME_DISABLED: 400,
  SESSION_GAME_MISMATCH: 400,
  BET_OUT_OF_RANGE: 400,
  MAX_PAYOUT_EXCEEDED: 400,
  IDEMPOTENCY_REQUIRED: 400,
  IDEMPOTENCY_CONFLICT: 400,
  CURRENCY_MISMATCH: 400,
  UNSUPPORTED_CURRENCY: 400,
  WALLET_RETRY_OPERATOR_REQUIRED: 400,
  ROUND_NOT_FOUND: 400,
  ROUND_SESSION_MISMATCH: 400,
  ROUND_NOT_ACTIVE: 400,
  ACTIVE_ROUND_EXISTS: 400,
  ACTION_NOT_AVAILABLE: 400,
  TILE_ALREADY_REVEALED: 400,
  INVALID_GAME_PARAMS: 400,
  /** A bet of an autobet run (`autobet: true`) while the session's rules disable autobet (issue 27). */
  AUTOBET_DISABLED: 400,
  /** The player's previous round started less than the rules' `minRoundIntervalMs` ago (issue 27). */
  ROUND_TOO_FAST: 400,
  UNAUTHORIZED: 401,
  SIGNATURE_REQUIRED: 401,
  SIGNATURE_STALE: 401,
  SIGNATURE_REPLAYED: 401,
  SIGNATURE_INVALID: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  IDEMPOTENCY_IN_PROGRESS: 409,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  CASINO_HTTP_ERROR: 502,
  CASINO_HTTP_RETRYABLE: 502,
  CASINO_NETWORK_ERROR: 502,
  NOT_READY: 503,
  CASINO_TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorExtras {
  roundId?: string;
  roundStatus?: string;
  casinoCode?: string;
  /** The casino's own words of a 4xx refusal (wallet-client.ts `casinoMessageOf`). */
  casinoMessage?: string;
  [key: string]: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly extras: ErrorExtras;

  constructor(code: ErrorCode, message: string, extras: ErrorExtras = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.statusCode = ERROR_STATUS[code];
    this.extras = extras;
  }

  static isCode(code: string): code is ErrorCode {
    return Object.prototype.hasOwnProperty.call(ERROR_STATUS, code);
  }

  /** The same error with round identification attached (SPEC.md endpoint rule 2). */
  withRound(roundId: string, roundStatus: string): AppError {
    return new AppError(this.code, this.message, { ...this.extras, roundId, roundStatus });
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/** The AppError of an error the service knows: its own, or a rule of the game core (same code). */
export function asAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  if (isRuleError(err)) return new AppError(err.code, err.message, err.extras);
  return null;
}

/** HTTP reason phrases of the statuses the catalogue uses. */
const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** The error envelope of CONTRACT.md §2 (Fastify's error shape with a catalogue code). */
export function errorBody(err: AppError): Record<string, unknown> {
  return {
    statusCode: err.statusCode,
    error: STATUS_TEXT[err.statusCode] ?? 'Error',
    code: err.code,
    message: err.message,
    ...err.extras,
  };
}

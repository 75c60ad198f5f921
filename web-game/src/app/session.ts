/**
 * Opening a session (CONTRACT.md §5): the public profile and `POST /api/sessions` side by side.
 * The currency is the one the casino-validated session answers, never one a message claims.
 */
import { api, ApiError } from '../lib/api';
import { fromApi, type Minor } from '../lib/money';
import type { GameType } from './launch';
import type { ConfigAnswer, SessionAnswer } from './contract';
import { readConfig, readSession, type OperatorConfig, type Session } from './types';

export interface Opened {
  session: Session;
  config: OperatorConfig;
  balance: Minor;
}

export interface OpenInput {
  operatorId: string;
  launchToken: string;
  game: GameType;
  mode: 'single' | 'lobby';
  /** a currency switch: the session being replaced (the server checks the tenant rule) */
  switchFromSessionId?: string;
  signal?: AbortSignal;
}

export async function openSession(input: OpenInput): Promise<Opened> {
  const configPath = `/api/operators/${encodeURIComponent(input.operatorId)}/config`;
  const [configResult, sessionResult] = await Promise.allSettled([
    api.get(configPath, input.signal),
    api.post(
      '/api/sessions',
      {
        operatorId: input.operatorId,
        launchToken: input.launchToken,
        gameType: input.game,
        launchMode: input.mode,
        ...(input.switchFromSessionId ? { switchFromSessionId: input.switchFromSessionId } : {}),
      },
      { signal: input.signal },
    ),
  ]);
  // An unknown operator is told as such (its config is 404), whatever the session answered.
  if (configResult.status === 'rejected') {
    const err = configResult.reason;
    if (err instanceof ApiError && err.code === 'NOT_FOUND') throw new ApiError('UNKNOWN_OPERATOR', 'unknown operator', 404);
    if (sessionResult.status === 'rejected') throw sessionResult.reason;
    throw err;
  }
  if (sessionResult.status === 'rejected') throw sessionResult.reason;
  // The answers' shapes are the provider's contract (contract.ts, generated from /openapi.json).
  const config = readConfig(configResult.value as ConfigAnswer);
  const session = readSession(sessionResult.value as SessionAnswer);
  if (session.currency !== config.currency) throw new ApiError('CURRENCY_MISMATCH', 'the session and the profile disagree on the currency', 400);
  return { session, config, balance: fromApi(sessionResult.value.balance, config.decimals) };
}

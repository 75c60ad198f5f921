/**
 * POST /sandbox/launch (SPEC.md): a launch token from the demo casino and the launch URL of the
 * embedded game. Local/demo only: refused in production and for operators whose wallet is a
 * real casino (their backend creates launch tokens).
 */
import { z } from 'zod';
import type { Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import { AppError } from '../../errors.js';
import { SANDBOX_CALLBACK_BASE } from '../../operators/operator-schema.js';
import { gameTypeSchema, launchModeSchema, operatorIdText, playerRefSchema } from '../schemas.js';
import { launchAnswer } from '../answers.js';
import { publicBaseUrl } from '../public-base.js';

const body = z
  .object({
    operatorId: operatorIdText,
    playerRef: playerRefSchema,
    gameType: gameTypeSchema,
    launchMode: launchModeSchema.default('single'),
  })
  .strict();

export function launchUrl(base: string, operatorId: string, game: string, token: string, launchMode: 'single' | 'lobby'): string {
  const q = new URLSearchParams({ operatorId, game, token });
  if (launchMode === 'lobby') q.set('mode', 'lobby');
  return `${base}/game.html?${q.toString()}`;
}

export function sandboxRoutes(app: AppInstance, s: Services): void {
  app.post(
    '/sandbox/launch',
    {
      config: { auth: 'public', rateLimitPolicy: 'ip' },
      schema: {
        operationId: 'sandboxLaunch',
        summary: 'Demo launch token and URL (not in production)',
        tags: ['sandbox'],
        response: { 200: launchAnswer },
        body,
      },
    },
    async (request) => {
      if (s.config.production && !s.config.demoOperator) throw new AppError('FORBIDDEN', 'the sandbox is not available in production');
      const { operatorId, playerRef, gameType, launchMode } = request.body;
      const op = await s.operators.get(s.db, operatorId);
      if (!op || !op.enabled) throw new AppError('INVALID_SESSION', 'unknown operator');
      if (op.callbackBaseUrl !== SANDBOX_CALLBACK_BASE) throw new AppError('FORBIDDEN', 'this operator launches through its own casino backend');
      if (launchMode === 'single' && !op.enabledGames.includes(gameType)) throw new AppError('GAME_DISABLED', `${gameType} is disabled for this operator`);
      const launchToken = await s.demoCasino.issueLaunchToken(op.operatorId, playerRef, op.currency);
      const base = publicBaseUrl(s.config, app.server);
      return { launchToken, launchUrl: launchUrl(base, op.operatorId, gameType, launchToken, launchMode) };
    },
  );
}

/** POST /api/fairness/rotate and POST /api/verify (SPEC.md Endpoints, CONTRACT.md §9 and §12). */
import { z } from 'zod';
import type { Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import { verifyBet } from '@gp/game-core/fairness';
import { GAME_TYPES, type GameResult } from '@gp/game-core/games';
import { amountJson, multiplierJson, parseAmount } from '@gp/game-core/money';
import { rotateSeeds } from '../../rounds/seed-rotation.js';
import { amountSchema, clientSeedSchema, currencySchema, sessionIdSchema } from '../schemas.js';
import { gameParamsSchema, rotateAnswer, verifyAnswer } from '../answers.js';

const rotateBody = z.object({ sessionId: sessionIdSchema, clientSeed: clientSeedSchema.optional() }).strict();

const verifyBody = z
  .object({
    gameType: z.enum(GAME_TYPES),
    serverSeed: z.string().min(1).max(256),
    serverSeedHash: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be a SHA-256 hash: 64 hex characters'),
    clientSeed: clientSeedSchema,
    nonce: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    amount: amountSchema,
    currency: currencySchema.default('USD'),
    params: gameParamsSchema.optional(),
  })
  .strict();

export function fairnessRoutes(app: AppInstance, s: Services): void {
  app.post(
    '/api/fairness/rotate',
    {
      config: { auth: 'player', rateLimitPolicy: 'session' },
      schema: {
        operationId: 'rotateSeeds',
        summary: 'Reveal the server seed and commit a new one',
        tags: ['fairness'],
        response: { 200: rotateAnswer },
        body: rotateBody,
      },
    },
    async (request) => {
      const session = await s.sessions.get(s.db, request.body.sessionId);
      return rotateSeeds(s.db, session, request.body.clientSeed);
    },
  );

  app.post(
    '/api/verify',
    {
      config: { auth: 'public', rateLimitPolicy: 'ip' },
      schema: {
        operationId: 'verify',
        summary: 'Recompute a result from revealed seeds',
        tags: ['fairness'],
        response: { 200: verifyAnswer },
        body: verifyBody,
      },
    },
    async (request) => {
      const b = request.body;
      const amountMinor = parseAmount(b.amount, b.currency);
      const money = (v: bigint) => amountJson(v, b.currency);
      const out = verifyBet({ ...b, amountMinor, toAmount: money });
      return {
        gameType: out.gameType,
        result: out.result as GameResult,
        multiplier: multiplierJson(out.multiplier4),
        payout: money(out.payoutMinor),
        won: out.won,
        totalStaked: money(out.totalStakedMinor),
      };
    },
  );
}

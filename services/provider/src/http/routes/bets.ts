/** POST /api/bets and GET /api/bets/{roundId} (SPEC.md Endpoints, CONTRACT.md §12). */
import { z } from 'zod';
import type { Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import { AppError } from '../../errors.js';
import { placeBet } from '../../rounds/bets.js';
import { getRound } from '../../rounds/round-store/reads.js';
import { betView } from '../../rounds/round-view.js';
import { playerResultView } from '../../rounds/player-view.js';
import { amountSchema, clientSeedSchema, gameTypeSchema, idempotencyKeySchema, idText, queryInt, roundIdParams, sessionIdSchema } from '../schemas.js';
import { betAnswer, gameParamsSchema, playerBetsAnswer } from '../answers.js';
import { playerBets } from '../../rounds/player-bets.js';

const betBody = z
  .object({
    sessionId: sessionIdSchema,
    gameType: gameTypeSchema,
    amount: amountSchema,
    idempotencyKey: idempotencyKeySchema,
    clientSeed: clientSeedSchema.optional(),
    params: gameParamsSchema.optional(),
    /** A free bet of this campaign (docs/free-bets.md): `amount` must be the campaign's; no debit. */
    freeBetCampaignId: idText(200).optional(),
    /** A bet of an autobet run (issue 27): refused with AUTOBET_DISABLED when the session's rules disable autobet. */
    autobet: z.boolean().optional(),
  })
  .strict();

export function betRoutes(app: AppInstance, s: Services): void {
  app.post(
    '/api/bets',
    {
      config: { auth: 'player', rateLimitPolicy: 'session' },
      schema: {
        operationId: 'placeBet',
        summary: 'Place and settle a dice, limbo, plinko or keno bet',
        tags: ['player'],
        response: { 200: betAnswer },
        body: betBody,
      },
    },
    async (request) => placeBet(s.money, request.body),
  );

  // My bets: only the rounds of the player the session belongs to (the session id is the player's credential).
  app.get(
    '/api/player/bets',
    {
      config: { auth: 'player' },
      schema: {
        operationId: 'listPlayerBets',
        summary: 'The recent rounds of the session’s player, newest first',
        tags: ['player'],
        response: { 200: playerBetsAnswer },
        querystring: z.object({ sessionId: sessionIdSchema, limit: queryInt(1, 50, 20), before: roundIdParams.shape.roundId.optional() }),
      },
    },
    async (request) => {
      const session = await s.sessions.get(s.db, request.query.sessionId);
      return playerBets(s.db, session, { limit: request.query.limit, before: request.query.before });
    },
  );

  app.get(
    '/api/bets/:roundId',
    {
      config: { auth: 'player-or-operator' },
      schema: {
        operationId: 'getBet',
        summary: 'A stored round with its fairness proof and callback audit',
        tags: ['player', 'operator'],
        response: { 200: betAnswer },
        params: roundIdParams,
      },
    },
    async (request) => {
      // Public by round id (the id is the capability); a signed casino request is scoped to its operator.
      const scope = request.caller.kind === 'operator' ? request.caller.operatorId : null;
      const round = await getRound(s.db, request.params.roundId);
      if (!round) throw new AppError('ROUND_NOT_FOUND', 'no round with this id');
      if (scope !== null && round.operatorId !== scope) throw new AppError('FORBIDDEN', 'this round belongs to another operator');
      return betView(s.db, round, { audit: true, result: playerResultView(round) });
    },
  );
}

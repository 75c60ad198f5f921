/** The Mines active-round endpoints (SPEC.md Endpoints and endpoint rule 5, CONTRACT.md §12, §13). */
import { z } from 'zod';
import type { Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import { activeMinesRound, cashoutMinesRound, getMinesRound, revealMinesTile, startMinesRound } from '../../rounds/mines.js';
import { amountSchema, clientSeedSchema, idempotencyKeySchema, idText, roundIdParams, sessionIdSchema } from '../schemas.js';
import { activeRoundAnswer, betAnswer, gameParamsSchema } from '../answers.js';

const mineCountSchema = z.number().int().min(1).max(24);

const startBody = z
  .object({
    sessionId: sessionIdSchema,
    amount: amountSchema,
    idempotencyKey: idempotencyKeySchema,
    mineCount: mineCountSchema.optional(),
    clientSeed: clientSeedSchema.optional(),
    /** The start form with params (SPEC.md): `params.mineCount`, checked with the game's schema. */
    params: gameParamsSchema.optional(),
    /** A free bet of this campaign (docs/free-bets.md): `amount` must be the campaign's; no debit. */
    freeBetCampaignId: idText(200).optional(),
    /** A bet of an autobet run (issue 27): refused with AUTOBET_DISABLED when the session's rules disable autobet. */
    autobet: z.boolean().optional(),
  })
  .strict();

const revealBody = z.object({ sessionId: sessionIdSchema, tile: z.number().int().min(0).max(24), idempotencyKey: idempotencyKeySchema }).strict();
const cashoutBody = z.object({ sessionId: sessionIdSchema, idempotencyKey: idempotencyKeySchema }).strict();
const sessionQuery = z.object({ sessionId: sessionIdSchema });

export function minesRoutes(app: AppInstance, s: Services): void {
  app.post(
    '/api/mines/rounds',
    {
      config: { auth: 'player', rateLimitPolicy: 'session' },
      schema: { operationId: 'startMines', summary: 'Start a Mines round (one debit)', tags: ['mines'], response: { 200: betAnswer }, body: startBody },
    },
    async (request) => startMinesRound(s.money, request.body),
  );

  // A static segment outranks `:roundId` in Fastify's router, whatever the order of registration.
  app.get(
    '/api/mines/rounds/active',
    {
      config: { auth: 'player' },
      schema: {
        operationId: 'getActiveMinesRound',
        summary: "The player's active Mines round, from any of the player's sessions",
        tags: ['mines'],
        response: { 200: activeRoundAnswer },
        querystring: sessionQuery,
      },
    },
    async (request) => activeMinesRound(s.money, request.query.sessionId),
  );

  app.get(
    '/api/mines/rounds/:roundId',
    {
      config: { auth: 'player' },
      schema: {
        operationId: 'getMinesRound',
        summary: 'A Mines round (the mines only once it is final)',
        tags: ['mines'],
        response: { 200: betAnswer },
        params: roundIdParams,
        querystring: sessionQuery,
      },
    },
    async (request) => getMinesRound(s.money, request.query.sessionId, request.params.roundId),
  );

  app.post(
    '/api/mines/rounds/:roundId/reveal',
    {
      config: { auth: 'player', rateLimitPolicy: 'session' },
      schema: {
        operationId: 'revealMinesTile',
        summary: 'Reveal a tile (no wallet movement; a mine closes the round with a zero credit)',
        tags: ['mines'],
        response: { 200: betAnswer },
        params: roundIdParams,
        body: revealBody,
      },
    },
    async (request) => revealMinesTile(s.money, { ...request.body, roundId: request.params.roundId }),
  );

  app.post(
    '/api/mines/rounds/:roundId/cashout',
    {
      config: { auth: 'player', rateLimitPolicy: 'session' },
      schema: {
        operationId: 'cashoutMines',
        summary: 'Cash out (one credit of the payout)',
        tags: ['mines'],
        response: { 200: betAnswer },
        params: roundIdParams,
        body: cashoutBody,
      },
    },
    async (request) => cashoutMinesRound(s.money, { ...request.body, roundId: request.params.roundId }),
  );
}

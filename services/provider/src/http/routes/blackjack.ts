/** The Blackjack active-round endpoints (SPEC.md Endpoints and endpoint rules 6–7, CONTRACT.md §10–§13). */
import { z } from 'zod';
import type { Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import { activeBlackjackRound, getBlackjackRound, playBlackjackAction, startBlackjackRound } from '../../rounds/blackjack-round.js';
import { amountSchema, clientSeedSchema, idempotencyKeySchema, roundIdParams, sessionIdSchema } from '../schemas.js';
import { activeRoundAnswer, betAnswer } from '../answers.js';

const startBody = z
  .object({
    sessionId: sessionIdSchema,
    amount: amountSchema,
    idempotencyKey: idempotencyKeySchema,
    clientSeed: clientSeedSchema.optional(),
    /** A bet of an autobet run (issue 27): refused with AUTOBET_DISABLED when the session's rules disable autobet. */
    autobet: z.boolean().optional(),
  })
  .strict();
const actionBody = z.object({ sessionId: sessionIdSchema, idempotencyKey: idempotencyKeySchema }).strict();
const insuranceBody = z.object({ sessionId: sessionIdSchema, idempotencyKey: idempotencyKeySchema, takeInsurance: z.boolean().default(false) }).strict();
const actionParams = roundIdParams.extend({ action: z.enum(['hit', 'stand', 'double', 'split']) });
const sessionQuery = z.object({ sessionId: sessionIdSchema });

export function blackjackRoutes(app: AppInstance, s: Services): void {
  app.post(
    '/api/blackjack/rounds',
    {
      config: { auth: 'player', rateLimitPolicy: 'session' },
      schema: {
        operationId: 'startBlackjack',
        summary: 'Start a Blackjack round (one debit); a round the deal decides is settled at once',
        tags: ['blackjack'],
        response: { 200: betAnswer },
        body: startBody,
      },
    },
    async (request) => startBlackjackRound(s.money, request.body),
  );

  // Static segments outrank `:roundId` / `:action` in Fastify's router, whatever the order of registration.
  app.get(
    '/api/blackjack/rounds/active',
    {
      config: { auth: 'player' },
      schema: {
        operationId: 'getActiveBlackjackRound',
        summary: "The player's active Blackjack round, from any of the player's sessions",
        tags: ['blackjack'],
        response: { 200: activeRoundAnswer },
        querystring: sessionQuery,
      },
    },
    async (request) => activeBlackjackRound(s.money, request.query.sessionId),
  );

  app.get(
    '/api/blackjack/rounds/:roundId',
    {
      config: { auth: 'player' },
      schema: {
        operationId: 'getBlackjackRound',
        summary: 'A Blackjack round (the hole card and the draws only once it is final)',
        tags: ['blackjack'],
        response: { 200: betAnswer },
        params: roundIdParams,
        querystring: sessionQuery,
      },
    },
    async (request) => getBlackjackRound(s.money, request.query.sessionId, request.params.roundId),
  );

  app.post(
    '/api/blackjack/rounds/:roundId/insurance',
    {
      config: { auth: 'player', rateLimitPolicy: 'session' },
      schema: {
        operationId: 'blackjackInsurance',
        summary: 'Take (one extra debit of half the bet) or decline the insurance offered against an Ace',
        tags: ['blackjack'],
        response: { 200: betAnswer },
        params: roundIdParams,
        body: insuranceBody,
      },
    },
    async (request) =>
      playBlackjackAction(s.money, {
        sessionId: request.body.sessionId,
        idempotencyKey: request.body.idempotencyKey,
        roundId: request.params.roundId,
        action: request.body.takeInsurance ? 'insurance' : 'decline_insurance',
      }),
  );

  app.post(
    '/api/blackjack/rounds/:roundId/:action',
    {
      config: { auth: 'player', rateLimitPolicy: 'session' },
      schema: {
        operationId: 'blackjackAction',
        summary: 'hit or stand (no wallet movement), double or split (one extra debit)',
        tags: ['blackjack'],
        response: { 200: betAnswer },
        params: actionParams,
        body: actionBody,
      },
    },
    async (request) => playBlackjackAction(s.money, { ...request.body, roundId: request.params.roundId, action: request.params.action }),
  );
}

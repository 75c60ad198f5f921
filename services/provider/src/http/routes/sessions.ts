/** POST /api/sessions, GET /api/balance (SPEC.md Endpoints, CONTRACT.md §5 and §12). */
import { z } from 'zod';
import type { Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import { gameTypeSchema, launchModeSchema, operatorIdText, sessionIdSchema, text } from '../schemas.js';
import { balanceAnswer, sessionAnswer } from '../answers.js';

const createBody = z
  .object({
    operatorId: operatorIdText,
    launchToken: text(2000),
    gameType: gameTypeSchema.default('dice'),
    launchMode: launchModeSchema.default('single'),
    /** An embedded currency switch (CONTRACT.md §14): the session being replaced; its profile's tenant must be the target's. */
    switchFromSessionId: sessionIdSchema.optional(),
  })
  .strict();

export function sessionRoutes(app: AppInstance, s: Services): void {
  app.post('/api/sessions', { config: { auth: 'public', rateLimitPolicy: 'ip' }, schema: { operationId: 'createSession', summary: 'Create a session from a launch token', tags: ['player'], response: { 200: sessionAnswer }, body: createBody } }, async (request) =>
    s.sessions.create(request.body),
  );

  app.get(
    '/api/balance',
    { config: { auth: 'player' }, schema: { operationId: 'getBalance', summary: 'The casino-provided balance of the session', tags: ['player'], response: { 200: balanceAnswer }, querystring: z.object({ sessionId: sessionIdSchema }) } },
    async (request) => s.sessions.balance(request.query.sessionId),
  );
}

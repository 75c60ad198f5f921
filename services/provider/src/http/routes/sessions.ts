/** POST /api/sessions, GET /api/balance (SPEC.md Endpoints, CONTRACT.md §5 and §12). */
import { z } from 'zod';
import type { AppInstance, Services } from '../../app.js';
import { gameTypeSchema, launchModeSchema, sessionIdSchema } from '../schemas.js';

const createBody = z
  .object({
    operatorId: z.string().min(1).max(200),
    launchToken: z.string().min(1).max(2000),
    gameType: gameTypeSchema.default('dice'),
    launchMode: launchModeSchema.default('single'),
    /** An embedded currency switch (CONTRACT.md §14): the session being replaced; its profile's tenant must be the target's. */
    switchFromSessionId: sessionIdSchema.optional(),
  })
  .strict();

export function sessionRoutes(app: AppInstance, s: Services): void {
  app.post('/api/sessions', { schema: { summary: 'Create a session from a launch token', tags: ['player'], body: createBody } }, async (request) =>
    s.sessions.create(request.body),
  );

  app.get(
    '/api/balance',
    { schema: { summary: 'The casino-provided balance of the session', tags: ['player'], querystring: z.object({ sessionId: sessionIdSchema }) } },
    async (request) => s.sessions.balance(request.query.sessionId),
  );
}

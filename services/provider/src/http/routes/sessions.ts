/** POST /api/sessions, GET /api/balance (SPEC.md Endpoints, CONTRACT.md §5 and §12). */
import { z } from 'zod';
import type { Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import { gameTypeSchema, launchModeSchema, operatorIdText, sessionIdSchema, text } from '../schemas.js';
import { balanceAnswer, sessionAnswer } from '../answers.js';
import { AppError } from '../../errors.js';

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

const endBody = z
  .object({
    operatorId: operatorIdText,
    /** Every open session of this player of the operator… */
    playerRef: text(200).optional(),
    /** …or this one session. */
    sessionId: sessionIdSchema.optional(),
    /** Kept with the session (the casino's own words: self-exclusion, logout, fraud…). */
    reason: text(200).optional(),
  })
  .strict()
  .refine((b) => b.playerRef !== undefined || b.sessionId !== undefined, { message: 'name a playerRef or a sessionId' });

const endAnswer = z.object({ ended: z.number().int().describe('sessions ended by this call (0 when none was open)') });

export function sessionRoutes(app: AppInstance, s: Services): void {
  app.post(
    '/api/sessions',
    {
      config: { auth: 'public', rateLimitPolicy: 'ip' },
      schema: {
        operationId: 'createSession',
        summary: 'Create a session from a launch token',
        tags: ['player'],
        response: { 200: sessionAnswer },
        body: createBody,
      },
    },
    async (request) => s.sessions.create(request.body),
  );

  app.get(
    '/api/balance',
    {
      config: { auth: 'player', rateLimitPolicy: 'session' },
      schema: {
        operationId: 'getBalance',
        summary: 'The casino-provided balance of the session',
        tags: ['player'],
        response: { 200: balanceAnswer },
        querystring: z.object({ sessionId: sessionIdSchema }),
      },
    },
    async (request) => s.sessions.balance(request.query.sessionId),
  );

  // The casino ends a player's sessions (logout, self-exclusion, a time-out of its own): signed with
  // its operator secret like reconciliation, or the admin token. Every later request of those
  // sessions is INVALID_SESSION; the player's open round resumes in the next session.
  app.post(
    '/api/sessions/end',
    {
      config: { auth: 'admin-or-operator' },
      schema: {
        operationId: 'endSessions',
        summary: "End a player's sessions (or one session) at the casino's request",
        tags: ['operator', 'admin'],
        response: { 200: endAnswer },
        body: endBody,
      },
    },
    async (request) => {
      const caller = request.caller;
      if (caller.kind === 'operator' && request.body.operatorId !== caller.operatorId) throw new AppError('FORBIDDEN', 'a casino ends only its own sessions');
      return s.sessions.end(request.body);
    },
  );
}

/** GET /health (runtime health and the v1 currency contract) and GET /ready (CONTRACT.md §12–§13). */
import { z } from 'zod';
import { readiness, type Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import { CURRENCY_CODES, CURRENCY_CONTRACT_VERSION, CURRENCY_DECIMALS } from '@gp/game-core/money';
import { API_VERSION } from '../openapi.js';
import { operatorIdText } from '../schemas.js';
import { healthAnswer, notReadyAnswer, readyAnswer } from '../answers.js';

export function healthRoutes(app: AppInstance, s: Services): void {
  app.get(
    '/health',
    {
      config: { auth: 'public' },
      schema: { operationId: 'health', summary: 'Runtime health and the currency contract', tags: ['health'], response: { 200: healthAnswer } },
    },
    async () => ({
      status: 'ok' as const,
      version: API_VERSION,
      uptimeSeconds: Math.floor((Date.now() - s.startedAt) / 1000),
      currencyContract: {
        version: CURRENCY_CONTRACT_VERSION,
        currencies: CURRENCY_CODES.map((code) => ({ code, decimals: CURRENCY_DECIMALS[code] })),
      },
    }),
  );

  app.get(
    '/ready',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'ready',
        summary: 'Readiness: database, Redis, and an operator',
        tags: ['health'],
        response: { 200: readyAnswer, 503: notReadyAnswer },
        querystring: z.object({ operatorId: operatorIdText.optional() }),
      },
    },
    async (request, reply) => {
      const { ready, checks } = await readiness(s, request.query.operatorId);
      if (ready) return { ready, checks };
      const failing = Object.entries(checks)
        .filter(([, v]) => v !== 'ok' && v !== 'in-process')
        .map(([k]) => k);
      return reply.status(503).send({
        statusCode: 503,
        error: 'Service Unavailable',
        code: 'NOT_READY',
        message: `not ready: ${failing.join(', ')}`,
        ready,
        checks,
      });
    },
  );
}

/** GET /api/cron/wallet-retries (SPEC.md endpoint rule 9, CONTRACT.md §13), behind CRON_SECRET. */
import { z } from 'zod';
import type { AppInstance, Services } from '../../app.js';
import { AppError } from '../../errors.js';
import { addToSummary, retryPending } from '../../rounds/retries.js';
import { sweepAbandonedRounds } from '../../rounds/abandoned-rounds.js';
import { operatorIdText, playerRefSchema, queryInt } from '../schemas.js';

const query = z.object({
  operatorId: operatorIdText.optional(),
  playerRef: playerRefSchema.optional(),
  limit: queryInt(1, 100, 50),
});

export function walletRetryRoutes(app: AppInstance, s: Services): void {
  app.get(
    '/api/cron/wallet-retries',
    {
      config: { auth: 'cron' },
      schema: { summary: 'Retry pending credits and rollbacks', tags: ['operations'], security: [{ cronSecret: [] }], querystring: query },
    },
    async (request) => {
      let operatorId = request.query.operatorId;
      if (!operatorId && s.config.production) {
        if (!s.config.readinessOperatorId) {
          throw new AppError('WALLET_RETRY_OPERATOR_REQUIRED', 'in production the call needs operatorId (or READINESS_OPERATOR_ID)');
        }
        operatorId = s.config.readinessOperatorId;
      }
      const filter = { operatorId, playerRef: request.query.playerRef, limit: request.query.limit };
      const summary = await retryPending(s.money, filter);
      // Abandoned Mines and Blackjack rounds are closed by the same job (within what is left of `limit`).
      addToSummary(summary, await sweepAbandonedRounds(s.money, { ...filter, limit: Math.max(0, filter.limit - summary.scanned) }));
      return summary;
    },
  );
}

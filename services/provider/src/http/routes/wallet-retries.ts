/** GET /api/cron/wallet-retries (SPEC.md endpoint rule 9, CONTRACT.md §13), behind CRON_SECRET. */
import { z } from 'zod';
import type { Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import { AppError } from '../../errors.js';
import { retryScope, runWalletRetryJob } from '../../rounds/wallet-retry-job.js';
import { operatorIdText, playerRefSchema, queryInt } from '../schemas.js';
import { retrySummaryAnswer } from '../answers.js';

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
      schema: {
        operationId: 'walletRetries',
        summary: 'Retry pending credits and rollbacks (the fallback of the in-service scheduler); an unknown operatorId is 400 WALLET_RETRY_OPERATOR_REQUIRED',
        tags: ['operations'],
        response: { 200: retrySummaryAnswer },
        querystring: query,
      },
    },
    async (request) => {
      // A CronJob pointed at a profile that does not exist fails visibly instead of scanning nothing (issue 26).
      const { operatorId } = request.query;
      if (operatorId !== undefined && !(await s.operators.get(s.db, operatorId))) {
        throw new AppError('WALLET_RETRY_OPERATOR_REQUIRED', `operatorId ${JSON.stringify(operatorId)} is not an operator profile of this install`);
      }
      const summary = await runWalletRetryJob(s.money, { ...request.query, sweepAbandoned: true });
      // Each pass's claimed, settled and failed rounds (gp_wallet_retry_*; every operator: "all").
      s.metrics.retryRun(retryScope(s.money, request.query.operatorId) ?? 'all', 'cron', {
        claimed: summary.scanned,
        settled: summary.succeeded,
        failed: summary.stillPending,
      });
      return summary;
    },
  );
}

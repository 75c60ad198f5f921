/**
 * "Retry now" of the admin console (issue 13 item 6; moved out of the route file by issue 24 item
 * 3): the retry job's work for one round — a pending credit or rollback sent again — and its audit
 * record (`round.retried`, the status before and after and the outcome).
 */
import { AppError } from '../errors.js';
import { recordChange, type Actor } from '../staff/config-audit.js';
import type { RoundDeps } from './round-actions.js';
import { getRound } from './round-store/reads.js';
import { runWalletRetryJob, type RetrySummary } from './wallet-retry-job.js';

export async function retryRoundNow(deps: RoundDeps, actor: Actor, roundId: string): Promise<RetrySummary> {
  const round = await getRound(deps.db, roundId);
  if (!round) throw new AppError('ROUND_NOT_FOUND', 'no round with this id');
  const summary = await runWalletRetryJob(deps, { operatorId: round.operatorId, roundId: round.roundId, limit: 1, sweepAbandoned: false });
  const after = await getRound(deps.db, round.roundId);
  const op = await deps.operators.get(deps.db, round.operatorId);
  await recordChange(deps.db, actor, {
    action: 'round.retried',
    tenantId: op?.tenantId ?? null,
    operatorId: round.operatorId,
    targetType: 'round',
    targetId: round.roundId,
    before: { status: round.status },
    after: { status: after?.status ?? round.status, outcome: summary.items[0]?.outcome ?? 'not_pending' },
  });
  return summary;
}

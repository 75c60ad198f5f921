/**
 * Rounds in the admin console (issue 13 item 6): search by round id, player, operator, game,
 * status and time range, newest first with a keyset cursor on an index; a round with its result,
 * fairness proof and the whole casino callback trail (never a secret, launch token or signature),
 * and "retry now" of a pending credit or rollback — the cron route's job, for that round, audited
 * (rounds/retry-now.ts).
 */
import { z } from 'zod';
import type { Services } from '../../../services.js';
import type { AppInstance } from '../../zod-provider.js';
import { AppError } from '../../../errors.js';
import { amountJson } from '@gp/game-core/money';
import { playerResultView } from '../../../rounds/player-view.js';
import { betView } from '../../../rounds/round-view.js';
import { ROUND_STATUSES } from '../../../rounds/round-status.js';
import { getRound } from '../../../rounds/round-store/reads.js';
import { pendingRounds, searchRounds } from '../../../rounds/round-store/reports.js';
import { retryRoundNow } from '../../../rounds/retry-now.js';
import { adminRoundAnswer, pendingAnswer, retrySummaryAnswer, roundListAnswer } from '../../answers.js';
import { gameTypeSchema, idText, operatorIdText, playerRefSchema, queryInt, queryTime, roundIdParams } from '../../schemas.js';
import { actorOf } from './actor.js';
import { decodeCursor, encodeCursor } from '../../../rounds/page-cursor.js';

const query = z.object({
  roundId: idText(200).optional(),
  operatorId: operatorIdText.optional(),
  playerRef: playerRefSchema.optional(),
  gameType: gameTypeSchema.optional(),
  status: z.enum(ROUND_STATUSES).optional(),
  from: queryTime.optional(),
  to: queryTime.optional(),
  cursor: z.string().max(300).optional(),
  limit: queryInt(1, 200, 50),
});

/** The round search's keyset: the last row's time and round id (rounds/page-cursor.ts). */
function afterOf(cursor: string): { createdAt: string; roundId: string } {
  const [createdAt, roundId] = decodeCursor(cursor, 2) as [string, string];
  if (Number.isNaN(Date.parse(createdAt))) throw new AppError('VALIDATION_ERROR', 'cursor is not one this route answered');
  return { createdAt, roundId };
}

export function adminRoundRoutes(app: AppInstance, s: Services): void {
  app.get(
    '/api/admin/rounds',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'list' } },
      schema: {
        operationId: 'searchRounds',
        summary: 'Search rounds, newest first (cursor pagination)',
        tags: ['admin'],
        querystring: query,
        response: { 200: roundListAnswer },
      },
    },
    async (request) => {
      const q = request.query;
      const rows = await searchRounds(s.db, { ...q, operatorIds: request.staffScope.operatorIds, after: q.cursor ? afterOf(q.cursor) : undefined });
      const page = rows.slice(0, q.limit);
      const last = page[page.length - 1];
      return {
        rounds: page.map((r) => ({
          roundId: r.roundId,
          operatorId: r.operatorId,
          playerRef: r.playerRef,
          gameType: r.gameType,
          currency: r.currency,
          amount: amountJson(r.totalStaked, r.currency),
          payout: r.payout === null ? null : amountJson(r.payout, r.currency),
          status: r.status,
          createdAt: r.createdAt,
          settledAt: r.settledAt,
        })),
        nextCursor: rows.length > q.limit && last ? encodeCursor([last.createdAt, last.roundId]) : null,
      };
    },
  );

  app.get(
    '/api/admin/rounds/:roundId',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'round' } },
      schema: {
        operationId: 'adminRound',
        summary: 'A round with its result, fairness proof and casino callback trail',
        tags: ['admin'],
        params: roundIdParams,
        response: { 200: adminRoundAnswer },
      },
    },
    async (request) => {
      const round = await getRound(s.db, request.params.roundId);
      if (!round) throw new AppError('ROUND_NOT_FOUND', 'no round with this id');
      const op = await s.operators.get(s.db, round.operatorId);
      return {
        round: await betView(s.db, round, { audit: true, result: playerResultView(round) }),
        replayUrl: `/game.html?replay=${encodeURIComponent(round.roundId)}`,
        tenantId: op?.tenantId ?? null,
      };
    },
  );

  app.get(
    '/api/admin/pending',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'list' } },
      schema: {
        operationId: 'pendingRounds',
        summary: 'Credits and rollbacks waiting for the casino, oldest first',
        tags: ['admin'],
        querystring: z.object({ operatorId: operatorIdText.optional(), limit: queryInt(1, 500, 100) }),
        response: { 200: pendingAnswer },
      },
    },
    async (request) => ({
      rounds: (await pendingRounds(s.db, request.staffScope.operatorIds, request.query.limit)).map((r) => ({
        roundId: r.roundId,
        operatorId: r.operatorId,
        playerRef: r.playerRef,
        gameType: r.gameType,
        currency: r.currency,
        amount: amountJson(r.status === 'credit_pending' ? (r.payout ?? 0n) : r.totalStaked, r.currency),
        status: r.status,
        updatedAt: r.updatedAt,
      })),
    }),
  );

  app.post(
    '/api/admin/rounds/:roundId/retry',
    {
      config: { auth: 'staff', staff: { role: 'admin', scope: 'round' } },
      schema: {
        operationId: 'retryRound',
        summary: 'Retry a pending credit or rollback now (the cron route’s job, for this round)',
        tags: ['admin'],
        params: roundIdParams,
        response: { 200: retrySummaryAnswer },
      },
    },
    async (request) => retryRoundNow(s.money, actorOf(request), request.params.roundId),
  );
}

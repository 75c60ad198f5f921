/**
 * The reporting API (issue 26 item 3; docs/integration.md "Reporting API"): a casino's signed
 * requests (CONTRACT.md §6, like GET /api/reconciliation) scoped to its operator — another
 * operator's data is 403 FORBIDDEN — or the admin token. JSON, or CSV with `format=csv` (the page's
 * rows; the next cursor in `X-Next-Cursor`). Ranges are bounded (rounds/operator-reports.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import { AppError } from '../../errors.js';
import { ggrReport, playerRounds, reportRange, toCsv } from '../../rounds/operator-reports.js';
import { playerResultView } from '../../rounds/player-view.js';
import { betView } from '../../rounds/round-view.js';
import { getRound } from '../../rounds/round-store/reads.js';
import { betAnswer, money } from '../answers.js';
import { operatorIdText, playerRefSchema, queryInt, queryTime, roundIdParams } from '../schemas.js';

const format = z.enum(['json', 'csv']).default('json');
const cursor = z.string().max(400).optional();
const ggrQuery = z.object({
  operatorId: operatorIdText.optional(),
  from: queryTime.optional(),
  to: queryTime.optional(),
  cursor,
  limit: queryInt(1, 500, 100),
  format,
});
const recallQuery = z.object({
  operatorId: operatorIdText.optional(),
  from: queryTime.optional(),
  to: queryTime.optional(),
  cursor,
  limit: queryInt(1, 200, 50),
  format,
});
const ggrAnswer = z.object({
  from: z.string(),
  to: z.string(),
  rows: z.array(
    z.object({
      day: z.string(),
      operatorId: z.string(),
      gameType: z.string(),
      currency: z.string(),
      rounds: z.number(),
      stakes: money,
      payouts: money,
      freeBetPayouts: money,
      rollbacks: money,
      ggr: money,
    }),
  ),
  promoPayouts: z
    .array(z.object({ day: z.string(), operatorId: z.string(), currency: z.string(), awards: z.number(), payouts: money }))
    .meta({ description: "promotions' prizes confirmed per UTC day (docs/promotions.md), apart from the games' GGR; on the first page only" }),
  nextCursor: z.string().nullable(),
});
const recallAnswer = z.object({
  operatorId: z.string(),
  playerRef: z.string(),
  rounds: z.array(
    z.object({
      roundId: z.string(),
      gameType: z.string(),
      currency: z.string(),
      amount: money,
      totalStaked: money,
      payout: money.nullable(),
      multiplier: z.string().nullable(),
      roundStatus: z.string(),
      freeBet: z.boolean(),
      result: z.unknown(),
      createdAt: z.string(),
      settledAt: z.string().nullable(),
    }),
  ),
  nextCursor: z.string().nullable(),
});

/** The operator a request reads: a signed casino only its own (403 otherwise); the admin token names one or (where allowed) none. */
function scopeOf(request: FastifyRequest, asked: string | undefined, required: boolean): string | undefined {
  const caller = request.caller;
  if (caller.kind === 'operator') {
    if (asked && asked !== caller.operatorId) throw new AppError('FORBIDDEN', 'a casino reads only its own operator');
    return caller.operatorId;
  }
  if (required && !asked) throw new AppError('VALIDATION_ERROR', 'operatorId is required');
  return asked;
}

function csv(reply: FastifyReply, name: string, columns: string[], rows: Record<string, unknown>[], next: string | null) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}.csv"`)
    .header('cache-control', 'no-store')
    .header('x-next-cursor', next ?? '')
    .send(toCsv(columns, rows));
}

export function operatorReportRoutes(app: AppInstance, s: Services): void {
  app.get(
    '/api/reports/ggr',
    {
      config: { auth: 'admin-or-operator' },
      schema: {
        operationId: 'reportGgr',
        summary: 'GGR per UTC day × game × currency: stakes, payouts, free-bet payouts, rollbacks, rounds (JSON, or CSV with format=csv)',
        tags: ['operator', 'admin'],
        querystring: ggrQuery,
        response: { 200: ggrAnswer },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const report = await ggrReport(s.db, {
        ...reportRange(q.from, q.to),
        operatorId: scopeOf(request, q.operatorId, false),
        cursor: q.cursor,
        limit: q.limit,
      });
      if (q.format === 'csv')
        return csv(
          reply,
          'ggr',
          ['day', 'operatorId', 'gameType', 'currency', 'rounds', 'stakes', 'payouts', 'freeBetPayouts', 'rollbacks', 'ggr'],
          report.rows as unknown as Record<string, unknown>[],
          report.nextCursor,
        );
      return report;
    },
  );

  app.get(
    '/api/reports/players/:playerRef/rounds',
    {
      config: { auth: 'admin-or-operator' },
      schema: {
        operationId: 'reportPlayerRounds',
        summary: "A player's rounds, newest first, with their results (game recall; JSON, or CSV with format=csv)",
        tags: ['operator', 'admin'],
        params: z.object({ playerRef: playerRefSchema }),
        querystring: recallQuery,
        response: { 200: recallAnswer },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const operatorId = scopeOf(request, q.operatorId, true)!;
      const page = await playerRounds(s.db, {
        ...reportRange(q.from, q.to),
        operatorId,
        playerRef: request.params.playerRef,
        cursor: q.cursor,
        limit: q.limit,
      });
      if (q.format === 'csv') {
        const columns = [
          'roundId',
          'gameType',
          'currency',
          'amount',
          'totalStaked',
          'payout',
          'multiplier',
          'roundStatus',
          'freeBet',
          'result',
          'createdAt',
          'settledAt',
        ];
        return csv(reply, `rounds-${request.params.playerRef}`, columns, page.rounds as unknown as Record<string, unknown>[], page.nextCursor);
      }
      return { operatorId, playerRef: request.params.playerRef, ...page };
    },
  );

  app.get(
    '/api/reports/rounds/:roundId',
    {
      config: { auth: 'admin-or-operator' },
      schema: {
        operationId: 'reportRound',
        summary: "One round's details: bet, result, fairness proof and casino callback trail",
        tags: ['operator', 'admin'],
        params: roundIdParams,
        response: { 200: betAnswer },
      },
    },
    async (request) => {
      const round = await getRound(s.db, request.params.roundId);
      if (!round) throw new AppError('ROUND_NOT_FOUND', 'no round with this id');
      if (request.caller.kind === 'operator' && round.operatorId !== request.caller.operatorId)
        throw new AppError('FORBIDDEN', 'this round belongs to another operator');
      return betView(s.db, round, { audit: true, result: playerResultView(round) });
    },
  );
}

/**
 * Promotions (issue 30, docs/promotions.md):
 *  - the casino's operator API, signed with its operator secret (CONTRACT.md §6) and scoped to its
 *    own promotions; the administrator token is accepted too: /api/promotions…
 *  - the admin console's API, the same operations under /api/admin/promotions… (`staff`: a
 *    tenant's staff see and manage their casino's promotions, viewers only read);
 *  - the game page's panel: GET /api/sessions/{sessionId}/promotions (cached leaderboards);
 *  - a prize drop's public proof: GET /api/promotions/{promoId}/proof.
 * Creations and cancellations are written to the config audit with who made them.
 */
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { GAME_TYPES } from '@gp/game-core/games';
import { MAX_DROP_ONE_IN } from '@gp/game-core/fairness';
import type { Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import type { RouteAuth, StaffRule } from '../authentication.js';
import { AppError } from '../../errors.js';
import type { Actor } from '../../staff/config-audit.js';
import { PROMO_KINDS, PROMO_STATUSES, SCORINGS } from '../../rounds/promotions/promotion-store.js';
import {
  cancelPromotionOf,
  createPromotion,
  listPromotionsOf,
  MAX_DROP_PRIZES,
  MAX_PROMO_PLAYERS,
  promotionAwards,
  promotionDetail,
  type PromoCaller,
} from '../../rounds/promotions/promotions.js';
import { dropProof, leaderboardOf, sessionPromotions } from '../../rounds/promotions/leaderboard.js';
import { amountSchema, idText, operatorIdText, playerRefSchema, queryInt, queryTime, sessionIdSchema, text } from '../schemas.js';
import {
  dropProofAnswer,
  leaderboardAnswer,
  promotionAnswer,
  promotionAwardsAnswer,
  promotionDetailAnswer,
  promotionListAnswer,
  sessionPromotionsAnswer,
} from '../promo-answers.js';
import { actorOf } from './admin/actor.js';

type Operation = 'create' | 'list' | 'get' | 'cancel' | 'leaderboard' | 'awards';
type RouteRules = (op: Operation) => { auth: RouteAuth; staff?: StaffRule };

const OPERATOR_RULES: RouteRules = () => ({ auth: 'admin-or-operator' });
const STAFF_RULES: RouteRules = (op) => ({
  auth: 'staff',
  staff: { role: op === 'create' || op === 'cancel' ? 'admin' : 'viewer', scope: op === 'create' || op === 'list' ? 'list' : 'promotion' },
});

const createBody = z
  .object({
    kind: z.enum(PROMO_KINDS),
    operatorId: operatorIdText
      .optional()
      .meta({ description: 'required with the admin token; a signed request defaults to (and may only name) its own operator' }),
    name: text(200).optional(),
    games: z.array(z.enum(GAME_TYPES)).min(1).max(GAME_TYPES.length).optional().meta({ description: 'default: every game the profile offers' }),
    minBet: amountSchema.optional().meta({ description: 'the qualifying minimum stake (default: any)' }),
    prizes: z.array(amountSchema).min(1).max(MAX_DROP_PRIZES).meta({ description: 'tournament: by rank (at most 100); prize drop: in drop order' }),
    scoring: z.enum(SCORINGS).optional().meta({ description: 'tournaments: multiplier | wagered | profit | biggestWin' }),
    oneIn: z.number().int().min(1).max(MAX_DROP_ONE_IN).optional().meta({ description: 'prize drops: each qualifying bet wins with a chance of 1 in oneIn' }),
    playerRefs: z.array(playerRefSchema).max(MAX_PROMO_PLAYERS).optional().meta({ description: 'omit: every player of the profile' }),
    startsAt: queryTime.optional().meta({ description: 'default: now' }),
    endsAt: queryTime,
  })
  .strict();
const promoParams = z.object({ promoId: idText(200) });
const listQuery = z.object({
  operatorId: operatorIdText.optional(),
  kind: z.enum(PROMO_KINDS).optional(),
  status: z.enum(PROMO_STATUSES).optional(),
  limit: queryInt(1, 500, 100),
});
const boardQuery = z.object({ limit: queryInt(1, 1000, 100) });

function callerOf(request: FastifyRequest): PromoCaller {
  const caller = request.caller;
  if (caller.kind === 'admin') return { kind: 'admin' };
  if (caller.kind === 'staff') return { kind: 'staff', operatorIds: request.staffScope?.operatorIds ?? null };
  if (caller.kind === 'operator') return { kind: 'operator', operatorId: caller.operatorId };
  throw new AppError('UNAUTHORIZED', 'an administrator token or an operator signature is required');
}

/** The audit's actor: a staff member or the admin token (actorOf), or the casino that signed the request. */
function auditActor(request: FastifyRequest): Actor {
  if (request.caller.kind === 'operator') {
    const ua = request.headers['user-agent'];
    return { kind: 'operator', staffId: null, email: `operator:${request.caller.operatorId}`, ip: request.ip, userAgent: typeof ua === 'string' ? ua : null };
  }
  return actorOf(request);
}

function promotionRoutesAt(app: AppInstance, s: Services, prefix: string, rules: RouteRules, ids: string, tags: string[]): void {
  app.post(
    prefix,
    {
      config: rules('create'),
      schema: { operationId: `create${ids}`, summary: 'Create a tournament or a prize drop', tags, response: { 201: promotionAnswer }, body: createBody },
    },
    async (request, reply) => reply.status(201).send(await createPromotion(s.money, callerOf(request), auditActor(request), request.body)),
  );
  app.get(
    prefix,
    {
      config: rules('list'),
      schema: { operationId: `list${ids}`, summary: 'List tournaments and prize drops', tags, response: { 200: promotionListAnswer }, querystring: listQuery },
    },
    async (request) => listPromotionsOf(s.money, callerOf(request), request.query),
  );
  app.get(
    `${prefix}/:promoId`,
    {
      config: rules('get'),
      schema: { operationId: `get${ids}Item`, summary: 'A promotion with its awards', tags, response: { 200: promotionDetailAnswer }, params: promoParams },
    },
    async (request) => promotionDetail(s.money, callerOf(request), request.params.promoId),
  );
  app.post(
    `${prefix}/:promoId/cancel`,
    {
      config: rules('cancel'),
      schema: {
        operationId: `cancel${ids}Item`,
        summary: 'Cancel a promotion (prizes not yet awarded are never paid)',
        tags,
        response: { 200: promotionAnswer },
        params: promoParams,
      },
    },
    async (request) => cancelPromotionOf(s.money, callerOf(request), auditActor(request), request.params.promoId),
  );
  app.get(
    `${prefix}/:promoId/leaderboard`,
    {
      config: rules('leaderboard'),
      schema: {
        operationId: `get${ids}Leaderboard`,
        summary: "A tournament's leaderboard (cached a few seconds)",
        tags,
        response: { 200: leaderboardAnswer },
        params: promoParams,
        querystring: boardQuery,
      },
    },
    async (request) => leaderboardOf(s.money, callerOf(request), request.params.promoId, request.query.limit),
  );
  app.get(
    `${prefix}/:promoId/awards`,
    {
      config: rules('awards'),
      schema: {
        operationId: `get${ids}Awards`,
        summary: "A promotion's awards and their promo credits",
        tags,
        response: { 200: promotionAwardsAnswer },
        params: promoParams,
      },
    },
    async (request) => promotionAwards(s.money, callerOf(request), request.params.promoId),
  );
}

export function promotionRoutes(app: AppInstance, s: Services): void {
  promotionRoutesAt(app, s, '/api/promotions', OPERATOR_RULES, 'Promotions', ['operator', 'promotions']);
  promotionRoutesAt(app, s, '/api/admin/promotions', STAFF_RULES, 'AdminPromotions', ['admin', 'promotions']);

  app.get(
    '/api/promotions/:promoId/proof',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'getPrizeDropProof',
        summary: "A prize drop's public proof: the committed hash, the tickets in draw order, the awards; the seed once the drop is over",
        tags: ['player', 'promotions'],
        response: { 200: dropProofAnswer },
        params: promoParams,
      },
    },
    async (request) => dropProof(s.money, request.params.promoId),
  );
  app.get(
    '/api/sessions/:sessionId/promotions',
    {
      config: { auth: 'player' },
      schema: {
        operationId: 'getSessionPromotions',
        summary: "The player's running tournaments (leaderboard top, own rank), prize drops and recent prizes",
        tags: ['player', 'promotions'],
        response: { 200: sessionPromotionsAnswer },
        params: z.object({ sessionId: sessionIdSchema }),
      },
    },
    async (request) => sessionPromotions(s.money, request.params.sessionId),
  );
}

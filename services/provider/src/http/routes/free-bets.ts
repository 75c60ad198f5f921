/**
 * Free-bet campaigns (issue 17, docs/free-bets.md):
 *  - the casino's operator API, signed with its operator secret (CONTRACT.md §6) and scoped to
 *    its own campaigns; the administrator token is accepted too (`admin-or-operator`):
 *    /api/free-bet-campaigns…
 *  - the admin API, the same operations under /api/admin/free-bet-campaigns… for the admin
 *    console's staff (`staff`: a tenant's staff see and manage their casino's campaigns, viewers
 *    only read; the administrator token is a platform admin);
 *  - the player's free bets: GET /api/sessions/{sessionId}/free-bets;
 *  - reconciliation totals with free-bet payouts apart: GET /api/reconciliation/totals.
 */
import { z } from 'zod';
import type { Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import type { RouteAuth, StaffRule } from '../authentication.js';
import { AppError } from '../../errors.js';
import { CAMPAIGN_STATUSES, FREE_BET_GAMES } from '../../rounds/free-bet-store.js';
import {
  addCampaignPlayers,
  campaignDetail,
  cancelCampaignOf,
  createCampaign,
  listCampaignsOf,
  MAX_PLAYERS_PER_REQUEST,
  sessionFreeBets,
  type CampaignCaller,
} from '../../rounds/free-bets.js';
import { reconciliationTotals } from '../../rounds/reconciliation.js';
import { amountSchema, idText, operatorIdText, playerRefSchema, queryInt, queryTime, sessionIdSchema, text } from '../schemas.js';
import { gameParamsSchema } from '../answers.js';
import {
  campaignAnswer,
  campaignDetailAnswer,
  campaignListAnswer,
  campaignPlayersAnswer,
  reconciliationTotalsAnswer,
  sessionFreeBetsAnswer,
} from '../free-bet-answers.js';

type CampaignOperation = 'create' | 'list' | 'get' | 'players' | 'cancel';
type RouteRules = (op: CampaignOperation) => { auth: RouteAuth; staff?: StaffRule };

/** The casino's signed operator API (the administrator token works there too). */
const OPERATOR_RULES: RouteRules = () => ({ auth: 'admin-or-operator' });
/** The admin console: the least role and the tenant rule of each operation (http/authentication.ts). */
const STAFF_RULES: RouteRules = (op) => {
  const role = op === 'list' || op === 'get' ? 'viewer' : 'admin';
  // create and list name operators (body or query); the others a campaign, checked against the tenant
  return { auth: 'staff', staff: { role, scope: op === 'create' || op === 'list' ? 'list' : 'campaign' } };
};

const playerRefs = z.array(playerRefSchema).max(MAX_PLAYERS_PER_REQUEST);

const createBody = z
  .object({
    operatorId: operatorIdText
      .optional()
      .meta({ description: 'required with the admin token; a signed request defaults to (and may only name) its own operator' }),
    name: text(200).optional(),
    gameType: z.enum(FREE_BET_GAMES),
    amount: amountSchema,
    params: gameParamsSchema.optional().meta({ description: "defaults of the game's params (a complete set, or none); a bet's own params override them" }),
    betsPerPlayer: z.number().int().min(1).max(10_000),
    budget: amountSchema.optional().meta({
      description:
        'the stake value the campaign may grant in all (free bets granted × amount); players it cannot fund are refused (ACTION_NOT_AVAILABLE) and the webhook event freebet.budget_exhausted tells the casino when it is spent; none: no limit',
    }),
    playerRefs: playerRefs.optional(),
    startsAt: queryTime.optional().meta({ description: 'default: now' }),
    expiresAt: queryTime,
  })
  .strict();
const playersBody = z.object({ playerRefs: playerRefs.min(1) }).strict();
const campaignParams = z.object({ campaignId: idText(200) });
const listQuery = z.object({ operatorId: operatorIdText.optional(), status: z.enum(CAMPAIGN_STATUSES).optional(), limit: queryInt(1, 500, 100) });
const totalsQuery = z.object({ operatorId: operatorIdText.optional(), from: queryTime.optional(), to: queryTime.optional() });

function callerOf(request: { caller: { kind: string; operatorId?: string }; staffScope?: { operatorIds: string[] | null } }): CampaignCaller {
  const caller = request.caller;
  if (caller.kind === 'admin') return { kind: 'admin' };
  if (caller.kind === 'staff') return { kind: 'staff', operatorIds: request.staffScope?.operatorIds ?? null };
  if (caller.kind === 'operator' && caller.operatorId) return { kind: 'operator', operatorId: caller.operatorId };
  throw new AppError('UNAUTHORIZED', 'an administrator token or an operator signature is required');
}

/** The campaign operations under `prefix`, behind `auth`. */
function campaignRoutes(app: AppInstance, s: Services, prefix: string, rules: RouteRules, ids: string, tags: string[]): void {
  app.post(
    prefix,
    {
      config: rules('create'),
      schema: { operationId: `create${ids}`, summary: 'Create a free-bet campaign', tags, response: { 201: campaignAnswer }, body: createBody },
    },
    async (request, reply) => reply.status(201).send(await createCampaign(s.money, callerOf(request), request.body)),
  );
  app.get(
    prefix,
    {
      config: rules('list'),
      schema: { operationId: `list${ids}`, summary: 'List free-bet campaigns', tags, response: { 200: campaignListAnswer }, querystring: listQuery },
    },
    async (request) => listCampaignsOf(s.money, callerOf(request), request.query),
  );
  app.get(
    `${prefix}/:campaignId`,
    {
      config: rules('get'),
      schema: {
        operationId: `get${ids.replace(/s$/, '')}`,
        summary: 'A free-bet campaign with its players',
        tags,
        response: { 200: campaignDetailAnswer },
        params: campaignParams,
      },
    },
    async (request) => campaignDetail(s.money, callerOf(request), request.params.campaignId),
  );
  app.post(
    `${prefix}/:campaignId/players`,
    {
      config: rules('players'),
      schema: {
        operationId: `add${ids.replace(/s$/, '')}Players`,
        summary: 'Add players to a free-bet campaign',
        tags,
        response: { 200: campaignPlayersAnswer },
        params: campaignParams,
        body: playersBody,
      },
    },
    async (request) => addCampaignPlayers(s.money, callerOf(request), request.params.campaignId, request.body.playerRefs),
  );
  app.post(
    `${prefix}/:campaignId/cancel`,
    {
      config: rules('cancel'),
      schema: {
        operationId: `cancel${ids.replace(/s$/, '')}`,
        summary: 'Cancel a free-bet campaign',
        tags,
        response: { 200: campaignAnswer },
        params: campaignParams,
      },
    },
    async (request) => cancelCampaignOf(s.money, callerOf(request), request.params.campaignId),
  );
}

export function freeBetRoutes(app: AppInstance, s: Services): void {
  campaignRoutes(app, s, '/api/free-bet-campaigns', OPERATOR_RULES, 'FreeBetCampaigns', ['operator', 'free-bets']);
  campaignRoutes(app, s, '/api/admin/free-bet-campaigns', STAFF_RULES, 'AdminFreeBetCampaigns', ['admin', 'free-bets']);

  app.get(
    '/api/sessions/:sessionId/free-bets',
    {
      config: { auth: 'player' },
      schema: {
        operationId: 'getSessionFreeBets',
        summary: "The player's active free-bet campaigns and what is left",
        tags: ['player', 'free-bets'],
        response: { 200: sessionFreeBetsAnswer },
        params: z.object({ sessionId: sessionIdSchema }),
      },
    },
    async (request) => sessionFreeBets(s.money, request.params.sessionId),
  );

  app.get(
    '/api/reconciliation/totals',
    {
      config: { auth: 'admin-or-operator' },
      schema: {
        operationId: 'getReconciliationTotals',
        summary: 'Totals of wallet callbacks, free-bet rounds apart from paid ones',
        tags: ['operator', 'admin'],
        response: { 200: reconciliationTotalsAnswer },
        querystring: totalsQuery,
      },
    },
    async (request) => {
      let operatorId = request.query.operatorId;
      if (request.caller.kind === 'operator') {
        if (operatorId && operatorId !== request.caller.operatorId) throw new AppError('FORBIDDEN', 'a casino reads only its own operator');
        operatorId = request.caller.operatorId;
      }
      return reconciliationTotals(s.db, { ...request.query, operatorId });
    },
  );
}

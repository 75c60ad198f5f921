/**
 * Free-bet campaigns (issue 17): a casino gives players N bets of a fixed amount on one game,
 * paid for by the operator. Created, listed, extended with players and cancelled through the
 * admin API and the casino's signed operator API (its own campaigns only); a player's session
 * lists what is left. Using one is the money path's opening with funding `free-bet` (no debit; one credit of
 * the payout with `freeBet: true` and `campaignId`), called by bets.ts and mines.ts.
 *
 * Refusals use CONTRACT.md §2 codes only (docs/free-bets.md has the table):
 *   unknown campaign, another operator's, player not in it, not started, ended, cancelled,
 *   none left                              → ACTION_NOT_AVAILABLE (the free bet is not available)
 *   the bet's game or amount differs from the campaign's → VALIDATION_ERROR
 *   campaign for a game the operator disabled → GAME_DISABLED; amount off the operator's limits
 *   → BET_OUT_OF_RANGE / MAX_PAYOUT_EXCEEDED (at creation); an unknown campaign id on the
 *   campaign API → NOT_FOUND; another operator's campaign through a signed request → FORBIDDEN.
 *   Players the campaign's budget cannot fund → ACTION_NOT_AVAILABLE (nothing granted; the message
 *   says how many more it can fund); a budget below one player's grant → VALIDATION_ERROR.
 */
import { randomUUID } from 'node:crypto';
import { isInstantGame, parseGameParams, prepareInstantBet } from '@gp/game-core/games';
import { amountJson, checkMaxPayout, checkStake, parseAmount } from '@gp/game-core/money';
import { AppError } from '../errors.js';
import type { SessionWithToken } from '../sessions/sessions.js';
import {
  activeGrantsOfPlayer,
  addGrants,
  cancelCampaign,
  getCampaign,
  grantOf,
  grantsOfCampaign,
  insertCampaign,
  listCampaigns,
  type Campaign,
  type CampaignStatus,
  type FreeBetGame,
  type Grant,
} from './free-bet-store.js';
import type { MoneyDeps } from './money-path/callbacks.js';
import { campaignPayouts } from './round-store/reports.js';

export const MAX_PLAYERS_PER_REQUEST = 1000;

/** Who asks: the platform administrator (any operator) or a casino (its own operator only). */
/**
 * Who manages campaigns: the administrator token, a casino's signed request (its own operator), or
 * a staff member of the admin console (`operatorIds`: the profiles of their tenant; null: all).
 */
export type CampaignCaller = { kind: 'admin' } | { kind: 'operator'; operatorId: string } | { kind: 'staff'; operatorIds: string[] | null };

function checkScope(caller: CampaignCaller, operatorId: string): void {
  if (caller.kind === 'operator' && caller.operatorId !== operatorId) throw new AppError('FORBIDDEN', 'a casino manages only its own campaigns');
  if (caller.kind === 'staff' && caller.operatorIds !== null && !caller.operatorIds.includes(operatorId))
    throw new AppError('FORBIDDEN', 'this belongs to another casino');
}

export function campaignView(c: Campaign) {
  return {
    campaignId: c.campaignId,
    operatorId: c.operatorId,
    name: c.name,
    gameType: c.gameType,
    currency: c.currency,
    amount: amountJson(c.amount, c.currency),
    params: c.params,
    betsPerPlayer: c.betsPerPlayer,
    budget: c.budget === null ? null : amountJson(c.budget, c.currency),
    budgetUsed: amountJson(BigInt(c.grantedBets) * c.amount, c.currency),
    budgetLeft: c.budget === null ? null : amountJson(c.budget - BigInt(c.grantedBets) * c.amount, c.currency),
    startsAt: c.startsAt,
    expiresAt: c.expiresAt,
    cancelledAt: c.cancelledAt,
    status: c.status,
    players: c.players,
    freeBetsGranted: c.granted,
    freeBetsUsed: c.used,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

const grantView = (g: Grant) => ({ playerRef: g.playerRef, granted: g.granted, used: g.used, remaining: g.granted - g.used });

export interface CreateCampaignInput {
  operatorId?: string | undefined;
  name?: string | undefined;
  gameType: FreeBetGame;
  amount: string;
  params?: Record<string, unknown> | undefined;
  betsPerPlayer: number;
  /** the stake value the campaign may grant in all (free bets granted × amount); none: no limit */
  budget?: string | undefined;
  playerRefs?: string[] | undefined;
  /** ISO time; default now */
  startsAt?: string | undefined;
  expiresAt: string;
}

/**
 * Checks the campaign against its operator's profile (currency decimals, game enabled, stake
 * limits, the largest payout of its params) and stores it with its first players.
 */
export async function createCampaign(deps: MoneyDeps, caller: CampaignCaller, input: CreateCampaignInput) {
  const operatorId =
    caller.kind === 'operator'
      ? (input.operatorId ?? caller.operatorId)
      : (input.operatorId ?? (caller.kind === 'staff' && caller.operatorIds?.length === 1 ? caller.operatorIds[0] : undefined));
  if (!operatorId) throw new AppError('VALIDATION_ERROR', 'operatorId is required');
  checkScope(caller, operatorId);
  const operator = await deps.operators.get(deps.db, operatorId);
  if (!operator) throw new AppError('NOT_FOUND', 'no such operator');
  if (!operator.enabledGames.includes(input.gameType)) throw new AppError('GAME_DISABLED', `${input.gameType} is disabled for this operator`);
  const amount = parseAmount(input.amount, operator.currency);
  checkStake(amount, operator);
  const raw = input.params ?? {};
  let params: Record<string, unknown> = {};
  if (Object.keys(raw).length > 0) {
    if (isInstantGame(input.gameType)) {
      const bet = prepareInstantBet(input.gameType, raw);
      checkMaxPayout(amount, bet.maxMultiplier4, operator);
      params = bet.params;
    } else {
      params = parseGameParams('mines', raw) as Record<string, unknown>;
    }
  }
  const startsAt = input.startsAt ? new Date(input.startsAt) : new Date();
  const expiresAt = new Date(input.expiresAt);
  if (expiresAt.getTime() <= startsAt.getTime()) throw new AppError('VALIDATION_ERROR', 'expiresAt must be after startsAt');
  const budget = input.budget === undefined ? null : parseAmount(input.budget, operator.currency);
  if (budget !== null && budget < amount * BigInt(input.betsPerPlayer)) {
    throw new AppError(
      'VALIDATION_ERROR',
      `budget must fund at least one player's free bets (${amountJson(amount * BigInt(input.betsPerPlayer), operator.currency).toString()} ${operator.currency})`,
    );
  }
  const playerRefs = input.playerRefs ?? [];
  const funded = amount * BigInt(input.betsPerPlayer) * BigInt(new Set(playerRefs).size);
  if (budget !== null && funded > budget) {
    // at creation the request itself is wrong (nothing was granted yet): a validation error, not "exhausted"
    throw new AppError(
      'VALIDATION_ERROR',
      `budget funds ${(budget / (amount * BigInt(input.betsPerPlayer))).toString()} player(s), not the ${new Set(playerRefs).size} named`,
    );
  }
  const campaignId = randomUUID();
  await deps.db.transaction(async (tx) => {
    await insertCampaign(tx, {
      campaignId,
      operatorId,
      name: input.name ?? null,
      gameType: input.gameType,
      currency: operator.currency,
      amount,
      params,
      betsPerPlayer: input.betsPerPlayer,
      budget,
      startsAt,
      expiresAt,
    });
    budgetRefusal(await addGrants(tx, { campaignId, operatorId, betsPerPlayer: input.betsPerPlayer }, playerRefs));
  });
  return campaignView((await getCampaign(deps.db, campaignId))!);
}

export async function listCampaignsOf(
  deps: MoneyDeps,
  caller: CampaignCaller,
  q: { operatorId?: string | undefined; status?: CampaignStatus | undefined; limit: number },
) {
  let operatorId = q.operatorId;
  if (caller.kind === 'operator') {
    if (operatorId) checkScope(caller, operatorId);
    operatorId = caller.operatorId;
  }
  const operatorIds = caller.kind === 'staff' && !operatorId ? caller.operatorIds : null;
  if (operatorIds && operatorIds.length === 0) return { campaigns: [] };
  return { campaigns: (await listCampaigns(deps.db, { operatorId, operatorIds, status: q.status, limit: q.limit })).map(campaignView) };
}

async function campaignOf(deps: MoneyDeps, caller: CampaignCaller, campaignId: string): Promise<Campaign> {
  const c = await getCampaign(deps.db, campaignId);
  if (!c) throw new AppError('NOT_FOUND', 'no such campaign');
  checkScope(caller, c.operatorId);
  return c;
}

/** One campaign with its players (up to 1000) and its free-bet rounds' payouts so far. */
export async function campaignDetail(deps: MoneyDeps, caller: CampaignCaller, campaignId: string) {
  const c = await campaignOf(deps, caller, campaignId);
  const [grants, payouts] = await Promise.all([grantsOfCampaign(deps.db, campaignId, 1000), campaignPayouts(deps.db, campaignId)]);
  return {
    ...campaignView(c),
    grants: grants.map(grantView),
    rounds: payouts.rounds,
    roundsOpen: payouts.pending,
    paidOut: amountJson(payouts.paidOut, c.currency),
  };
}

/** Throws when the budget could not fund the players (the transaction rolls their grants back). */
function budgetRefusal(result: Awaited<ReturnType<typeof addGrants>>): { added: number } {
  if ('overBudget' in result) {
    throw new AppError('ACTION_NOT_AVAILABLE', `the campaign's budget is exhausted: it can fund ${result.playersLeft} more player(s), nothing was granted`);
  }
  return result;
}

/** Adds players (each gets `betsPerPlayer`); a player already in the campaign keeps the grant. Refused once the campaign ended or was cancelled. */
export async function addCampaignPlayers(deps: MoneyDeps, caller: CampaignCaller, campaignId: string, playerRefs: string[]) {
  const c = await campaignOf(deps, caller, campaignId);
  if (c.status === 'ended' || c.status === 'cancelled') throw new AppError('ACTION_NOT_AVAILABLE', `the campaign is ${c.status}`);
  const { added } = await deps.db.transaction(async (tx) => budgetRefusal(await addGrants(tx, c, playerRefs)));
  return { ...campaignView((await getCampaign(deps.db, campaignId))!), added };
}

/** Cancels the campaign: no free bet of it can be used from now on (rounds already open finish). Cancelling a cancelled one answers it as it is. */
export async function cancelCampaignOf(deps: MoneyDeps, caller: CampaignCaller, campaignId: string) {
  const c = await campaignOf(deps, caller, campaignId);
  if (c.status === 'cancelled') return campaignView(c);
  if (c.status === 'ended') throw new AppError('ACTION_NOT_AVAILABLE', 'the campaign has ended');
  await cancelCampaign(deps.db, campaignId);
  return campaignView((await getCampaign(deps.db, campaignId))!);
}

/** GET /api/sessions/{sessionId}/free-bets: the player's active campaigns and what is left. */
export async function sessionFreeBets(deps: MoneyDeps & { sessions: { get(db: MoneyDeps['db'], id: string): Promise<SessionWithToken> } }, sessionId: string) {
  const session = await deps.sessions.get(deps.db, sessionId);
  const rows = await activeGrantsOfPlayer(deps.db, session.operatorId, session.playerRef);
  return {
    freeBets: rows.map(({ campaign: c, grant: g }) => ({
      campaignId: c.campaignId,
      name: c.name,
      gameType: c.gameType,
      amount: amountJson(c.amount, c.currency),
      currency: c.currency,
      params: c.params,
      granted: g.granted,
      used: g.used,
      remaining: g.granted - g.used,
      startsAt: c.startsAt,
      expiresAt: c.expiresAt,
    })),
  };
}

/**
 * The campaign of a free-bet request, checked before anything is written: it must be the
 * session's operator's, for the bet's game and amount. Whether a free bet is left is decided
 * by `useFreeBet` in the transaction that opens the round.
 */
export async function campaignForBet(deps: MoneyDeps, session: SessionWithToken, campaignId: string, gameType: string, amount: bigint): Promise<Campaign> {
  const c = await getCampaign(deps.db, campaignId);
  if (!c || c.operatorId !== session.operatorId) throw new AppError('ACTION_NOT_AVAILABLE', 'no free bet of this campaign is available to this player');
  if (c.gameType !== gameType) throw new AppError('VALIDATION_ERROR', `the free bets of this campaign are for ${c.gameType}, not ${gameType}`);
  if (c.amount !== amount)
    throw new AppError('VALIDATION_ERROR', `a free bet of this campaign is ${amountJson(c.amount, c.currency).toString()} ${c.currency}`);
  return c;
}

/** Why `useFreeBet` found nothing to use (an ACTION_NOT_AVAILABLE that says so). */
export async function freeBetRefusal(deps: Pick<MoneyDeps, 'db'>, campaignId: string, playerRef: string): Promise<AppError> {
  const [c, g] = await Promise.all([getCampaign(deps.db, campaignId), grantOf(deps.db, campaignId, playerRef)]);
  const why =
    !c || !g
      ? 'this player has no free bets in this campaign'
      : c.status !== 'active'
        ? `the campaign is ${c.status}`
        : 'no free bets of this campaign are left';
  return new AppError('ACTION_NOT_AVAILABLE', why);
}

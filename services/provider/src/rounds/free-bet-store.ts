/**
 * Data access for free-bet campaigns and their grants (issue 17; migrations/20261125050000).
 * A campaign's status is derived from its times in SQL (`STATUS_SQL`), never stored twice; a
 * grant's `used` count passes its `granted` count never (CHECK free_bet_grants_used_check), and
 * `useFreeBet` takes one with `UPDATE … WHERE used < granted` in the transaction that opens the
 * round, so two requests for the last free bet cannot both have it.
 */
import type { CurrencyCode } from '@gp/game-core/money';
import type { GameType } from '@gp/game-core/games';
import { toBigInt, toIso, type Queryable, type Tx, LIMIT_IN_TEXT } from '../store/db.js';

export const CAMPAIGN_STATUSES = ['scheduled', 'active', 'ended', 'cancelled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const FREE_BET_GAMES = ['dice', 'limbo', 'plinko', 'keno', 'mines'] as const satisfies readonly GameType[];
export type FreeBetGame = (typeof FREE_BET_GAMES)[number];

/** The status of a campaign at the database's now: cancelled wins, then the time window. */
const STATUS_SQL = `CASE WHEN c.cancelled_at IS NOT NULL THEN 'cancelled' WHEN now() < c.starts_at THEN 'scheduled' WHEN now() < c.expires_at THEN 'active' ELSE 'ended' END`;

export interface Campaign {
  campaignId: string;
  operatorId: string;
  name: string | null;
  gameType: FreeBetGame;
  currency: CurrencyCode;
  amount: bigint;
  params: Record<string, unknown>;
  betsPerPlayer: number;
  /** the stake value the campaign may grant (free bets granted × amount), null: no limit */
  budget: bigint | null;
  /** free bets granted so far (what the budget counts) */
  grantedBets: number;
  startsAt: string;
  expiresAt: string;
  cancelledAt: string | null;
  status: CampaignStatus;
  players: number;
  granted: number;
  used: number;
  createdAt: string;
  updatedAt: string;
}

interface CampaignRow {
  campaign_id: string;
  operator_id: string;
  name: string | null;
  game_type: FreeBetGame;
  currency: CurrencyCode;
  amount: string;
  params: Record<string, unknown>;
  bets_per_player: number;
  budget: string | null;
  granted_bets: string | number;
  starts_at: Date | string;
  expires_at: Date | string;
  cancelled_at: Date | string | null;
  status: CampaignStatus;
  players: string | number;
  granted: string | number | null;
  used: string | number | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const campaignFromRow = (r: CampaignRow): Campaign => ({
  campaignId: r.campaign_id,
  operatorId: r.operator_id,
  name: r.name,
  gameType: r.game_type,
  currency: r.currency,
  amount: toBigInt(r.amount),
  params: r.params,
  betsPerPlayer: r.bets_per_player,
  budget: r.budget === null ? null : toBigInt(r.budget),
  grantedBets: Number(r.granted_bets),
  startsAt: toIso(r.starts_at),
  expiresAt: toIso(r.expires_at),
  cancelledAt: r.cancelled_at === null ? null : toIso(r.cancelled_at),
  status: r.status,
  players: Number(r.players),
  granted: Number(r.granted ?? 0),
  used: Number(r.used ?? 0),
  createdAt: toIso(r.created_at),
  updatedAt: toIso(r.updated_at),
});

function campaignQuery(db: Queryable) {
  return db('free_bet_campaigns as c').select(
    'c.*',
    db.raw(`${STATUS_SQL} AS status`),
    db.raw('(SELECT count(*) FROM free_bet_grants g WHERE g.campaign_id = c.campaign_id) AS players'),
    db.raw('(SELECT sum(granted) FROM free_bet_grants g WHERE g.campaign_id = c.campaign_id) AS granted'),
    db.raw('(SELECT sum(used) FROM free_bet_grants g WHERE g.campaign_id = c.campaign_id) AS used'),
  );
}

export async function getCampaign(db: Queryable, campaignId: string): Promise<Campaign | null> {
  const row = (await campaignQuery(db).where('c.campaign_id', campaignId).first()) as CampaignRow | undefined;
  return row ? campaignFromRow(row) : null;
}

export interface CampaignFilter {
  operatorId?: string | undefined;
  /** the profiles a staff member of a tenant sees */
  operatorIds?: string[] | null | undefined;
  status?: CampaignStatus | undefined;
  limit: number;
}

export async function listCampaigns(db: Queryable, f: CampaignFilter): Promise<Campaign[]> {
  const q = campaignQuery(db).orderBy('c.created_at', 'desc').limit(f.limit, LIMIT_IN_TEXT);
  if (f.operatorId) q.where('c.operator_id', f.operatorId);
  if (f.operatorIds) q.whereIn('c.operator_id', f.operatorIds);
  if (f.status) q.whereRaw(`${STATUS_SQL} = ?`, [f.status]);
  return ((await q) as CampaignRow[]).map(campaignFromRow);
}

/** A campaign as created: the fields it is given (those of Campaign) and its window. */
export type NewCampaign = Pick<Campaign, 'campaignId' | 'operatorId' | 'name' | 'gameType' | 'currency' | 'amount' | 'params' | 'betsPerPlayer' | 'budget'> & {
  startsAt: Date;
  expiresAt: Date;
};

export async function insertCampaign(tx: Tx, c: NewCampaign): Promise<void> {
  await tx('free_bet_campaigns').insert({
    campaign_id: c.campaignId,
    operator_id: c.operatorId,
    name: c.name,
    game_type: c.gameType,
    currency: c.currency,
    amount: c.amount.toString(),
    params: JSON.stringify(c.params),
    bets_per_player: c.betsPerPlayer,
    budget: c.budget === null ? null : c.budget.toString(),
    starts_at: c.startsAt,
    expires_at: c.expiresAt,
  });
}

/**
 * Grants the campaign's free bets to players who have none yet (a player added twice keeps the
 * first grant) and counts them against the budget in the same transaction: the campaign row's
 * `granted_bets` moves only while the budget allows it (CHECK free_bet_campaigns_within_budget
 * holds it too), so two concurrent additions cannot both take the last of it. When the budget
 * cannot fund them, nothing is granted: the answer says how many more players it can fund, and
 * the caller rolls the transaction back.
 */
export async function addGrants(
  tx: Tx,
  campaign: Pick<Campaign, 'campaignId' | 'operatorId' | 'betsPerPlayer'>,
  playerRefs: string[],
): Promise<{ added: number } | { overBudget: true; playersLeft: number }> {
  if (playerRefs.length === 0) return { added: 0 };
  const rows = await tx('free_bet_grants')
    .insert(
      [...new Set(playerRefs)].map((p) => ({
        campaign_id: campaign.campaignId,
        operator_id: campaign.operatorId,
        player_ref: p,
        granted: campaign.betsPerPlayer,
      })),
    )
    .onConflict(['campaign_id', 'player_ref'])
    .ignore()
    .returning('player_ref');
  if (rows.length === 0) return { added: 0 };
  const { rows: counted } = await tx.raw(
    `UPDATE free_bet_campaigns SET granted_bets = granted_bets + ?::bigint * bets_per_player, updated_at = now()
     WHERE campaign_id = ? AND (budget IS NULL OR (granted_bets + ?::bigint * bets_per_player) * amount <= budget)
     RETURNING campaign_id`,
    [rows.length, campaign.campaignId, rows.length],
  );
  if ((counted as unknown[]).length > 0) return { added: rows.length };
  const left = (await tx('free_bet_campaigns')
    .where({ campaign_id: campaign.campaignId })
    .first(tx.raw('floor((budget - granted_bets * amount) / (bets_per_player * amount)) AS players_left'))) as { players_left: string | number } | undefined;
  return { overBudget: true, playersLeft: Math.max(0, Number(left?.players_left ?? 0)) };
}

/** Cancels a campaign that is not cancelled or ended yet; answers whether this call cancelled it. */
export async function cancelCampaign(db: Queryable, campaignId: string): Promise<boolean> {
  const n = await db('free_bet_campaigns')
    .where({ campaign_id: campaignId })
    .whereNull('cancelled_at')
    .andWhere('expires_at', '>', db.fn.now())
    .update({ cancelled_at: db.fn.now(), updated_at: db.fn.now() });
  return n > 0;
}

export interface Grant {
  campaignId: string;
  playerRef: string;
  granted: number;
  used: number;
}

export async function grantsOfCampaign(db: Queryable, campaignId: string, limit: number): Promise<Grant[]> {
  const rows: { campaign_id: string; player_ref: string; granted: number; used: number }[] = await db('free_bet_grants')
    .where({ campaign_id: campaignId })
    .orderBy('player_ref')
    .limit(limit, LIMIT_IN_TEXT);
  return rows.map((r) => ({ campaignId: r.campaign_id, playerRef: r.player_ref, granted: r.granted, used: r.used }));
}

export async function grantOf(db: Queryable, campaignId: string, playerRef: string): Promise<Grant | null> {
  const r: { campaign_id: string; player_ref: string; granted: number; used: number } | undefined = await db('free_bet_grants')
    .where({ campaign_id: campaignId, player_ref: playerRef })
    .first();
  return r ? { campaignId: r.campaign_id, playerRef: r.player_ref, granted: r.granted, used: r.used } : null;
}

/** The player's grants in the operator's active campaigns (what the game page shows). */
export async function activeGrantsOfPlayer(db: Queryable, operatorId: string, playerRef: string): Promise<{ campaign: Campaign; grant: Grant }[]> {
  const rows = (await campaignQuery(db)
    .select(db.raw('pg.granted AS player_granted'), db.raw('pg.used AS player_used'))
    .join('free_bet_grants as pg', 'pg.campaign_id', 'c.campaign_id')
    .where({ 'c.operator_id': operatorId, 'pg.player_ref': playerRef })
    .whereNull('c.cancelled_at')
    .andWhere('c.starts_at', '<=', db.fn.now())
    .andWhere('c.expires_at', '>', db.fn.now())
    .orderBy('c.expires_at')) as (CampaignRow & { player_granted: number; player_used: number })[];
  return rows.map((r) => ({ campaign: campaignFromRow(r), grant: { campaignId: r.campaign_id, playerRef, granted: r.player_granted, used: r.player_used } }));
}

/**
 * Uses one of the player's free bets of an active campaign of the operator: `used + 1` only while
 * `used < granted` (the CHECK holds it too). Run in the transaction that opens the round: a
 * concurrent request for the same grant waits for this row and then finds none left. Null when
 * no free bet could be used (see `freeBetRefusal` for why).
 */
export async function useFreeBet(tx: Tx, u: { campaignId: string; operatorId: string; playerRef: string }): Promise<Grant | null> {
  const res = await tx.raw(
    `UPDATE free_bet_grants g SET used = g.used + 1, updated_at = now()
     FROM free_bet_campaigns c
     WHERE g.campaign_id = ? AND g.player_ref = ? AND g.operator_id = ? AND c.campaign_id = g.campaign_id
       AND c.cancelled_at IS NULL AND c.starts_at <= now() AND c.expires_at > now() AND g.used < g.granted
     RETURNING g.campaign_id, g.player_ref, g.granted, g.used`,
    [u.campaignId, u.playerRef, u.operatorId],
  );
  const r = (res.rows as { campaign_id: string; player_ref: string; granted: number; used: number }[])[0];
  return r ? { campaignId: r.campaign_id, playerRef: r.player_ref, granted: r.granted, used: r.used } : null;
}

/** Live stats of this session (issue 12): bets, wins, losses, wagered and profit in minor units, and the profit after each bet for the chart. */
import type { Minor } from '../lib/money';

export interface Stats {
  bets: number;
  wins: number;
  losses: number;
  wagered: Minor;
  profit: Minor;
  /** profit after each bet (the chart keeps the last 200) */
  series: Minor[];
}

export const EMPTY_STATS: Stats = { bets: 0, wins: 0, losses: 0, wagered: 0n, profit: 0n, series: [] };

export function addRound(s: Stats, staked: Minor, payout: Minor): Stats {
  const profit = s.profit + payout - staked;
  const won = payout > staked;
  return {
    bets: s.bets + 1,
    wins: s.wins + (won ? 1 : 0),
    losses: s.losses + (payout < staked ? 1 : 0),
    wagered: s.wagered + staked,
    profit,
    series: [...s.series, profit].slice(-200),
  };
}

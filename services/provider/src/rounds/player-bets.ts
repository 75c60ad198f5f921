/**
 * My bets (issue 12): the recent rounds of the player a session belongs to (operator +
 * playerRef, across that player's sessions and games), newest first, each as the bet answer of
 * CONTRACT.md §12 without the callback audit. Only that player's rounds; an open Mines or
 * Blackjack round shows only what the player may see, and a server seed only once rotated.
 */
import type { SessionWithToken } from '../sessions/sessions.js';
import type { Db } from '../store/db.js';
import { playerResultView } from './player-view.js';
import { roundsOfPlayer } from './round-store/reads.js';
import { betView, type BetView } from './round-view.js';

export interface PlayerBetsPage {
  bets: BetView[];
  /** the `before` of the next page, null on the last page */
  nextCursor: string | null;
}

export async function playerBets(
  db: Db,
  session: Pick<SessionWithToken, 'operatorId' | 'playerRef'>,
  opts: { limit: number; before?: string | undefined },
): Promise<PlayerBetsPage> {
  const rounds = await roundsOfPlayer(db, session.operatorId, session.playerRef, { limit: opts.limit + 1, before: opts.before });
  const page = rounds.slice(0, opts.limit);
  const bets = await Promise.all(page.map((round) => betView(db, round, { result: playerResultView(round) })));
  return { bets, nextCursor: rounds.length > opts.limit ? (page.at(-1)?.roundId ?? null) : null };
}

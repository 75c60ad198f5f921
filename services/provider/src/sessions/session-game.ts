/**
 * Which games a session may open (CONTRACT.md §5, SPEC.md launch modes): a `single` session plays
 * the one game it was launched for; a `lobby` session plays any game of its operator. Checked for
 * a round-opening request (rounds/round-actions.ts `openingChecks`).
 */
import type { GameType } from '@gp/game-core/games';
import { AppError } from '../errors.js';
import type { SessionWithToken } from './sessions.js';

export function checkSessionGame(session: Pick<SessionWithToken, 'launchMode' | 'gameType'>, gameType: GameType): void {
  if (session.launchMode === 'single' && session.gameType !== gameType) {
    throw new AppError('SESSION_GAME_MISMATCH', `this session is for ${session.gameType}, not ${gameType}`);
  }
}

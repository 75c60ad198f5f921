/**
 * POST /api/fairness/rotate (CONTRACT.md §9): reveals the player's current server seed and
 * commits a new one, refused with ACTIVE_ROUND_EXISTS while an open Mines or Blackjack round
 * uses the current pair — revealing the seed would reveal its mines or cards.
 */
import { AppError } from '../errors.js';
import type { SessionWithToken } from '../sessions/sessions.js';
import type { Db } from '../store/db.js';
import { rotateSeedPair } from '../store/seed-pairs.js';
import { openRoundUnderSeedPair } from './round-store/reads.js';
import { publicStatusOf } from './round-status.js';

export async function rotateSeeds(db: Db, session: Pick<SessionWithToken, 'operatorId' | 'playerRef'>, clientSeed: string | undefined) {
  const { previous, next } = await rotateSeedPair(db, session.operatorId, session.playerRef, clientSeed, async (tx, seedPairId) => {
    const open = await openRoundUnderSeedPair(tx, seedPairId);
    if (open)
      throw new AppError('ACTIVE_ROUND_EXISTS', 'finish the active round before rotating the seed: revealing the seed would reveal its outcome').withRound(
        open.roundId,
        publicStatusOf(open),
      );
  });
  return {
    previousServerSeed: previous.serverSeed,
    previousServerSeedHash: previous.serverSeedHash,
    previousClientSeed: previous.clientSeed,
    previousNonce: Number(previous.nextNonce),
    serverSeedHash: next.serverSeedHash,
    clientSeed: next.clientSeed,
    nonce: Number(next.nextNonce),
  };
}

/**
 * A stored round as My bets and the replay read it (CONTRACT.md §12 bet answer of
 * GET /api/bets/{roundId} and GET /api/player/bets): amounts in minor units of the round's own
 * currency, the fairness proof with the server seed only once revealed.
 */
import { CURRENCY_DECIMALS } from '@gp/game-core/money';
import type { Json } from '../lib/api';
import type { PlayerBet, RoundStatus, RoundWire } from './contract';
import { fromApi, type Minor } from '../lib/money';
import { isGameType, type GameType } from './launch';

export interface StoredRound {
  roundId: string;
  roundStatus: RoundStatus;
  gameType: GameType;
  currency: string;
  decimals: number;
  amount: Minor;
  totalStaked: Minor;
  payout: Minor;
  multiplier: number;
  won: boolean;
  params: Json;
  result: Json | null;
  playerRef: string;
  createdAt: string;
  settledAt: string | null;
  fairness: { serverSeedHash: string | null; clientSeed: string; nonce: number; serverSeed: string | null };
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

export function readStoredRound(j: PlayerBet | RoundWire): StoredRound | null {
  const bet: Partial<PlayerBet['bet']> = j.bet ?? {};
  const f: Partial<PlayerBet['fairness']> = j.fairness ?? {};
  if (!isGameType(bet.gameType)) return null;
  const currency = str(bet.currency);
  const decimals = (CURRENCY_DECIMALS as Record<string, number>)[currency] ?? 2;
  const amount = fromApi(bet.amount ?? 0, decimals);
  return {
    roundId: str(j.roundId),
    roundStatus: j.roundStatus,
    gameType: bet.gameType,
    currency,
    decimals,
    amount,
    totalStaked: bet.totalStaked === undefined ? amount : fromApi(bet.totalStaked, decimals),
    payout: fromApi(bet.payout ?? 0, decimals),
    multiplier: Number(bet.multiplier ?? 0),
    won: bet.won === true,
    params: (bet.params ?? {}) as Json,
    result: (j.result ?? null) as unknown as Json | null,
    playerRef: str(bet.playerRef),
    createdAt: str(bet.createdAt),
    settledAt: typeof bet.settledAt === 'string' ? bet.settledAt : null,
    fairness: {
      serverSeedHash: typeof f.serverSeedHash === 'string' ? f.serverSeedHash : null,
      clientSeed: str(f.clientSeed),
      nonce: Number(f.nonce ?? 0),
      serverSeed: typeof f.serverSeed === 'string' ? f.serverSeed : null,
    },
  };
}

/** A round whose result is fixed (its outcome can be shown in full). */
export const isClosed = (r: Pick<StoredRound, 'roundStatus'>) => r.roundStatus !== 'active';

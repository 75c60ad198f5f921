/** What the page reads from the API (CONTRACT.md §5, §12), amounts already in minor units. */
import type { Json } from '../lib/api';
import { fromApi, type Minor } from '../lib/money';
import type { StakeLimits } from '../lib/stake';
import type { ConfigAnswer, RoundStatus, RoundWire, RulesAnswer, SessionAnswer } from './contract';
import { isGameType, type GameType } from './launch';

export interface OperatorConfig extends StakeLimits {
  operatorId: string;
  currency: string;
  decimals: number;
  maxPayout: Minor;
  enabledGames: GameType[];
  theme: Partial<ConfigAnswer['theme']>;
  allowedEmbedOrigins: string[];
}

export interface Fairness {
  serverSeedHash: string;
  clientSeed: string;
  /** the nonce of the next bet */
  nonce: number;
}

/** The session's responsible-gaming rules (issue 27; docs/game-page.md "Responsible gaming"): the answer's own type. */
export type Rules = RulesAnswer;

export const NO_RULES: Rules = {
  autobet: 'allowed',
  autobetMaxRounds: null,
  autobetRequiresLossLimit: false,
  minRoundIntervalMs: 0,
  realityCheckMinutes: null,
  showNetPosition: false,
  showElapsedTime: false,
  jurisdiction: null,
};

const posInt = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null);

/** The answer's `rules`, each field checked; anything unreadable keeps today's behaviour. */
export function readRules(v: RulesAnswer | null | undefined): Rules {
  if (!v || typeof v !== 'object') return NO_RULES;
  const r = v;
  return {
    autobet: r.autobet === 'limited' || r.autobet === 'disabled' ? r.autobet : 'allowed',
    autobetMaxRounds: posInt(r.autobetMaxRounds),
    autobetRequiresLossLimit: r.autobetRequiresLossLimit === true,
    minRoundIntervalMs: typeof r.minRoundIntervalMs === 'number' && r.minRoundIntervalMs > 0 ? Math.min(r.minRoundIntervalMs, 60_000) : 0,
    realityCheckMinutes: posInt(r.realityCheckMinutes),
    showNetPosition: r.showNetPosition === true,
    showElapsedTime: r.showElapsedTime === true,
    jurisdiction: typeof r.jurisdiction === 'string' ? r.jurisdiction : null,
  };
}

export interface Session {
  sessionId: string;
  operatorId: string;
  playerRef: string;
  displayName: string | null;
  currency: string;
  gameType: GameType | null;
  launchMode: 'single' | 'lobby';
  fairness: Fairness;
  rules: Rules;
}

const str = (v: unknown, fallback = '') => (typeof v === 'string' ? v : fallback);

export function readConfig(j: ConfigAnswer): OperatorConfig {
  const decimals = Number(j.decimals);
  return {
    operatorId: str(j.operatorId),
    currency: str(j.currency),
    decimals,
    minBet: fromApi(j.minBet, decimals),
    maxBet: j.maxBet === null || j.maxBet === undefined ? null : fromApi(j.maxBet, decimals),
    stakeStep: fromApi(j.stakeStep, decimals),
    maxPayout: fromApi(j.maxPayout, decimals),
    enabledGames: Array.isArray(j.enabledGames) ? j.enabledGames.filter(isGameType) : [],
    theme: j.theme ?? {},
    allowedEmbedOrigins: Array.isArray(j.allowedEmbedOrigins) ? j.allowedEmbedOrigins.filter((o): o is string => typeof o === 'string') : [],
  };
}

export function readSession(j: SessionAnswer): Session {
  const f: Partial<SessionAnswer['fairness']> = j.fairness ?? {};
  return {
    sessionId: str(j.sessionId),
    operatorId: str(j.operatorId),
    playerRef: str(j.playerRef),
    displayName: typeof j.displayName === 'string' ? j.displayName : null,
    currency: str(j.currency),
    gameType: isGameType(j.gameType) ? j.gameType : null,
    launchMode: j.launchMode === 'lobby' ? 'lobby' : 'single',
    fairness: { serverSeedHash: str(f.serverSeedHash), clientSeed: str(f.clientSeed), nonce: Number(f.nonce ?? 0) },
    rules: readRules(j.rules),
  };
}

/** A round answer (CONTRACT.md §12) as the games read it. */
export interface RoundAnswer {
  roundId: string;
  roundStatus: RoundStatus;
  bet: { amount: Minor; payout: Minor; multiplier: number; won: boolean; totalStaked: Minor; params: Json };
  result: Json;
  fairness: { serverSeedHash: string; clientSeed: string; nonce: number };
  /** latest casino balance, when the answer carries it */
  balance: Minor | null;
}

export function readRound(j: RoundWire, decimals: number): RoundAnswer {
  const bet: Partial<RoundWire['bet']> = j.bet ?? {};
  const f: Partial<RoundWire['fairness']> = j.fairness ?? {};
  const amount = fromApi(bet.amount ?? 0, decimals);
  return {
    roundId: str(j.roundId),
    roundStatus: j.roundStatus,
    bet: {
      amount,
      payout: fromApi(bet.payout ?? 0, decimals),
      multiplier: Number(bet.multiplier ?? 0),
      won: bet.won === true,
      totalStaked: bet.totalStaked === undefined ? amount : fromApi(bet.totalStaked, decimals),
      params: (bet.params ?? {}) as Json,
    },
    result: (j.result ?? {}) as unknown as Json,
    fairness: { serverSeedHash: str(f.serverSeedHash), clientSeed: str(f.clientSeed), nonce: Number(f.nonce ?? 0) },
    balance: j.balance === undefined || j.balance === null ? null : fromApi(j.balance, decimals),
  };
}

export const FINAL_STATUSES: readonly RoundStatus[] = ['settled', 'cashed_out', 'busted', 'credit_pending'];
export const isFinal = (r: RoundAnswer) => r.roundStatus !== 'active';

/**
 * What a game needs from the page: the session and its profile, the shared stake, the casino
 * balance (updated only from answers, never polled), and `track` for requests that settle a round
 * (a currency switch waits for them).
 */
import { createContext, useContext } from 'react';
import type { Json } from '../lib/api';
import { formatMoney, type Minor } from '../lib/money';
import type { GameType } from './launch';
import type { OperatorConfig, RoundAnswer, Rules, Session } from './types';

export interface GameEnv {
  session: Session;
  config: OperatorConfig;
  game: GameType;
  /** the bet amount; null while the input holds no valid amount */
  stake: Minor | null;
  setStake(m: Minor | null): void;
  balance: Minor | null;
  /** true while the page switches currency: no new action may start */
  locked: boolean;
  /** Runs a request that may move money; the currency switch waits for it (up to 5 s). */
  track<T>(work: () => Promise<T>): Promise<T>;
  /** Reads a round answer: its balance (when present) and its fairness (nonce, last round). */
  round(j: Json): RoundAnswer;
  /** Applies a balance read earlier (e.g. when an animation ends). */
  showBalance(balance: Minor | null): void;
  money(m: Minor): string;
  /**
   * Spread into a round's first request: `{ clientSeed }` when the player set a client seed for the
   * next bet (shield), and `autobet: true` during an autobet run (issue 27). Calling it marks a
   * round start for the pacing rule; the start's answer (`round`) moves the mark to its arrival.
   */
  seedField(): { clientSeed?: string; autobet?: true };
  /** The session's responsible-gaming rules (issue 27). */
  rules: Rules;
  /** Resolves once a new round may start under `rules.minRoundIntervalMs` (at once without pacing). */
  pace(): Promise<void>;
  /** Autobet's link to the page: a currency switch asks every registered autobet to stop first. */
  autobet: {
    /** registers a stop request (the reason: 'switch' or 'realityCheck'); answers the unregister function */
    register(stop: (reason: 'switch' | 'realityCheck') => void): () => void;
    /** an autobet run started (true) or ended (false): its bets carry `autobet: true` */
    running(on: boolean): void;
    /** an autobet run ended (the page shows why when the game itself is replaced, e.g. by a switch) */
    stopped(reason: string): void;
  };
}

export const GameEnvContext = createContext<GameEnv | null>(null);

export function useGameEnv(): GameEnv {
  const env = useContext(GameEnvContext);
  if (!env) throw new Error('useGameEnv outside a game');
  return env;
}

export const moneyOf = (config: OperatorConfig) => (m: Minor) => formatMoney(m, config.currency, config.decimals);

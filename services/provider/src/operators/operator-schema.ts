/** The operator-currency profile (SPEC.md "Operator configuration", CONTRACT.md §5 and §7). */
import { z } from 'zod';
import type { CurrencyCode } from '@gp/game-core/money';
import type { GameType } from '@gp/game-core/games';
import type { ResponsibleGaming } from './responsible-gaming.js';

export const abandonedRoundPolicySchema = z
  .object({
    /** Hours of inactivity after which the retry job closes an open round. */
    afterHours: z
      .number()
      .int()
      .min(1)
      .max(24 * 90)
      .default(24),
    /** Mines: cash out rounds with at least one revealed tile (others stay open), or keep every round open. */
    mines: z.enum(['cashout', 'keep_open']).default('cashout'),
    /** Blackjack: stand every open hand (the dealer plays out), or keep the round open. */
    blackjack: z.enum(['stand', 'keep_open']).default('stand'),
  })
  .strict();

export type AbandonedRoundPolicy = z.output<typeof abandonedRoundPolicySchema>;
export const DEFAULT_ABANDONED_ROUND_POLICY: AbandonedRoundPolicy = { afterHours: 24, mines: 'cashout', blackjack: 'stand' };

export interface Theme {
  showBalanceInEmbed: boolean;
  /** the game page stops autobet when the page is hidden (issue 12); default false */
  autobetStopOnHidden: boolean;
}

export interface Operator {
  operatorId: string;
  tenantId: string | null;
  currency: CurrencyCode;
  decimals: number;
  callbackBaseUrl: string;
  minBet: bigint;
  maxBet: bigint | null;
  stakeStep: bigint;
  maxPayout: bigint;
  enabledGames: GameType[];
  theme: Theme;
  allowedEmbedOrigins: string[];
  abandonedRoundPolicy: AbandonedRoundPolicy;
  /** Responsible-gaming rules (issue 27; responsible-gaming.ts); null: none. */
  responsibleGaming: ResponsibleGaming | null;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  /** When the shared secret was last rotated (null: never). */
  secretRotatedAt?: string | null;
  /** Until when the secret before the last rotation still verifies signed requests (null: it does not). */
  previousSecretValidUntil?: string | null;
}

/** An operator together with its decrypted shared secret: only the wallet client and signature checks see this. */
export interface OperatorWithSecret extends Operator {
  sharedSecret: string;
  /** The secret before the last rotation, while `previousSecretValidUntil` is ahead (operator requests only; callbacks use `sharedSecret`). */
  previousSharedSecret?: string | null;
}

export const DEMO_OPERATOR_ID = 'demo-usd';
export const SANDBOX_CALLBACK_BASE = 'sandbox://demo-casino';

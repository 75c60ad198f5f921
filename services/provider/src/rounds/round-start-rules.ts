/**
 * Responsible-gaming checks of a round start (issue 27), run by `openingChecks` (round-actions.ts)
 * for a request key seen for the first time, before any wallet call and before anything is stored:
 *
 *  - AUTOBET_DISABLED: a bet of an autobet run (`autobet: true`) while the session's rules say
 *    `autobet: 'disabled'`;
 *  - ROUND_TOO_FAST: the player's previous round started less than `minRoundIntervalMs` ago. The
 *    player is the casino's (`tenantId`, else the profile) `playerRef`, so the interval holds
 *    across the player's sessions and currency profiles; the last start lives in Redis (one Lua
 *    script on Redis' clock, infra/kv.ts `paceStart`), so it holds across pods; without REDIS_URL
 *    it lives in this process (one pod).
 *
 * The rules are the profile's with the override of the session's jurisdiction (responsible-gaming.ts).
 */
import { AppError } from '../errors.js';
import type { KeyValueStore } from '../infra/kv.js';
import type { Operator } from '../operators/operator-schema.js';
import { effectiveRules, type EffectiveRules } from '../operators/responsible-gaming.js';
import type { Session } from '../sessions/sessions.js';

export interface RoundStart {
  /** The game page sets it on every bet of an autobet run. */
  autobet?: boolean | undefined;
}

/** The session's effective rules under the profile as it is now. */
export const sessionRules = (operator: Pick<Operator, 'responsibleGaming'>, session: Pick<Session, 'jurisdiction'>): EffectiveRules =>
  effectiveRules(operator.responsibleGaming, session.jurisdiction);

/** The key of a player's last round start: the casino (tenant, else profile) and its playerRef. */
export const paceKey = (operator: Pick<Operator, 'tenantId' | 'operatorId'>, playerRef: string) =>
  `${operator.tenantId !== null ? `t:${operator.tenantId}` : `o:${operator.operatorId}`}:${encodeURIComponent(playerRef)}`;

export async function checkRoundStart(kv: KeyValueStore, operator: Operator, session: Session, start: RoundStart = {}): Promise<void> {
  if (operator.responsibleGaming === null) return; // no rules: today's behaviour, no Redis call
  const rules = sessionRules(operator, session);
  if (start.autobet === true && rules.autobet === 'disabled') {
    throw new AppError('AUTOBET_DISABLED', 'autobet is not available to this player; place each bet by hand');
  }
  if (rules.minRoundIntervalMs > 0) {
    const waitMs = await kv.paceStart(paceKey(operator, session.playerRef), rules.minRoundIntervalMs);
    if (waitMs > 0) {
      throw new AppError('ROUND_TOO_FAST', `a new round can start ${rules.minRoundIntervalMs} ms after the previous one; wait ${waitMs} ms`, {
        retryAfterMs: waitMs,
        minRoundIntervalMs: rules.minRoundIntervalMs,
      });
    }
  }
}

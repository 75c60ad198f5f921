/**
 * Sessions (SPEC.md Session, CONTRACT.md §5): a launch token validated by the casino through
 * /wallet/validate-session, then the balance; the session is bound to the currency the casino
 * validated, which must be the operator's. Starting a session also starts the retries of the
 * player's pending credits and rollbacks (in the background).
 */
import { CURRENCY_DECIMALS, isCurrencyCode, parseMinorUnits, type CurrencyCode, amountJson } from '@gp/game-core/money';
import { AppError } from '../errors.js';
import { numberText, stringifyJson, type LosslessNumber } from '../infra/json.js';
import type { GameType } from '@gp/game-core/games';
import type { SecretBox } from '../infra/secret-box.js';
import type { OperatorWithSecret } from '../operators/operator-schema.js';
import type { OperatorStore } from '../operators/operator-store.js';
import { storableText, toIso, type Db, type Queryable } from '../store/db.js';
import { currentSeedPair } from '../store/seed-pairs.js';
import { memo } from '../infra/memo.js';
import { newSessionId } from '../infra/random.js';
import { rememberBalance } from './player-balances.js';
import { casinoMessageOf, outcomeError, type WalletClient } from '../wallet/wallet-client.js';
import { effectiveRules, readJurisdiction } from '../operators/responsible-gaming.js';
import { checkSwitchTenant } from './currency-switch.js';

export interface Session {
  sessionId: string;
  operatorId: string;
  playerRef: string;
  displayName: string | null;
  currency: CurrencyCode;
  gameType: GameType | null;
  launchMode: 'single' | 'lobby';
  createdAt: string;
  /** The jurisdiction validate-session named (issue 27), or null. */
  jurisdiction: string | null;
}

export interface SessionWithToken extends Session {
  launchToken: string;
}

interface SessionRow {
  session_id: string;
  operator_id: string;
  player_ref: string;
  display_name: string | null;
  currency: string;
  game_type: GameType | null;
  launch_mode: 'single' | 'lobby';
  jurisdiction?: string | null;
  launch_token_enc: string;
  created_at: Date | string;
  last_seen_at: Date | string;
  ended_at: Date | string | null;
}

/** Why a session no longer serves its player (INVALID_SESSION's message). */
export type SessionEnd = 'ended' | 'idle' | 'expired';

/** How often a pod re-reads a session it holds (an end by the casino reaches every pod within this). */
export const SESSION_RECHECK_MS = 5_000;
/** `last_seen_at` is written at most this often per session (the idle lifetime's granularity). */
export const SESSION_TOUCH_MS = 60_000;

interface HeldSession {
  session: SessionWithToken;
  createdAt: number;
  /** last_seen_at as read or written by this pod. */
  lastSeenDb: number;
  /** This pod's latest request of the session. */
  lastSeenHere: number;
  checkedAt: number;
}

/** Whether a session still serves its player at `now`; its lifetimes are SESSION_IDLE_MINUTES and SESSION_MAX_HOURS. */
export function sessionEnd(
  s: { createdAt: number; lastSeen: number; ended: boolean },
  now: number,
  lifetimes: { idleMs: number; maxMs: number },
): SessionEnd | null {
  if (s.ended) return 'ended';
  if (now - s.createdAt >= lifetimes.maxMs) return 'expired';
  if (now - s.lastSeen >= lifetimes.idleMs) return 'idle';
  return null;
}

const END_MESSAGE: Record<SessionEnd, string> = {
  ended: 'the casino ended this session; start a new one from the casino',
  idle: 'the session expired after a time without play; start a new one from the casino',
  expired: 'the session reached its maximum length; start a new one from the casino',
};

export interface SessionDeps {
  db: Db;
  box: SecretBox;
  operators: OperatorStore;
  wallet: WalletClient;
  /** Retries of a player's pending money movements, started in the background. */
  retryPlayer?: (operatorId: string, playerRef: string) => void;
  /** SESSION_IDLE_MINUTES and SESSION_MAX_HOURS (defaults: 2 h and 24 h). */
  lifetimes?: { idleMs: number; maxMs: number };
  now?: () => number;
}

/** The casino's balance answer → minor units of the session currency; a different currency is CURRENCY_MISMATCH. */
export function readCasinoBalance(response: Record<string, unknown> | null, currency: CurrencyCode): bigint {
  if (!response || response.currency !== currency) throw new AppError('CURRENCY_MISMATCH', 'the casino answered a balance in another currency');
  const b = response.balance;
  if (typeof b !== 'number' && !(b && typeof b === 'object' && 'isLosslessNumber' in b)) {
    throw new AppError('CASINO_HTTP_ERROR', 'the casino answered without a balance');
  }
  try {
    return parseMinorUnits(numberText(b as number | LosslessNumber), CURRENCY_DECIMALS[currency]);
  } catch {
    throw new AppError('CASINO_HTTP_ERROR', 'the casino answered a balance with more decimals than the currency has');
  }
}

/** A playerRef the service can store and log: 1 to 200 characters, no control characters. */
const PLAYER_REF = /^[^\p{Cc}]{1,200}$/u;

/** The wallet interface's `gameType` is a non-empty string: a lobby session (no single game) sends this. */
export const LOBBY_WALLET_GAME = 'lobby';

export function createSessionService(deps: SessionDeps) {
  const { db, box, operators, wallet } = deps;
  const lifetimes = deps.lifetimes ?? { idleMs: 2 * 3_600_000, maxMs: 24 * 3_600_000 };
  const now = deps.now ?? Date.now;
  // A short idle lifetime (tests) needs touches often enough that another pod never sees a live session as idle.
  const touchMs = Math.min(SESSION_TOUCH_MS, lifetimes.idleMs / 4);
  const held = memo<string, HeldSession>({ max: 50_000 });
  /** Sessions of rounds (retries, recovery): read once, whatever their lifetime. */
  const loaded = memo<string, SessionWithToken>({ max: 10_000 });

  const fromRow = (r: SessionRow): SessionWithToken => ({
    sessionId: r.session_id,
    operatorId: r.operator_id,
    playerRef: r.player_ref,
    displayName: r.display_name,
    currency: r.currency as CurrencyCode,
    gameType: r.game_type,
    launchMode: r.launch_mode,
    createdAt: toIso(r.created_at),
    jurisdiction: r.jurisdiction ?? null,
    launchToken: box.open(r.launch_token_enc),
  });

  async function fetchBalance(operator: OperatorWithSecret, playerRef: string, gameType: GameType | null, currency: CurrencyCode): Promise<bigint> {
    const outcome = await wallet.call(
      operator,
      '/wallet/balance',
      stringifyJson({ operatorId: operator.operatorId, playerRef, gameType: gameType ?? LOBBY_WALLET_GAME, currency }),
    );
    if (outcome.kind !== 'confirmed') throw outcomeError(outcome);
    const balance = readCasinoBalance(outcome.response, currency);
    await rememberBalance(db, { operatorId: operator.operatorId, playerRef, currency, balance });
    return balance;
  }

  return {
    async create(input: {
      operatorId: string;
      launchToken: string;
      gameType: GameType;
      launchMode: 'single' | 'lobby';
      switchFromSessionId?: string | undefined;
    }) {
      const operator = await operators.getWithSecret(db, input.operatorId);
      if (!operator || !operator.enabled) throw new AppError('INVALID_SESSION', 'unknown operator or launch token');
      if (input.switchFromSessionId !== undefined) await checkSwitchTenant(db, operators, input.switchFromSessionId, operator);
      const gameType = input.launchMode === 'lobby' ? null : input.gameType;
      if (gameType && !operator.enabledGames.includes(gameType)) throw new AppError('GAME_DISABLED', `${gameType} is disabled for this operator`);
      if (wallet.circuitOpen(operator.operatorId)) throw new AppError('CASINO_NETWORK_ERROR', 'the casino is unreachable right now; try again shortly');

      const validation = await wallet.call(
        operator,
        '/wallet/validate-session',
        stringifyJson({ operatorId: operator.operatorId, launchToken: input.launchToken, gameType: gameType ?? LOBBY_WALLET_GAME }),
      );
      if (validation.kind !== 'confirmed') {
        if (validation.kind === 'refused' && (validation.casinoCode === 'INVALID_SESSION' || validation.statusCode === 404)) {
          const casinoMessage = casinoMessageOf(validation);
          throw new AppError(
            'INVALID_SESSION',
            'the casino did not accept the launch token',
            casinoMessage !== null ? { casinoCode: validation.casinoCode ?? 'INVALID_SESSION', casinoMessage } : {},
          );
        }
        throw outcomeError(validation);
      }
      const v = validation.response ?? {};
      if (v.valid !== true || typeof v.playerRef !== 'string' || v.playerRef.length === 0) {
        throw new AppError('INVALID_SESSION', 'the casino did not accept the launch token');
      }
      if (!PLAYER_REF.test(v.playerRef)) throw new AppError('CASINO_HTTP_ERROR', 'the casino answered a playerRef that is not 1 to 200 printable characters');
      if (!isCurrencyCode(v.currency)) throw new AppError('UNSUPPORTED_CURRENCY', 'the casino validated the session in an unsupported currency');
      if (v.currency !== operator.currency)
        throw new AppError('CURRENCY_MISMATCH', `the session currency ${v.currency} is not this profile's ${operator.currency}`);
      const playerRef = v.playerRef;
      const currency = operator.currency;
      // An ISO 3166 code the casino names for the player (issue 27); anything else counts as none.
      const jurisdiction = readJurisdiction(v.jurisdiction);
      const balance = await fetchBalance(operator, playerRef, gameType, currency);

      const row = {
        session_id: newSessionId(),
        operator_id: operator.operatorId,
        player_ref: playerRef,
        display_name: typeof v.displayName === 'string' ? storableText(v.displayName, 200) : null,
        currency,
        game_type: gameType,
        launch_mode: input.launchMode,
        jurisdiction,
        launch_token_enc: box.seal(input.launchToken),
      };
      await db('sessions').insert(row);
      const pair = await currentSeedPair(db, operator.operatorId, playerRef);
      deps.retryPlayer?.(operator.operatorId, playerRef);
      return {
        sessionId: row.session_id,
        operatorId: operator.operatorId,
        playerRef,
        displayName: row.display_name,
        currency,
        balance: amountJson(balance, currency),
        gameType,
        launchMode: input.launchMode,
        fairness: { serverSeedHash: pair.serverSeedHash, clientSeed: pair.clientSeed, nonce: Number(pair.nextNonce) },
        rules: effectiveRules(operator.responsibleGaming, jurisdiction),
      };
    },

    /**
     * The session of a player-facing request, or INVALID_SESSION when it is unknown, ended by the
     * casino, idle for SESSION_IDLE_MINUTES or older than SESSION_MAX_HOURS. A pod keeps the
     * sessions it serves in memory and re-reads each at most every SESSION_RECHECK_MS (so an end
     * reaches every pod within 5 s, this one at once); `last_seen_at` is written at most once a
     * minute per session, never on every bet.
     */
    async get(q: Queryable, sessionId: string): Promise<SessionWithToken> {
      const t = now();
      let h = held.get(sessionId);
      if (!h || t - h.checkedAt >= SESSION_RECHECK_MS) {
        const row = await q<SessionRow>('sessions').where({ session_id: sessionId }).first();
        if (!row) throw new AppError('INVALID_SESSION', 'unknown session');
        const lastSeenDb = new Date(row.last_seen_at).getTime();
        h = {
          session: h?.session ?? fromRow(row),
          createdAt: new Date(row.created_at).getTime(),
          lastSeenDb,
          lastSeenHere: Math.max(h?.lastSeenHere ?? 0, lastSeenDb),
          checkedAt: t,
        };
        const end = sessionEnd({ createdAt: h.createdAt, lastSeen: h.lastSeenHere, ended: row.ended_at !== null }, t, lifetimes);
        if (end) {
          held.delete(sessionId);
          throw new AppError('INVALID_SESSION', END_MESSAGE[end]);
        }
        held.set(sessionId, h);
      } else {
        const end = sessionEnd({ createdAt: h.createdAt, lastSeen: h.lastSeenHere, ended: false }, t, lifetimes);
        if (end) {
          held.delete(sessionId);
          throw new AppError('INVALID_SESSION', END_MESSAGE[end]);
        }
      }
      h.lastSeenHere = t;
      if (t - h.lastSeenDb >= touchMs) {
        h.lastSeenDb = t;
        const touched = await q('sessions')
          .where({ session_id: sessionId })
          .whereNull('ended_at')
          .update({ last_seen_at: new Date(t) });
        if (touched === 0) {
          held.delete(sessionId);
          throw new AppError('INVALID_SESSION', END_MESSAGE.ended);
        }
      }
      return h.session;
    },

    /** The session a round was played in, whatever its lifetime (retries and recovery settle old rounds). */
    async load(q: Queryable, sessionId: string): Promise<SessionWithToken> {
      const known = held.get(sessionId)?.session ?? loaded.get(sessionId);
      if (known) return known;
      const row = await q<SessionRow>('sessions').where({ session_id: sessionId }).first();
      if (!row) throw new AppError('INVALID_SESSION', 'unknown session');
      const session = fromRow(row);
      loaded.set(sessionId, session);
      return session;
    },

    /**
     * Ends sessions at the casino's request (signed operator API): one session, or every open
     * session of a player of this operator. An ended session answers INVALID_SESSION from then on
     * (on every pod within SESSION_RECHECK_MS); the player's open round waits for a new session.
     */
    async end(input: {
      operatorId: string;
      playerRef?: string | undefined;
      sessionId?: string | undefined;
      reason?: string | undefined;
    }): Promise<{ ended: number }> {
      const q = db('sessions').where({ operator_id: input.operatorId }).whereNull('ended_at');
      if (input.playerRef !== undefined) void q.where({ player_ref: input.playerRef });
      if (input.sessionId !== undefined) void q.where({ session_id: input.sessionId });
      const ids: string[] = (
        await q.update({ ended_at: db.fn.now(), ended_reason: storableText(input.reason ?? 'ended by the casino', 200) }, ['session_id'])
      ).map((r: { session_id: string }) => r.session_id);
      for (const id of ids) held.delete(id);
      return { ended: ids.length };
    },

    async balance(sessionId: string) {
      const session = await this.get(db, sessionId);
      const operator = await operators.getWithSecret(db, session.operatorId);
      if (!operator) throw new AppError('INVALID_SESSION', 'unknown session');
      const balance = await fetchBalance(operator, session.playerRef, session.gameType, session.currency);
      return { balance: amountJson(balance, session.currency), currency: session.currency };
    },

    fetchBalance,
  };
}

export type SessionService = ReturnType<typeof createSessionService>;

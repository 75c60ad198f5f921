/**
 * Sessions (SPEC.md Session, CONTRACT.md §5): a launch token validated by the casino through
 * /wallet/validate-session, then the balance; the session is bound to the currency the casino
 * validated, which must be the operator's. Starting a session also starts the retries of the
 * player's pending credits and rollbacks (in the background).
 */
import { randomUUID } from 'node:crypto';
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
import { rememberBalance } from './player-balances.js';
import { outcomeError, type WalletClient } from '../wallet/wallet-client.js';
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
  launch_token_enc: string;
  created_at: Date | string;
}

export interface SessionDeps {
  db: Db;
  box: SecretBox;
  operators: OperatorStore;
  wallet: WalletClient;
  /** Retries of a player's pending money movements, started in the background. */
  retryPlayer?: (operatorId: string, playerRef: string) => void;
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
  const cache = memo<string, SessionWithToken>({ max: 50_000 });

  const fromRow = (r: SessionRow): SessionWithToken => ({
    sessionId: r.session_id,
    operatorId: r.operator_id,
    playerRef: r.player_ref,
    displayName: r.display_name,
    currency: r.currency as CurrencyCode,
    gameType: r.game_type,
    launchMode: r.launch_mode,
    createdAt: toIso(r.created_at),
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
    async create(input: { operatorId: string; launchToken: string; gameType: GameType; launchMode: 'single' | 'lobby'; switchFromSessionId?: string | undefined }) {
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
          throw new AppError('INVALID_SESSION', 'the casino did not accept the launch token');
        }
        throw outcomeError(validation);
      }
      const v = validation.response ?? {};
      if (v.valid !== true || typeof v.playerRef !== 'string' || v.playerRef.length === 0) {
        throw new AppError('INVALID_SESSION', 'the casino did not accept the launch token');
      }
      if (!PLAYER_REF.test(v.playerRef)) throw new AppError('CASINO_HTTP_ERROR', 'the casino answered a playerRef that is not 1 to 200 printable characters');
      if (!isCurrencyCode(v.currency)) throw new AppError('UNSUPPORTED_CURRENCY', 'the casino validated the session in an unsupported currency');
      if (v.currency !== operator.currency) throw new AppError('CURRENCY_MISMATCH', `the session currency ${v.currency} is not this profile's ${operator.currency}`);
      const playerRef = v.playerRef;
      const currency = operator.currency;
      const balance = await fetchBalance(operator, playerRef, gameType, currency);

      const row = {
        session_id: randomUUID(),
        operator_id: operator.operatorId,
        player_ref: playerRef,
        display_name: typeof v.displayName === 'string' ? storableText(v.displayName, 200) : null,
        currency,
        game_type: gameType,
        launch_mode: input.launchMode,
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
      };
    },

    /** The session of a player-facing request, or INVALID_SESSION. Sessions never change: they are kept in memory once read. */
    async get(q: Queryable, sessionId: string): Promise<SessionWithToken> {
      const known = cache.get(sessionId);
      if (known) return known;
      const row = await q<SessionRow>('sessions').where({ session_id: sessionId }).first();
      if (!row) throw new AppError('INVALID_SESSION', 'unknown session');
      const session = fromRow(row);
      cache.set(sessionId, session);
      return session;
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

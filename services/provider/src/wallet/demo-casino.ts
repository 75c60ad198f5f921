/**
 * The demo casino behind `sandbox://demo-casino`: an in-process wallet with the exact semantics
 * of SPEC.md's wallet interface (balances per player, idempotent debit/credit/rollback by
 * idempotency key, INSUFFICIENT_FUNDS, a late debit refused after its rollback), persisted in
 * the database so that it survives restarts and is shared by every pod. It answers through the
 * same WalletTransport interface as a real casino over HTTP. Being part of this process, it
 * trusts the signature headers instead of checking them.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { CURRENCY_DECIMALS, parseMinorUnits, type CurrencyCode, amountJson } from '@gp/game-core/money';
import { numberText, parseJson, stringifyJson, type LosslessNumber } from '../infra/json.js';
import { isUniqueViolation, toBigInt, type Db, type Queryable } from '../store/db.js';
import type { TransportRequest, TransportResponse, WalletTransport } from './wallet-client.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Starting balance of a new demo player: 1,000 units of the operator currency. */
export const DEMO_START_UNITS = 1000n;

interface PlayerRow {
  operator_id: string;
  player_ref: string;
  display_name: string;
  currency: string;
  balance: string;
}

const reply = (statusCode: number, body: unknown): TransportResponse => ({ statusCode, body: stringifyJson(body) });
const refuse = (statusCode: number, code: string) => reply(statusCode, { code });

export interface DemoCasino extends WalletTransport {
  /** Creates the player when missing (with the starting balance) and issues a launch token. */
  issueLaunchToken(operatorId: string, playerRef: string, currency: CurrencyCode): Promise<string>;
  balanceOf(operatorId: string, playerRef: string): Promise<bigint | null>;
}

export function createDemoCasino(db: Db): DemoCasino {
  async function player(q: Queryable, operatorId: string, playerRef: string, forUpdate = false): Promise<PlayerRow | undefined> {
    const query = q<PlayerRow>('demo_wallet_players').where({ operator_id: operatorId, player_ref: playerRef });
    return forUpdate ? query.forUpdate().first() : query.first();
  }

  const money = (p: PlayerRow, minor: bigint) => amountJson(minor, p.currency as CurrencyCode);

  async function moneyMove(op: 'debit' | 'credit' | 'rollback', operatorId: string, key: string, body: Record<string, unknown>): Promise<TransportResponse> {
    const requestHash = sha256(stringifyJson(body));
    const playerRef = String(body.playerRef ?? '');
    const replay = async (): Promise<TransportResponse | null> => {
      const prior = await db('demo_wallet_transactions').where({ operator_id: operatorId, idempotency_key: key }).first();
      if (!prior) return null;
      if (prior.request_hash !== requestHash) return refuse(409, 'IDEMPOTENCY_CONFLICT');
      return { statusCode: prior.status_code, body: stringifyJson(prior.response) };
    };
    const prior = await replay();
    if (prior) return prior;
    try {
      return await db.transaction(async (tx) => {
        const p = await player(tx, operatorId, playerRef, true);
        if (!p) return refuse(400, 'INVALID_SESSION');
        if (body.currency !== p.currency) return refuse(400, 'CURRENCY_MISMATCH');
        const decimals = CURRENCY_DECIMALS[p.currency as CurrencyCode];
        let amount: bigint;
        try {
          amount = parseMinorUnits(numberText(body.amount as number | LosslessNumber), decimals);
        } catch {
          return refuse(400, 'VALIDATION_ERROR');
        }
        if (amount < 0n) return refuse(400, 'VALIDATION_ERROR');
        let balance = toBigInt(p.balance);
        let status = 200;
        let response: Record<string, unknown>;
        let applied = amount;
        if (op === 'debit') {
          const rolledBack = await tx('demo_wallet_transactions')
            .where({ operator_id: operatorId, operation: 'rollback' })
            .whereRaw(`response->>'debitIdempotencyKey' = ?`, [key])
            .first();
          if (rolledBack) {
            status = 400;
            response = { code: 'DEBIT_ROLLED_BACK' };
          } else if (amount > balance) {
            status = 400;
            response = { code: 'INSUFFICIENT_FUNDS' };
          } else {
            balance -= amount;
            response = { casinoTransactionId: `demo-${randomUUID()}`, balance: money(p, balance), currency: p.currency };
          }
        } else if (op === 'credit') {
          balance += amount;
          response = { casinoTransactionId: `demo-${randomUUID()}`, balance: money(p, balance), currency: p.currency };
        } else {
          const debitKey = String(body.debitIdempotencyKey ?? '');
          const debit = await tx('demo_wallet_transactions')
            .where({ operator_id: operatorId, idempotency_key: debitKey, operation: 'debit', status_code: 200 })
            .first();
          applied = debit ? toBigInt(debit.amount) : 0n;
          balance += applied;
          response = { casinoTransactionId: `demo-${randomUUID()}`, balance: money(p, balance), currency: p.currency, debitIdempotencyKey: debitKey };
        }
        if (status === 200) await tx('demo_wallet_players').where({ operator_id: operatorId, player_ref: playerRef }).update({ balance: balance.toString() });
        await tx('demo_wallet_transactions').insert({
          operator_id: operatorId,
          idempotency_key: key,
          operation: op,
          request_hash: requestHash,
          player_ref: playerRef,
          round_id: typeof body.roundId === 'string' ? body.roundId : null,
          amount: (status === 200 ? applied : 0n).toString(),
          status_code: status,
          response: stringifyJson(response),
        });
        return reply(status, response);
      });
    } catch (err) {
      if (isUniqueViolation(err)) {
        const again = await replay();
        if (again) return again;
      }
      throw err;
    }
  }

  return {
    async send(req: TransportRequest): Promise<TransportResponse> {
      let body: Record<string, unknown>;
      try {
        body = parseJson(req.body) as Record<string, unknown>;
      } catch {
        return refuse(400, 'VALIDATION_ERROR');
      }
      const operatorId = req.operatorId;
      switch (req.path) {
        case '/wallet/validate-session': {
          const token = await db('demo_wallet_tokens')
            .where({ token_hash: sha256(String(body.launchToken ?? '')), operator_id: operatorId })
            .first();
          const p = token ? await player(db, operatorId, token.player_ref) : undefined;
          if (!p) return reply(200, { valid: false });
          return reply(200, { valid: true, playerRef: p.player_ref, displayName: p.display_name, currency: p.currency });
        }
        case '/wallet/balance': {
          const p = await player(db, operatorId, String(body.playerRef ?? ''));
          if (!p) return refuse(400, 'INVALID_SESSION');
          if (body.currency !== p.currency) return refuse(400, 'CURRENCY_MISMATCH');
          return reply(200, { balance: money(p, toBigInt(p.balance)), currency: p.currency });
        }
        case '/wallet/debit':
        case '/wallet/credit':
        case '/wallet/rollback': {
          const key = req.headers['x-idempotency-key'];
          if (!key) return refuse(400, 'IDEMPOTENCY_REQUIRED');
          return moneyMove(req.path.slice('/wallet/'.length) as 'debit' | 'credit' | 'rollback', operatorId, key, body);
        }
      }
    },

    async issueLaunchToken(operatorId, playerRef, currency) {
      const start = DEMO_START_UNITS * 10n ** BigInt(CURRENCY_DECIMALS[currency]);
      await db('demo_wallet_players')
        .insert({ operator_id: operatorId, player_ref: playerRef, display_name: playerRef, currency, balance: start.toString() })
        .onConflict(['operator_id', 'player_ref'])
        .ignore();
      const token = randomBytes(24).toString('base64url');
      await db('demo_wallet_tokens').insert({ token_hash: sha256(token), operator_id: operatorId, player_ref: playerRef });
      return token;
    },

    async balanceOf(operatorId, playerRef) {
      const p = await player(db, operatorId, playerRef);
      return p ? toBigInt(p.balance) : null;
    },
  };
}

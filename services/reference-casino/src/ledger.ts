/**
 * The casino's ledger: players, launch tokens, balances in BigInt minor units, and the five
 * wallet operations with their idempotency and rollback rules (SPEC.md "Wallet interface",
 * CONTRACT.md §3 and §11). No I/O: the HTTP server hands it parsed (lossless) bodies and sends
 * back the answers it returns. Every operation runs synchronously, so two requests with the
 * same key can never interleave.
 *
 * Idempotency (per operator and X-Idempotency-Key):
 * - The first request with a key that reaches a money decision stores its answer: the applied
 *   transaction, or the refusals INSUFFICIENT_FUNDS and DEBIT_ROLLED_BACK. A repeat with the same
 *   body replays that answer (same casinoTransactionId, same balance) without a new transaction.
 * - The same key with a different body (or on another path) is 409 IDEMPOTENCY_CONFLICT.
 * - Malformed requests (VALIDATION_ERROR), CURRENCY_MISMATCH and INVALID_SESSION are answered
 *   before the key is claimed: nothing is stored and the key stays free.
 *
 * Rollback (`debitIdempotencyKey` names the debit):
 * - debit applied, not yet rolled back → refund it (a rollback transaction of the debit amount);
 * - debit already rolled back (under another rollback key) → 200 with that rollback's
 *   casinoTransactionId and the current balance, no new transaction;
 * - debit never received → 200, a rollback transaction of amount 0, and the debit key is
 *   tombstoned: if the debit arrives late it is refused with 400 DEBIT_ROLLED_BACK;
 * - debit refused earlier (e.g. INSUFFICIENT_FUNDS) → 200, amount 0, the debit key keeps
 *   replaying its refusal.
 * A rollback must name the debit's playerRef, roundId and amount, else 400 VALIDATION_ERROR.
 *
 * Free-bet credits (the provider's extension, docs/free-bets.md): a credit with `freeBet: true`
 * and a `campaignId` is the payout of a bet the operator funded, so no debit belongs to it. The
 * casino checks that `freeBet` is exactly `true` with a non-empty `campaignId` (else
 * VALIDATION_ERROR), that it holds no debit of that round (a free bet has no stake: else
 * VALIDATION_ERROR), and, once it has registered campaigns for the operator
 * (`addFreeBetCampaign`), that the campaign is one of them (else FREE_BET_CAMPAIGN_UNKNOWN). The
 * credit is ledgered with `freeBet` and `campaignId`; idempotency is that of any credit.
 *
 * Promo credits (issue 30, docs/promotions.md): a credit with `promo: true` is a promotion's prize
 * (a tournament rank or a prize drop's prize): no round, no debit, no launch token. The casino
 * checks `promoId` (non-empty), `promoType` (`tournament` or `prize_drop`), `prize` (an integer
 * ≥ 0) and a positive amount (else VALIDATION_ERROR), and ledgers it with these fields (roundId
 * empty; `sourceRoundId`, a drop's winning bet, when sent). Idempotency is that of any credit: the
 * key `<promoId>:prize:<n>` repeated replays the first answer, never a second transaction.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { LosslessNumber, isLosslessNumber } from 'lossless-json';
import type { Misbehaviours } from './misbehaviours.js';

export interface OperatorConfig {
  secret: string;
  currency: string;
  decimals: number;
}
export interface Operator extends OperatorConfig {
  operatorId: string;
}

/** What the HTTP layer sends back: a status and a JSON body (amounts as LosslessNumber). */
export interface WalletAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** A refusal thrown before any state changes; never stored for an idempotency key. */
export class WalletError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type TransactionType = 'debit' | 'credit' | 'rollback';

export interface Transaction {
  casinoTransactionId: string;
  type: TransactionType;
  operatorId: string;
  playerRef: string;
  roundId: string;
  gameType: string;
  idempotencyKey: string;
  /** Rollbacks only: the key of the debit they undo. */
  debitIdempotencyKey?: string;
  /** Minor units moved: positive, or 0 for a zero credit / a rollback with nothing to undo. */
  amount: bigint;
  currency: string;
  balanceAfter: bigint;
  /** ISO 8601 UTC. */
  time: string;
  /** Credits of free bets (docs/free-bets.md): no debit belongs to the round; the operator funds the payout. */
  freeBet?: true;
  campaignId?: string;
  /** Promo credits (docs/promotions.md): a promotion's prize, no round and no debit. */
  promo?: true;
  promoId?: string;
  promoType?: 'tournament' | 'prize_drop';
  prize?: number;
}

export interface CreatePlayerInput {
  playerRef: string;
  displayName?: string;
  /** Decimal text in major units ("100.50") or minor units as a bigint. */
  balance: string | bigint;
  currency: string;
  /** The player's jurisdiction and refusals (issue 27). */
  responsibleGaming?: ResponsibleGamingSettings;
}

/** Operations a casino may refuse for responsible-gaming reasons (issue 27). */
export const REFUSABLE_OPERATIONS = ['validate-session', 'balance', 'debit'] as const;
export type RefusableOperation = (typeof REFUSABLE_OPERATIONS)[number];

/** A refusal of the casino's own (a loss limit, a time-out, self-exclusion): 4xx `{code, message}`. */
export interface CasinoRefusal {
  /** 400 unless given (any 4xx but 409). */
  status?: number;
  code: string;
  /** The words the player should read; the provider passes them on as `casinoMessage`. */
  message: string;
}

/**
 * Responsible-gaming settings of a player or of one launch token (a token's win over its player's):
 * the `jurisdiction` validate-session reports, and refusals per operation.
 */
export interface ResponsibleGamingSettings {
  /** ISO 3166 code sent as validate-session's `jurisdiction` (`GB`, `CA-ON`); null or absent: none. */
  jurisdiction?: string | null;
  /** Each operation named is refused with its `{code, message}` until cleared (null clears them all). */
  refusals?: Partial<Record<RefusableOperation, CasinoRefusal | null>> | null;
}

/** Checks settings from the control API; throws a readable Error. */
export function validateResponsibleGaming(v: unknown): ResponsibleGamingSettings {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('responsible-gaming settings must be an object');
  const o = v as Record<string, unknown>;
  const out: ResponsibleGamingSettings = {};
  if (o['jurisdiction'] !== undefined) {
    if (o['jurisdiction'] !== null && (typeof o['jurisdiction'] !== 'string' || o['jurisdiction'].length > 16))
      throw new Error('jurisdiction must be a string (an ISO 3166 code such as GB or CA-ON) or null');
    out.jurisdiction = o['jurisdiction'] as string | null;
  }
  if (o['refusals'] !== undefined) {
    if (o['refusals'] === null) out.refusals = null;
    else {
      if (typeof o['refusals'] !== 'object' || Array.isArray(o['refusals'])) throw new Error('refusals must be an object keyed by operation');
      const refusals: Partial<Record<RefusableOperation, CasinoRefusal | null>> = {};
      for (const [op, r] of Object.entries(o['refusals'] as Record<string, unknown>)) {
        if (!(REFUSABLE_OPERATIONS as readonly string[]).includes(op)) throw new Error(`refusals: ${op} is not one of ${REFUSABLE_OPERATIONS.join(', ')}`);
        if (r === null) {
          refusals[op as RefusableOperation] = null;
          continue;
        }
        const x = r as Record<string, unknown>;
        if (typeof x !== 'object' || typeof x['code'] !== 'string' || x['code'] === '' || typeof x['message'] !== 'string')
          throw new Error(`refusals.${op} must be {code, message, status?}`);
        const status = x['status'] === undefined ? 400 : x['status'];
        if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 499 || status === 409)
          throw new Error(`refusals.${op}.status must be a 4xx other than 409`);
        refusals[op as RefusableOperation] = { status, code: x['code'], message: x['message'] };
      }
      out.refusals = refusals;
    }
  }
  return out;
}

/** `next` applied over `current` (a refusal set to null is removed; `refusals: null` removes all). */
function mergeSettings(current: ResponsibleGamingSettings, next: ResponsibleGamingSettings): ResponsibleGamingSettings {
  const out: ResponsibleGamingSettings = { ...current };
  if (next.jurisdiction !== undefined) out.jurisdiction = next.jurisdiction;
  if (next.refusals === null) delete out.refusals;
  else if (next.refusals !== undefined) {
    const merged = { ...(current.refusals ?? {}) };
    for (const [op, r] of Object.entries(next.refusals)) {
      if (r === null) delete merged[op as RefusableOperation];
      else merged[op as RefusableOperation] = r;
    }
    out.refusals = merged;
  }
  return out;
}

export interface LaunchTokenOptions {
  /** The currency validate-session reports for this token (any string, to provoke CURRENCY_MISMATCH / UNSUPPORTED_CURRENCY). */
  currency?: string;
  /** Only this operator may validate the token (others get `{"valid": false}`). */
  operatorId?: string;
  /** This token's jurisdiction and refusals (issue 27), over the player's. */
  responsibleGaming?: ResponsibleGamingSettings;
}

/** SPEC.md's precision table; an operator's own `decimals` wins for its currency. */
export const SPEC_DECIMALS: Readonly<Record<string, number>> = {
  USD: 2,
  EUR: 2,
  GBP: 2,
  USDT: 2,
  USDC: 2,
  uBTC: 2,
  BTC: 8,
  LTC: 8,
  DOGE: 8,
  BNB: 8,
  SOL: 8,
  ZEC: 8,
  ETH: 6,
  XRP: 6,
  ADA: 6,
  TRX: 6,
  XLM: 7,
};

// ---------------------------------------------------------------- money

const NUMBER_TEXT = /^(-)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** Exact decimal text ("1e-8", "10.50") → minor units; throws VALIDATION_ERROR on too many decimals. */
export function parseMinor(text: string, decimals: number): bigint {
  const m = NUMBER_TEXT.exec(text);
  const exponent = Number(m?.[4] ?? 0);
  if (!m || Math.abs(exponent) > 100) throw invalid(`not a decimal number: ${text}`);
  const fraction = m[3] ?? '';
  let digits = `${m[2]}${fraction}`.replace(/^0+(?=\d)/, '');
  let scale = fraction.length - exponent;
  while (scale > 0 && digits.length > 1 && digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    scale -= 1;
  }
  if (/^0+$/.test(digits)) return 0n;
  if (scale > decimals) throw invalid(`${text} has more than ${decimals} decimals`);
  const minor = BigInt(digits) * 10n ** BigInt(decimals - scale);
  return m[1] ? -minor : minor;
}

/** Minor units → shortest exact decimal text ("12.5", "0.00000001"). */
export function formatMinor(minor: bigint, decimals: number): string {
  const sign = minor < 0n ? '-' : '';
  const abs = minor < 0n ? -minor : minor;
  const base = 10n ** BigInt(decimals);
  const fraction = (abs % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${sign}${abs / base}${fraction ? `.${fraction}` : ''}`;
}

/** Minor units → an exact JSON number for lossless-json's stringify. */
export function jsonAmount(minor: bigint, decimals: number): LosslessNumber {
  return new LosslessNumber(formatMinor(minor, decimals));
}

function invalid(message: string): WalletError {
  return new WalletError(400, 'VALIDATION_ERROR', message);
}

// ---------------------------------------------------------------- request fields

type Body = Record<string, unknown>;

function readFields(body: unknown, op: Operator, bugs: Misbehaviours = {}) {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('body must be a JSON object');
  const b = body as Body;
  const text = (name: string): string => {
    const value = b[name];
    if (typeof value !== 'string' || value === '') throw invalid(`${name} must be a non-empty string`);
    return value;
  };
  if (text('operatorId') !== op.operatorId) throw invalid('operatorId does not match X-Operator-Id');
  return {
    text,
    /** A JSON number (never a string) with at most the operator's decimals. */
    amount(name: string, allowZero: boolean): bigint {
      const value = b[name];
      if (!isLosslessNumber(value)) throw invalid(`${name} must be a JSON number`);
      // misbehaviour accept-over-precise: read 18 more decimals, then cut them off
      const minor = bugs['accept-over-precise'] ? parseMinor(value.value, op.decimals + 18) / 10n ** 18n : parseMinor(value.value, op.decimals);
      if (bugs['accept-negative-amount'] && minor < 0n) return minor;
      if (minor < 0n || (minor === 0n && !allowZero)) throw invalid(`${name} must be ${allowZero ? 'zero or more' : 'positive'}`);
      return minor;
    },
    currency(): string {
      const currency = text('currency');
      if (currency !== op.currency) throw new WalletError(400, 'CURRENCY_MISMATCH', `operator ${op.operatorId} plays ${op.currency}, not ${currency}`);
      return currency;
    },
  };
}

// ---------------------------------------------------------------- the ledger

interface Player {
  playerRef: string;
  displayName: string;
  wallets: Map<string, bigint>; // currency → minor units
  responsibleGaming: ResponsibleGamingSettings;
}
interface LaunchToken extends LaunchTokenOptions {
  playerRef: string;
  revoked: boolean;
}
interface KeyRecord {
  fingerprint: string;
  answer: WalletAnswer;
}
interface DebitRecord {
  debit: Transaction;
  rollback?: Transaction;
}

export interface LedgerOptions {
  decimalsOf: (currency: string) => number;
  now: () => number;
  /** The misbehaviours switched on now (misbehaviours.ts); none by default. */
  misbehaviours?: () => Misbehaviours;
}

/** Per request: `skipKeyLookup` applies the request as if its key were new (misbehaviour racy-idempotency). */
export interface OperationOptions {
  skipKeyLookup?: boolean;
}

export function createLedger({ decimalsOf, now, misbehaviours = () => ({}) }: LedgerOptions) {
  const players = new Map<string, Player>();
  const tokens = new Map<string, LaunchToken>();
  const keys = new Map<string, KeyRecord>(); // `${operatorId}\0${key}`
  const debits = new Map<string, DebitRecord>(); // same scoping, applied debits only
  const tombstones = new Set<string>(); // debit keys rolled back before the debit arrived
  const campaigns = new Map<string, Set<string>>(); // operatorId → free-bet campaigns the casino knows
  const ledger: Transaction[] = [];

  const scoped = (op: Operator, key: string) => `${op.operatorId}\0${key}`;

  function player(playerRef: string): Player {
    const found = players.get(playerRef);
    if (!found) throw new WalletError(400, 'INVALID_SESSION', `unknown player ${playerRef}`);
    return found;
  }

  function walletBalance(p: Player, currency: string): bigint {
    const balance = p.wallets.get(currency);
    if (balance === undefined) throw new WalletError(400, 'CURRENCY_MISMATCH', `player ${p.playerRef} has no ${currency} wallet`);
    return balance;
  }

  /** Runs `decide` once per key; replays its stored answer for the same body, 409 for another. */
  function once(
    op: Operator,
    key: string,
    fingerprint: string,
    decide: () => WalletAnswer,
    o: OperationOptions & { rerunOnRepeat?: boolean } = {},
  ): WalletAnswer {
    const record = o.skipKeyLookup ? undefined : keys.get(scoped(op, key));
    if (record) {
      if (record.fingerprint === fingerprint) {
        if (!o.rerunOnRepeat) return record.answer;
      } else if (!misbehaviours()['ignore-idempotency-conflict']) {
        return refusal(409, 'IDEMPOTENCY_CONFLICT', `X-Idempotency-Key ${key} was used with another request`);
      } else {
        return record.answer;
      }
    }
    const answer = decide(); // a WalletError thrown here leaves the key unclaimed
    keys.set(scoped(op, key), { fingerprint, answer });
    return answer;
  }

  /** The configured refusal of `operation` for this player (its token's first), or null. */
  function refusalOf(operation: RefusableOperation, p: Player, token?: LaunchToken): WalletAnswer | null {
    const r = token?.responsibleGaming?.refusals?.[operation] ?? p.responsibleGaming.refusals?.[operation];
    return r ? refusal(r.status ?? 400, r.code, r.message) : null;
  }

  function refusal(status: number, code: string, message: string): WalletAnswer {
    return { status, body: { code, message } };
  }

  function book(
    op: Operator,
    type: TransactionType,
    key: string,
    p: Player,
    req: { roundId: string; gameType: string; currency: string },
    amount: bigint,
    debitIdempotencyKey?: string,
  ): Transaction {
    const delta = type === 'debit' ? -amount : amount;
    const balanceAfter = walletBalance(p, req.currency) + delta;
    p.wallets.set(req.currency, balanceAfter);
    const tx: Transaction = {
      casinoTransactionId: randomUUID(),
      type,
      operatorId: op.operatorId,
      playerRef: p.playerRef,
      roundId: req.roundId,
      gameType: req.gameType,
      idempotencyKey: key,
      ...(debitIdempotencyKey !== undefined ? { debitIdempotencyKey } : {}),
      amount,
      currency: req.currency,
      balanceAfter,
      time: new Date(now()).toISOString(),
    };
    ledger.push(tx);
    return tx;
  }

  /** The free-bet fields of a credit, checked (see the header); null for a paid credit. */
  function freeBetOf(op: Operator, body: Body, roundId: string): { campaignId: string } | null {
    if (body['freeBet'] === undefined && body['campaignId'] === undefined) return null;
    const campaignId = body['campaignId'];
    if (body['freeBet'] !== true || typeof campaignId !== 'string' || campaignId === '')
      throw invalid('a free-bet credit carries freeBet: true and a campaignId');
    for (const record of debits.values()) {
      if (record.debit.operatorId === op.operatorId && record.debit.roundId === roundId) throw invalid('a free-bet credit belongs to a round without a debit');
    }
    const known = campaigns.get(op.operatorId);
    if (known && !known.has(campaignId)) throw new WalletError(400, 'FREE_BET_CAMPAIGN_UNKNOWN', `no free-bet campaign ${campaignId} at this casino`);
    return { campaignId };
  }

  /** A promotion's prize (see the header): no round, no debit, no launch token. */
  function promoCredit(op: Operator, key: string, body: Body, f: ReturnType<typeof readFields>, o: OperationOptions): WalletAnswer {
    const promoId = body['promoId'];
    const promoType = body['promoType'];
    const prizeRaw = body['prize'];
    const prize = isLosslessNumber(prizeRaw) ? Number(prizeRaw.toString()) : prizeRaw;
    if (body['promo'] !== true || typeof promoId !== 'string' || promoId === '') throw invalid('a promo credit carries promo: true and a promoId');
    if (promoType !== 'tournament' && promoType !== 'prize_drop') throw invalid('promoType must be tournament or prize_drop');
    if (typeof prize !== 'number' || !Number.isInteger(prize) || prize < 0) throw invalid('prize must be an integer (a rank or a prize index)');
    const source = typeof body['sourceRoundId'] === 'string' ? body['sourceRoundId'] : '';
    const req = { playerRef: f.text('playerRef'), amount: f.amount('amount', false), currency: f.currency(), roundId: source, gameType: '' };
    const fingerprint = ['promo-credit', req.playerRef, `${req.amount}`, req.currency, promoId, promoType, String(prize), source];
    return once(
      op,
      key,
      JSON.stringify(fingerprint),
      () => {
        const tx = book(op, 'credit', key, player(req.playerRef), req, req.amount);
        Object.assign(tx, { promo: true, promoId, promoType, prize });
        return applied(op, tx.casinoTransactionId, tx.balanceAfter);
      },
      o,
    );
  }

  function applied(op: Operator, casinoTransactionId: string, balance: bigint): WalletAnswer {
    return { status: 200, body: { casinoTransactionId, balance: jsonAmount(balance, op.decimals), currency: op.currency } };
  }

  return {
    // ------------------------------------------------ players and launch tokens

    createPlayer(input: CreatePlayerInput): { playerRef: string; displayName: string; currency: string; balance: bigint } {
      if (!input.playerRef) throw new Error('playerRef is required');
      const balance = typeof input.balance === 'bigint' ? input.balance : parseMinor(input.balance, decimalsOf(input.currency));
      if (balance < 0n) throw new Error('balance must not be negative');
      const p = players.get(input.playerRef) ?? { playerRef: input.playerRef, displayName: input.playerRef, wallets: new Map(), responsibleGaming: {} };
      if (input.displayName !== undefined) p.displayName = input.displayName;
      if (input.responsibleGaming !== undefined) p.responsibleGaming = mergeSettings(p.responsibleGaming, input.responsibleGaming);
      p.wallets.set(input.currency, balance);
      players.set(p.playerRef, p);
      return { playerRef: p.playerRef, displayName: p.displayName, currency: input.currency, balance };
    },

    issueLaunchToken(playerRef: string, options: LaunchTokenOptions = {}): string {
      if (!players.has(playerRef)) throw new Error(`unknown player ${playerRef}`);
      const token = `lt_${randomBytes(24).toString('base64url')}`;
      tokens.set(token, { playerRef, revoked: false, ...options });
      return token;
    },

    /** Makes validate-session report `currency` for this token (undefined: back to the default). */
    setTokenCurrency(token: string, currency: string | undefined): void {
      const t = tokens.get(token);
      if (!t) throw new Error('unknown launch token');
      if (currency === undefined) delete t.currency;
      else t.currency = currency;
    },

    /** validate-session answers `{"valid": false}` from now on; debits with it are INVALID_SESSION. */
    revokeLaunchToken(token: string): void {
      const t = tokens.get(token);
      if (t) t.revoked = true;
    },

    /** Changes a player's (or, with `launchToken`, one token's) jurisdiction and refusals (issue 27). */
    setResponsibleGaming(target: { playerRef: string } | { launchToken: string }, settings: ResponsibleGamingSettings): ResponsibleGamingSettings {
      if ('launchToken' in target) {
        const t = tokens.get(target.launchToken);
        if (!t) throw new Error('unknown launch token');
        t.responsibleGaming = mergeSettings(t.responsibleGaming ?? {}, settings);
        return t.responsibleGaming;
      }
      const p = players.get(target.playerRef);
      if (!p) throw new Error(`unknown player ${target.playerRef}`);
      p.responsibleGaming = mergeSettings(p.responsibleGaming, settings);
      return p.responsibleGaming;
    },

    /** Registers a free-bet campaign of the operator: from then on, free-bet credits must name a registered campaign. */
    addFreeBetCampaign(operatorId: string, campaignId: string): void {
      const set = campaigns.get(operatorId) ?? new Set<string>();
      set.add(campaignId);
      campaigns.set(operatorId, set);
    },

    // ------------------------------------------------ the wallet interface

    validateSession(op: Operator, body: unknown): WalletAnswer {
      const f = readFields(body, op);
      const token = tokens.get(f.text('launchToken'));
      f.text('gameType');
      const p = token && !token.revoked && (token.operatorId ?? op.operatorId) === op.operatorId ? players.get(token.playerRef) : undefined;
      if (!token || !p) return { status: 200, body: { valid: false } };
      const refused = refusalOf('validate-session', p, token);
      if (refused) return refused;
      // default: the operator's currency when the player holds it, else the player's first wallet
      const currency = token.currency ?? (p.wallets.has(op.currency) ? op.currency : p.wallets.keys().next().value);
      const jurisdiction = token.responsibleGaming?.jurisdiction !== undefined ? token.responsibleGaming.jurisdiction : p.responsibleGaming.jurisdiction;
      return { status: 200, body: { valid: true, playerRef: p.playerRef, displayName: p.displayName, currency, ...(jurisdiction ? { jurisdiction } : {}) } };
    },

    balance(op: Operator, body: unknown): WalletAnswer {
      const f = readFields(body, op);
      const p = player(f.text('playerRef'));
      f.text('gameType');
      const currency = f.currency();
      const refused = refusalOf('balance', p);
      if (refused) return refused;
      return { status: 200, body: { balance: jsonAmount(walletBalance(p, currency), op.decimals), currency } };
    },

    debit(op: Operator, key: string, body: unknown, o: OperationOptions = {}): WalletAnswer {
      const bugs = misbehaviours();
      const f = readFields(body, op, bugs);
      const req = {
        playerRef: f.text('playerRef'),
        launchToken: f.text('launchToken'),
        gameType: f.text('gameType'),
        roundId: f.text('roundId'),
        amount: f.amount('amount', false),
        currency: f.currency(),
      };
      return once(
        op,
        key,
        JSON.stringify(['debit', req.playerRef, req.launchToken, req.gameType, req.roundId, `${req.amount}`, req.currency]),
        () => {
          const p = player(req.playerRef);
          const token = tokens.get(req.launchToken);
          if (!token || token.revoked || token.playerRef !== p.playerRef)
            throw new WalletError(400, 'INVALID_SESSION', 'launch token is not valid for this player');
          const refused = refusalOf('debit', p, token);
          if (refused) return refused;
          if (tombstones.has(scoped(op, key)) && !bugs['accept-late-debit'])
            return refusal(400, 'DEBIT_ROLLED_BACK', 'this debit was rolled back before it arrived');
          if (walletBalance(p, req.currency) < req.amount) return refusal(400, 'INSUFFICIENT_FUNDS', 'balance cannot cover the debit');
          const tx = book(op, 'debit', key, p, req, req.amount);
          debits.set(scoped(op, key), { debit: tx });
          return applied(op, tx.casinoTransactionId, tx.balanceAfter);
        },
        o,
      );
    },

    credit(op: Operator, key: string, body: unknown, o: OperationOptions = {}): WalletAnswer {
      const bugs = misbehaviours();
      const f = readFields(body, op, bugs);
      if ((body as Body)['promo'] !== undefined) return promoCredit(op, key, body as Body, f, o);
      // The launch token is part of the request but not checked: a credit settles a result
      // that is already final and must land even after the session has ended.
      const req = {
        playerRef: f.text('playerRef'),
        launchToken: f.text('launchToken'),
        gameType: f.text('gameType'),
        roundId: f.text('roundId'),
        amount: f.amount('amount', true),
        currency: f.currency(),
      };
      if (bugs['refuse-zero-credit'] && req.amount === 0n) throw invalid('amount must be positive');
      const free = freeBetOf(op, body as Body, req.roundId);
      const fingerprint = [
        'credit',
        req.playerRef,
        req.launchToken,
        req.gameType,
        req.roundId,
        `${req.amount}`,
        req.currency,
        ...(free ? ['freeBet', free.campaignId] : []),
      ];
      return once(
        op,
        key,
        JSON.stringify(fingerprint),
        () => {
          const tx = book(op, 'credit', key, player(req.playerRef), req, req.amount);
          if (free) {
            tx.freeBet = true;
            tx.campaignId = free.campaignId;
          }
          return applied(op, tx.casinoTransactionId, tx.balanceAfter);
        },
        { ...o, rerunOnRepeat: bugs['credit-twice-on-repeat'] === true },
      );
    },

    rollback(op: Operator, key: string, body: unknown, o: OperationOptions = {}): WalletAnswer {
      const bugs = misbehaviours();
      const f = readFields(body, op, bugs);
      const reason = (body as Body)['reason'];
      if (typeof reason !== 'string') throw invalid('reason must be a string');
      const req = {
        playerRef: f.text('playerRef'),
        gameType: f.text('gameType'),
        roundId: f.text('roundId'),
        debitIdempotencyKey: f.text('debitIdempotencyKey'),
        amount: f.amount('amount', true),
        currency: f.currency(),
      };
      return once(
        op,
        key,
        JSON.stringify(['rollback', req.playerRef, req.gameType, req.roundId, req.debitIdempotencyKey, `${req.amount}`, req.currency, reason]),
        () => {
          const p = player(req.playerRef);
          const debitKey = scoped(op, req.debitIdempotencyKey);
          const record = debits.get(debitKey);
          if (!record) {
            if (bugs['refuse-unknown-rollback']) throw new WalletError(400, 'DEBIT_NOT_FOUND', 'no such debit');
            // never received (or refused): nothing to undo; a late arrival of a never-seen debit is refused
            if (!keys.has(debitKey)) tombstones.add(debitKey);
            const tx = book(op, 'rollback', key, p, req, 0n, req.debitIdempotencyKey);
            return applied(op, tx.casinoTransactionId, tx.balanceAfter);
          }
          const { debit } = record;
          if (debit.playerRef !== req.playerRef || debit.roundId !== req.roundId || debit.amount !== req.amount) {
            throw invalid('playerRef, roundId and amount must match the debit being rolled back');
          }
          if (record.rollback) return applied(op, record.rollback.casinoTransactionId, walletBalance(p, req.currency));
          record.rollback = book(op, 'rollback', key, p, req, bugs['ignore-rollbacks'] ? 0n : debit.amount, req.debitIdempotencyKey);
          return applied(op, record.rollback.casinoTransactionId, record.rollback.balanceAfter);
        },
        o,
      );
    },

    /** Whether a money request with this key was already decided (misbehaviour racy-idempotency). */
    knowsKey(op: Operator, key: string): boolean {
      return keys.has(scoped(op, key));
    },

    // ------------------------------------------------ inspection

    /** Every applied transaction, oldest first. */
    transactions(): Transaction[] {
      return ledger.map((tx) => ({ ...tx }));
    },

    /** Minor units; `currency` defaults to the player's first wallet. Throws for an unknown player. */
    balanceOf(playerRef: string, currency?: string): bigint {
      const p = players.get(playerRef);
      if (!p) throw new Error(`unknown player ${playerRef}`);
      const c = currency ?? p.wallets.keys().next().value;
      const balance = c === undefined ? undefined : p.wallets.get(c);
      if (balance === undefined) throw new Error(`player ${playerRef} has no ${currency ?? ''} wallet`);
      return balance;
    },

    /** The player's wallets: currency → minor units. */
    walletsOf(playerRef: string): Map<string, bigint> {
      return new Map(players.get(playerRef)?.wallets ?? []);
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;

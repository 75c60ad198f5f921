/** Data access for the operators table. Secrets are sealed on the way in and opened on request. */
import { CURRENCY_DECIMALS, type CurrencyCode } from '@gp/game-core/money';
import { AppError } from '../errors.js';
import { memo } from '../infra/memo.js';
import type { SecretBox } from '../infra/secret-box.js';
import { toBigInt, toIso, toNullableBigInt, type Queryable } from '../store/db.js';
import type { GameType } from '@gp/game-core/games';
import { responsibleGamingSchema, type ResponsibleGaming } from './responsible-gaming.js';
import { DEFAULT_ABANDONED_ROUND_POLICY, type AbandonedRoundPolicy, type Operator, type OperatorWithSecret } from './operator-schema.js';

interface OperatorRow {
  operator_id: string;
  tenant_id: string | null;
  currency: string;
  callback_base_url: string;
  secret_enc: string;
  min_bet: string;
  max_bet: string | null;
  stake_step: string;
  max_payout: string;
  enabled_games: GameType[];
  theme: { showBalanceInEmbed?: boolean; autobetStopOnHidden?: boolean };
  allowed_embed_origins: string[];
  abandoned_round_policy: Partial<AbandonedRoundPolicy>;
  responsible_gaming?: unknown;
  enabled: boolean;
  created_at: Date | string;
  updated_at: Date | string;
  previous_secret_enc?: string | null;
  previous_secret_until?: Date | string | null;
  secret_rotated_at?: Date | string | null;
}

/** The stored rules, read with today's field rules (a field added later takes its default); null when none. */
function storedRules(v: unknown): ResponsibleGaming | null {
  if (v === null || v === undefined) return null;
  const parsed = responsibleGamingSchema.safeParse(typeof v === 'string' ? JSON.parse(v) : v);
  return parsed.success ? parsed.data : null;
}

function fromRow(row: OperatorRow): Operator {
  const currency = row.currency as CurrencyCode;
  return {
    operatorId: row.operator_id,
    tenantId: row.tenant_id,
    currency,
    decimals: CURRENCY_DECIMALS[currency],
    callbackBaseUrl: row.callback_base_url,
    minBet: toBigInt(row.min_bet),
    maxBet: toNullableBigInt(row.max_bet),
    stakeStep: toBigInt(row.stake_step),
    maxPayout: toBigInt(row.max_payout),
    enabledGames: row.enabled_games,
    theme: { showBalanceInEmbed: row.theme.showBalanceInEmbed !== false, autobetStopOnHidden: row.theme.autobetStopOnHidden === true },
    allowedEmbedOrigins: row.allowed_embed_origins,
    abandonedRoundPolicy: { ...DEFAULT_ABANDONED_ROUND_POLICY, ...row.abandoned_round_policy },
    responsibleGaming: storedRules(row.responsible_gaming),
    enabled: row.enabled,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    secretRotatedAt: row.secret_rotated_at ? toIso(row.secret_rotated_at) : null,
    previousSecretValidUntil: row.previous_secret_enc && row.previous_secret_until ? toIso(row.previous_secret_until) : null,
  };
}

/** What a create or an update writes: the profile's fields (operator-schema.ts's Operator) and the secret. */
export type OperatorWrite = Omit<Operator, 'decimals' | 'createdAt' | 'updatedAt' | 'secretRotatedAt' | 'previousSecretValidUntil'> & { sharedSecret: string };

/**
 * The operator store. Profiles are read on every bet, so each is kept in memory for
 * `cacheMs` (default 1 s): a change made on this pod applies at once, one made on another pod
 * within that time (DECISIONS.md). The secret stays sealed in the database.
 */
export function createOperatorStore(box: SecretBox, opts: { cacheMs?: number } = {}) {
  const cache = memo<string, OperatorWithSecret | null>({ max: 10_000, ttlMs: opts.cacheMs ?? 1000 });
  /**
   * The read in flight of each profile: the requests that find its cache entry expired together
   * (every bet in flight, once a second under load) wait for one read instead of each making its
   * own (issue 25: 0.2 reads per bet → about one a second). A change on this pod (`forget`) drops
   * it, so a read that began before the change neither answers the requests after it nor is kept.
   */
  const loading = new Map<string, Promise<OperatorWithSecret | null>>();
  const read = async (db: Queryable, operatorId: string): Promise<OperatorWithSecret | null> => {
    const row = await db<OperatorRow>('operators').where({ operator_id: operatorId }).first();
    return row
      ? {
          ...fromRow(row),
          sharedSecret: box.open(row.secret_enc),
          previousSharedSecret: row.previous_secret_enc && row.previous_secret_until ? box.open(row.previous_secret_enc) : null,
        }
      : null;
  };
  const load = async (db: Queryable, operatorId: string): Promise<OperatorWithSecret | null> => {
    const known = cache.get(operatorId);
    if (known !== undefined) return known;
    // inside a transaction: its own read (it may see its own uncommitted change)
    if ((db as { isTransaction?: boolean }).isTransaction) {
      const op = await read(db, operatorId);
      cache.set(operatorId, op);
      return op;
    }
    let pending = loading.get(operatorId);
    if (!pending) {
      const started = read(db, operatorId);
      pending = started;
      loading.set(operatorId, started);
      const settled = () => {
        if (loading.get(operatorId) === started) loading.delete(operatorId);
      };
      started.then((op) => {
        if (loading.get(operatorId) === started) cache.set(operatorId, op);
        settled();
      }, settled);
    }
    return pending;
  };
  const forget = (operatorId: string) => {
    cache.delete(operatorId);
    loading.delete(operatorId);
  };
  const withoutSecret = (op: OperatorWithSecret | null): Operator | null => {
    if (!op) return null;
    const { sharedSecret: _secret, previousSharedSecret: _previous, ...rest } = op;
    return rest;
  };

  const toRow = (op: OperatorWrite) => ({
    operator_id: op.operatorId,
    tenant_id: op.tenantId,
    currency: op.currency,
    callback_base_url: op.callbackBaseUrl,
    secret_enc: box.seal(op.sharedSecret),
    min_bet: op.minBet.toString(),
    max_bet: op.maxBet === null ? null : op.maxBet.toString(),
    stake_step: op.stakeStep.toString(),
    max_payout: op.maxPayout.toString(),
    enabled_games: JSON.stringify(op.enabledGames),
    theme: JSON.stringify(op.theme),
    allowed_embed_origins: JSON.stringify(op.allowedEmbedOrigins),
    abandoned_round_policy: JSON.stringify(op.abandonedRoundPolicy),
    responsible_gaming: op.responsibleGaming === null ? null : JSON.stringify(op.responsibleGaming),
    enabled: op.enabled,
  });

  return {
    async get(db: Queryable, operatorId: string): Promise<Operator | null> {
      return withoutSecret(await load(db, operatorId));
    },
    async getWithSecret(db: Queryable, operatorId: string): Promise<OperatorWithSecret | null> {
      return load(db, operatorId);
    },
    async list(db: Queryable): Promise<Operator[]> {
      const rows = await db<OperatorRow>('operators').orderBy('operator_id');
      return rows.map(fromRow);
    },
    /**
     * Create or replace; answers whether it was created. A profile's currency is fixed once it
     * has sessions (every record of a session is in its one currency; a database trigger holds
     * the same rule): changing it is CURRENCY_MISMATCH.
     */
    async upsert(db: Queryable, op: OperatorWrite): Promise<{ operator: Operator; created: boolean }> {
      const row = toRow(op);
      let saved: (OperatorRow & { created: boolean }) | undefined;
      try {
        [saved] = await db('operators')
          .insert(row)
          .onConflict('operator_id')
          .merge({ ...row, updated_at: db.fn.now() })
          .returning<(OperatorRow & { created: boolean })[]>(db.raw('*, (xmax = 0) AS created'));
      } catch (err) {
        if (String((err as { message?: unknown }).message).includes('operators_currency_fixed')) {
          throw new AppError(
            'CURRENCY_MISMATCH',
            `profile ${op.operatorId} already has sessions in another currency; its currency cannot change (create a profile for ${op.currency})`,
          );
        }
        throw err;
      }
      if (!saved) throw new Error('operator upsert returned nothing');
      forget(op.operatorId);
      return { operator: fromRow(saved), created: saved.created };
    },
    /**
     * Secret rotation (issue 13 item 3): the new secret becomes the one callbacks are signed with;
     * the old one keeps verifying the casino's signed requests until `graceUntil` (none: at once).
     */
    async rotateSecret(db: Queryable, operatorId: string, newSecret: string, graceUntil: Date | null): Promise<Operator | null> {
      const [row] = await db<OperatorRow>('operators')
        .where({ operator_id: operatorId })
        .update({
          previous_secret_enc: graceUntil ? db.ref('secret_enc') : null,
          previous_secret_until: graceUntil,
          secret_enc: box.seal(newSecret),
          secret_rotated_at: db.fn.now(),
          updated_at: db.fn.now(),
        } as Record<string, unknown>)
        .returning('*');
      forget(operatorId);
      return row ? fromRow(row as OperatorRow) : null;
    },
    /** Insert only when missing (the demo operator). */
    async insertIfMissing(db: Queryable, op: OperatorWrite): Promise<void> {
      await db('operators').insert(toRow(op)).onConflict('operator_id').ignore();
      forget(op.operatorId);
    },
  };
}

export type OperatorStore = ReturnType<typeof createOperatorStore>;

/**
 * Seed pairs per operator + player (CONTRACT.md §9): the hidden server seed, its hash, the
 * client seed and the next nonce. The nonce is taken by one atomic UPDATE, so two bets never
 * share a nonce, across pods too (and rounds carry UNIQUE (seed_pair_id, nonce)).
 */
import { randomBytes } from 'node:crypto';
import { hashServerSeed, serverSeedFromBytes } from '@gp/game-core/fairness';
import { toBigInt, type Queryable, type Tx } from './db.js';

export interface SeedPair {
  id: string;
  operatorId: string;
  playerRef: string;
  serverSeed: string;
  serverSeedHash: string;
  clientSeed: string;
  nextNonce: bigint;
  revealed: boolean;
}

interface SeedPairRow {
  id: string | number;
  operator_id: string;
  player_ref: string;
  server_seed: string;
  server_seed_hash: string;
  client_seed: string;
  next_nonce: string | number;
  revealed: boolean;
}

const fromRow = (r: SeedPairRow): SeedPair => ({
  id: String(r.id),
  operatorId: r.operator_id,
  playerRef: r.player_ref,
  serverSeed: r.server_seed,
  serverSeedHash: r.server_seed_hash,
  clientSeed: r.client_seed,
  nextNonce: toBigInt(r.next_nonce),
  revealed: r.revealed,
});

function newPair(operatorId: string, playerRef: string, clientSeed: string) {
  const serverSeed = serverSeedFromBytes(randomBytes(32));
  return {
    operator_id: operatorId,
    player_ref: playerRef,
    server_seed: serverSeed,
    server_seed_hash: hashServerSeed(serverSeed),
    client_seed: clientSeed,
    next_nonce: 0,
  };
}

export const randomClientSeed = () => randomBytes(8).toString('hex');

/** The player's current pair, created on first use. */
export async function currentSeedPair(db: Queryable, operatorId: string, playerRef: string): Promise<SeedPair> {
  const existing = await db<SeedPairRow>('seed_pairs').where({ operator_id: operatorId, player_ref: playerRef, revealed: false }).first();
  if (existing) return fromRow(existing);
  await db('seed_pairs')
    .insert(newPair(operatorId, playerRef, randomClientSeed()))
    .onConflict(db.raw('(operator_id, player_ref) WHERE NOT revealed'))
    .ignore();
  const row = await db<SeedPairRow>('seed_pairs').where({ operator_id: operatorId, player_ref: playerRef, revealed: false }).first();
  if (!row) throw new Error('seed pair vanished');
  return fromRow(row);
}

export async function seedPairById(db: Queryable, id: string): Promise<SeedPair | null> {
  const row = await db<SeedPairRow>('seed_pairs').where({ id }).first();
  return row ? fromRow(row) : null;
}

/**
 * Reveals the current pair and commits a new one (CONTRACT.md §9). `refuse` runs inside the
 * transaction that holds the pair (no round can open under it meanwhile) and may throw to refuse
 * the rotation (rounds/seed-rotation.ts: an open Mines or Blackjack round under the pair).
 */
export async function rotateSeedPair(
  db: Queryable,
  operatorId: string,
  playerRef: string,
  clientSeed: string | undefined,
  refuse?: (tx: Tx, seedPairId: string) => Promise<void>,
) {
  await currentSeedPair(db, operatorId, playerRef);
  const run = async (tx: Tx) => {
    const current = await tx<SeedPairRow>('seed_pairs').where({ operator_id: operatorId, player_ref: playerRef, revealed: false }).forUpdate().first();
    if (!current) throw new Error('no current seed pair');
    await refuse?.(tx, String(current.id));
    await tx('seed_pairs').where({ id: current.id }).update({ revealed: true, revealed_at: tx.fn.now() });
    const [next] = await tx('seed_pairs')
      .insert(newPair(operatorId, playerRef, clientSeed ?? current.client_seed))
      .returning<SeedPairRow[]>('*');
    if (!next) throw new Error('seed pair insert returned nothing');
    return { previous: fromRow(current), next: fromRow(next) };
  };
  return 'commit' in db ? run(db as Tx) : (db as import('knex').Knex).transaction(run);
}

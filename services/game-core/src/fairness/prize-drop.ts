/**
 * The provably fair prize drop (issue 30, docs/promotions.md "Verifying a prize drop"). Pure: the
 * server draws with it and the browser verifier recomputes with it, byte for byte.
 *
 * The public rule, version `prize-drop-v1`:
 *  - when the drop starts the service commits `serverSeedHash` = SHA-256 hex of the serverSeed
 *    text (the same hash as a game seed, CONTRACT.md §9);
 *  - every qualifying bet gets a ticket: the lowercase hex SHA-256 of its round id (the round id
 *    itself is a capability and is never published; its owner can hash it and find the ticket);
 *  - the tickets are evaluated in the published order (`seq` 1, 2, 3, …: the order the service
 *    took them, by settlement time and round id);
 *  - a ticket's draw is the first 4 bytes of HMAC-SHA256(key = serverSeed text, message = ticket)
 *    as a big-endian uint32 `u`; it wins when u × oneIn < 2^32 (a chance of 1 in `oneIn`, exact
 *    integer arithmetic, no floats);
 *  - the winning tickets, in order, take the prizes in their listed order (prize index 0, 1, …)
 *    until none is left; later tickets win nothing;
 *  - the serverSeed is revealed when the drop ends or is cancelled: anyone recomputes every award.
 */
import { hmacSha256, sha256Hex } from './hash.js';

export const PRIZE_DROP_RULE = 'prize-drop-v1';
export const MAX_DROP_ONE_IN = 1_000_000;
const TWO_POW_32 = 4_294_967_296;

/** A qualifying bet's public ticket: lowercase hex SHA-256 of its round id. */
export function dropTicket(roundId: string): string {
  return sha256Hex(roundId);
}

/** The ticket's draw: the first 4 bytes of HMAC-SHA256(serverSeed, ticket), big-endian. */
export function dropDraw(serverSeed: string, ticket: string): number {
  const d = hmacSha256(serverSeed, ticket);
  return ((d[0]! << 24) >>> 0) + (d[1]! << 16) + (d[2]! << 8) + d[3]!;
}

/** Whether the ticket wins under a chance of 1 in `oneIn` (u × oneIn < 2^32). */
export function dropTicketWins(serverSeed: string, ticket: string, oneIn: number): boolean {
  if (!Number.isInteger(oneIn) || oneIn < 1 || oneIn > MAX_DROP_ONE_IN) throw new RangeError(`oneIn must be an integer 1..${MAX_DROP_ONE_IN}`);
  return dropDraw(serverSeed, ticket) * oneIn < TWO_POW_32;
}

export interface DropEntry {
  seq: number;
  ticket: string;
}

export interface DropAward {
  /** index into the drop's prize list */
  prize: number;
  seq: number;
  ticket: string;
}

/**
 * Every award of a drop from its revealed seed: the entries in `seq` order, each winner taking the
 * next prize. `prizesAwardedBefore` lets the server continue a draw it already started (the
 * entries given are then the ones after those it evaluated).
 */
export function drawPrizeDrop(input: {
  serverSeed: string;
  oneIn: number;
  prizeCount: number;
  entries: readonly DropEntry[];
  prizesAwardedBefore?: number;
}): DropAward[] {
  const entries = [...input.entries].sort((a, b) => a.seq - b.seq);
  const out: DropAward[] = [];
  let next = input.prizesAwardedBefore ?? 0;
  for (const e of entries) {
    if (next >= input.prizeCount) break;
    if (dropTicketWins(input.serverSeed, e.ticket, input.oneIn)) out.push({ prize: next++, seq: e.seq, ticket: e.ticket });
  }
  return out;
}

export interface DropProof {
  serverSeed: string;
  serverSeedHash: string;
  oneIn: number;
  prizeCount: number;
  entries: readonly DropEntry[];
  awards: readonly { prize: number; seq: number; ticket: string }[];
}

/** Checks a revealed drop: the seed matches its hash, the sequence is 1..n, and the awards are exactly the recomputed ones. */
export function verifyPrizeDrop(p: DropProof): { ok: boolean; problems: string[]; awards: DropAward[] } {
  const problems: string[] = [];
  if (sha256Hex(p.serverSeed) !== p.serverSeedHash) problems.push('the server seed does not match the committed hash');
  p.entries.forEach((e, i) => {
    if (e.seq !== i + 1) problems.push(`entry ${i + 1} has seq ${e.seq}`);
  });
  const awards = drawPrizeDrop({ serverSeed: p.serverSeed, oneIn: p.oneIn, prizeCount: p.prizeCount, entries: p.entries });
  const key = (a: { prize: number; seq: number; ticket: string }) => `${a.prize}:${a.seq}:${a.ticket}`;
  const want = awards.map(key).join(',');
  const got = [...p.awards]
    .sort((a, b) => a.prize - b.prize)
    .map(key)
    .join(',');
  if (want !== got) problems.push('the published awards differ from the recomputed ones');
  return { ok: problems.length === 0, problems, awards };
}

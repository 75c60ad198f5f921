/**
 * Idempotency of player requests that move money (SPEC.md endpoint rule 1, CONTRACT.md §13).
 * A record per (operator, session, key) holds a hash of the canonical request. It is claimed in
 * the same transaction that opens the round (or applies the action), so a request refused
 * before any wallet call stores nothing. The same key with the same request replays the stored
 * answer; with another request it is IDEMPOTENCY_CONFLICT; while the first is still running the
 * duplicate waits for it (up to 10 s), then answers from the round or IDEMPOTENCY_IN_PROGRESS.
 */
import { createHash } from 'node:crypto';
import { AppError, errorBody } from '../errors.js';
import { stringifyJson, parseJson } from '../infra/json.js';
import type { Metrics, ReplayOutcome } from '../infra/metrics.js';
import type { Db, Queryable, Tx } from '../store/db.js';
import { getRound } from './round-store/reads.js';
import {
  findKeyRecord,
  insertKeyClaim,
  isKeyViolation,
  keysClaimedWithCallback,
  storeKeyAnswer,
  type IdempotencyRecordRow,
} from './round-store/idempotency-records.js';

export { isKeyViolation };
import type { Callback, Round } from './round-store/rows.js';
import { CLOSED_STATUSES, OPEN_STATUSES, publicStatusOf } from './round-status.js';

export interface IdempotencyScope {
  operatorId: string;
  sessionId: string;
  key: string;
  requestHash: string;
  /** Set once this request has claimed the key (in the statement or transaction that first writes). */
  claimed?: boolean;
}

/** The scope of a player's request: its session and key, and the hash of what it asks (`request`: the canonical request). */
export function scopeOf(session: { operatorId: string; sessionId: string }, key: string, request: Record<string, unknown>): IdempotencyScope {
  return { operatorId: session.operatorId, sessionId: session.sessionId, key, requestHash: requestHash(request) };
}

/** Canonical JSON (sorted keys) of the request → SHA-256 hex. */
export function requestHash(value: unknown): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === 'object' && !('isLosslessNumber' in v)) {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
      );
    }
    return typeof v === 'bigint' ? v.toString() : v;
  };
  return createHash('sha256')
    .update(stringifyJson(canonical(value)))
    .digest('hex');
}

/** The key was claimed by another request (a duplicate, a retry): the caller answers by replay. */
export class KeyTaken extends Error {}

/** An answer the executor already stored with its key (in the statement that finished the round). */
export class StoredAnswer<T> {
  constructor(readonly value: T) {}
}

const PENDING_ANSWERS: readonly string[] = ['credit_pending', 'rollback_pending'];

/** Claims the key inside the caller's transaction; a concurrent claim makes the caller start over. */
export async function claimKey(tx: Tx, scope: IdempotencyScope, roundId: string): Promise<void> {
  try {
    await insertKeyClaim(tx, scope, roundId);
    scope.claimed = true;
  } catch (err) {
    if (isKeyViolation(err)) throw new KeyTaken();
    throw err;
  }
}

/** Stores the answer of a claimed key (a 200 body, or an error that carries its round). */
export async function completeKey(
  db: Queryable,
  scope: IdempotencyScope,
  answer: { status: number; body: unknown; roundStatus: string | null },
): Promise<void> {
  await storeKeyAnswer(db, scope, answer);
}

function storedAnswer<T>(row: IdempotencyRecordRow): T {
  const body = typeof row.response_body === 'string' ? parseJson(row.response_body) : parseJson(stringifyJson(row.response_body));
  if ((row.response_status ?? 200) >= 400) {
    const b = body as { code: AppError['code']; message: string; [k: string]: unknown };
    const { statusCode: _s, error: _e, code, message, ...extras } = b;
    throw new AppError(code, message, extras);
  }
  return body as T;
}

export interface IdempotentRun<T> {
  scope: IdempotencyScope;
  waitMs: number;
  /**
   * Does the work; must claim the key (claimKey, or the statement that opens the round) where it
   * first writes, so a request refused before any wallet call stores nothing. May answer a
   * StoredAnswer when it stored the answer with the key itself.
   */
  execute(): Promise<T | StoredAnswer<T>>;
  /** The answer for a key whose round moved on since its answer was stored. */
  fromRound(round: Round): Promise<T>;
  /**
   * A closed round (settled, cashed out, busted) whose key holds no answer answers `fromRound` at
   * once: the statement that closed it left the answer out because `fromRound` rebuilds it (bets.ts).
   * Without this, a key in progress waits for its stored answer.
   */
  rebuildsClosedAnswer?: boolean;
}

/**
 * Runs a request once per key. Optimistic: the work starts at once and claims the key where it
 * first writes; a key already taken (a retry, a concurrent duplicate) sends the request to the
 * replay of the first one's answer. A request refused before it claimed the key (a check that
 * can change over time, a state that moved on) first looks for the key: a key that already
 * reached the wallet answers with its round (CONTRACT.md §13), never with a fresh refusal.
 */
export async function runIdempotent<T>(db: Db, run: IdempotentRun<T>, metrics?: Pick<Metrics, 'idempotentReplay'>): Promise<T> {
  try {
    const answer = await run.execute();
    if (answer instanceof StoredAnswer) return answer.value;
    await completeKey(db, run.scope, { status: 200, body: answer, roundStatus: roundStatusOf(answer) });
    return answer;
  } catch (err) {
    if (!run.scope.claimed) {
      const existing = await findKeyRecord(db, run.scope);
      if (existing) return counted(replay(db, run, existing), metrics);
      if (err instanceof KeyTaken) {
        metrics?.idempotentReplay('in_progress');
        throw new AppError('IDEMPOTENCY_IN_PROGRESS', 'this idempotency key is being processed by another request');
      }
      throw err;
    }
    if (err instanceof AppError && typeof err.extras.roundId === 'string') {
      await completeKey(db, run.scope, { status: err.statusCode, body: errorBody(err), roundStatus: String(err.extras.roundStatus ?? '') || null });
    }
    throw err;
  }
}

/** Counts a replay by how it ended (metrics: gp_idempotent_replays_total); a stored error answer is a replay too. */
async function counted<T>(answer: Promise<T>, metrics: Pick<Metrics, 'idempotentReplay'> | undefined): Promise<T> {
  if (!metrics) return answer;
  try {
    const value = await answer;
    metrics.idempotentReplay('replayed');
    return value;
  } catch (err) {
    const code = err instanceof AppError ? err.code : null;
    const outcome: ReplayOutcome = code === 'IDEMPOTENCY_CONFLICT' ? 'conflict' : code === 'IDEMPOTENCY_IN_PROGRESS' ? 'in_progress' : 'replayed';
    metrics.idempotentReplay(outcome);
    throw err;
  }
}

function roundStatusOf(answer: unknown): string | null {
  const s = (answer as { roundStatus?: unknown } | null)?.roundStatus;
  return typeof s === 'string' ? s : null;
}

async function replay<T>(db: Db, run: IdempotentRun<T>, first: IdempotencyRecordRow): Promise<T> {
  if (first.request_hash !== run.scope.requestHash) {
    throw new AppError('IDEMPOTENCY_CONFLICT', 'this idempotency key was used for a different request');
  }
  const deadline = Date.now() + run.waitMs;
  const roundOf = (r: IdempotencyRecordRow) => (r.round_id ? getRound(db, r.round_id) : Promise.resolve(null));
  const answered = (r: IdempotencyRecordRow, round: Round | null) =>
    r.state === 'completed' || (run.rebuildsClosedAnswer === true && round !== null && CLOSED_STATUSES.includes(round.status));
  let row: IdempotencyRecordRow | undefined = first;
  let round = await roundOf(row);
  while (row && !answered(row, round) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    row = await findKeyRecord(db, run.scope);
    round = row ? await roundOf(row) : null;
  }
  if (!row) throw new AppError('IDEMPOTENCY_IN_PROGRESS', 'this idempotency key is being processed by another request');
  if (row.state === 'completed') {
    // The stored answer; only an answer that said the money was still pending (credit_pending,
    // rollback_pending) gives way to the round as it is now, once that round has moved on.
    const stored = row.response_round_status;
    if (round && stored !== null && PENDING_ANSWERS.includes(stored) && stored !== publicStatusOf(round)) return run.fromRound(round);
    return storedAnswer<T>(row);
  }
  if (round && !OPEN_STATUSES.includes(round.status)) return run.fromRound(round);
  throw new AppError('IDEMPOTENCY_IN_PROGRESS', 'this idempotency key is still being processed; retry shortly');
}

/**
 * The keys of an action a stopped worker left in progress (claimed in the transaction that
 * recorded its extra debit, so at the same database time) answer `error` from now on: the action
 * did not happen.
 */
export async function completeInterruptedKeys(db: Queryable, debit: Pick<Callback, 'idempotencyKey' | 'roundId'>, error: AppError): Promise<void> {
  for (const scope of await keysClaimedWithCallback(db, debit.roundId, debit.idempotencyKey)) {
    await completeKey(db, scope, { status: error.statusCode, body: errorBody(error), roundStatus: 'active' });
  }
}

/**
 * The months of `rounds` and `wallet_callbacks` (migration 20261128131000) and the weeks of
 * `idempotency_records` (migration 20261129100000), so the bet's statements
 * can name the month's partition itself instead of the partitioned table: on PostgreSQL 15 a
 * statement on the partitioned table pays for pruning, routing and the partitions of its cached
 * plan (docs/performance.md "What partitioning costs per bet"). The list is read from
 * `time_partitions` at start and whenever the service creates months; a round whose month is not in
 * it (a month made by another pod since, or the list not read yet) is written through the
 * partitioned table, as before — the same rows, only slower. Months are never re-bounded, only
 * created or dropped, so a month listed here holds exactly the rounds of its range.
 */
import type { Queryable } from '../../store/db.js';

interface Month {
  name: string;
  from: number;
  to: number;
}

interface Known {
  months: Month[];
  /** the weeks of idempotency records (migration 20261129100000) */
  weeks: Month[];
  reload: () => Promise<void>;
  reloading: boolean;
  reloadedAt: number;
}

/** Per database (a process may hold several: the tests do), keyed by its knex configuration, which a transaction shares. */
const known = new WeakMap<object, Known>();
const keyOf = (db: Queryable): object => (db as unknown as { client: { config: object } }).client.config;

/** Reads the months from the database (again when a round falls outside them). */
export async function loadTimePartitions(db: Queryable): Promise<void> {
  const rows = (await db('time_partitions')
    .whereIn('parent', ['rounds', 'idempotency_records'])
    .select('name', 'parent', db.raw('(extract(epoch FROM from_ts) * 1000)::text AS f'), db.raw('(extract(epoch FROM to_ts) * 1000)::text AS t'))) as {
    name: string;
    parent: string;
    f: string;
    t: string;
  }[];
  const k = known.get(keyOf(db)) ?? { months: [], weeks: [], reload: () => loadTimePartitions(db), reloading: false, reloadedAt: 0 };
  const of = (parent: string): Month[] => rows.filter((r) => r.parent === parent).map((r) => ({ name: r.name, from: Number(r.f), to: Number(r.t) }));
  k.months = of('rounds');
  k.weeks = of('idempotency_records');
  known.set(keyOf(db), k);
}

const V7 = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}(-[0-9a-f]{12})?$/;
/** The tables a round's statements write (`named`: its month's partitions, where the round's id alone finds its rows: `roundAtIn`). */
export interface RoundTables {
  rounds: string;
  callbacks: string;
  tag: string;
  named: boolean;
}
const PARENTS: RoundTables = { rounds: 'rounds', callbacks: 'wallet_callbacks', tag: '', named: false };

/** The tables a round's statements write: its month's partitions, else the partitioned tables; `tag` names the month in prepared statements' names. */
export function roundTables(db: Queryable, roundId: string): RoundTables {
  const k = known.get(keyOf(db));
  const m = V7.exec(roundId);
  if (!k || !m) return PARENTS;
  const at = parseInt(`${m[1]}${m[2]}`, 16);
  const month = k.months.find((x) => x.from <= at && at < x.to);
  if (!month || !/^rounds_(legacy|\d{4}_\d{2})$/.test(month.name)) {
    reloadSoon(k);
    return PARENTS;
  }
  const suffix = month.name.slice('rounds_'.length);
  return { rounds: month.name, callbacks: `wallet_callbacks_${suffix}`, tag: `_${suffix}`, named: true };
}

/** Reads the list again in the background, at most every 5 s (a partition made by another pod since). */
function reloadSoon(k: Known): void {
  if (!k.reloading && Date.now() - k.reloadedAt > 5_000) {
    k.reloading = true;
    k.reloadedAt = Date.now();
    void k
      .reload()
      .catch(() => undefined)
      .finally(() => (k.reloading = false));
  }
}

/** The table a session's idempotency records are written in (`named`: its week's partition, where the key alone finds a record). */
export interface KeyTable {
  records: string;
  tag: string;
  named: boolean;
}
const KEY_PARENT: KeyTable = { records: 'idempotency_records', tag: '', named: false };

/**
 * The table a session's idempotency records are written in: the week of the session's start (its
 * UUIDv7's time, migration 20261129100000), else the partitioned table (a session id that is not a
 * UUIDv7 lives in the legacy partition; a week not listed yet). `tag` names the week in prepared
 * statements' names: a connection prepares a hot statement once a week, not once a day.
 */
export function keyTable(db: Queryable, sessionId: string): KeyTable {
  const k = known.get(keyOf(db));
  const m = V7.exec(sessionId);
  if (!k || !m) return KEY_PARENT;
  const at = parseInt(`${m[1]}${m[2]}`, 16);
  const week = k.weeks.find((x) => x.from <= at && at < x.to);
  if (!week || !/^idempotency_records_\d{4}_\d{2}_\d{2}$/.test(week.name)) {
    reloadSoon(k);
    return KEY_PARENT;
  }
  return { records: week.name, tag: `_k${week.name.slice('idempotency_records_'.length)}`, named: true };
}

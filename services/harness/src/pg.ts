/**
 * The PostgreSQL side of a harness run: a fresh database per run on the server of
 * TEST_DATABASE_URL, and the server's own counters (pg_stat_database, pg_stat_statements,
 * pg_stat_activity), read over a connection to the maintenance database so our own reads never
 * count as the provider's work.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { childrenOf, parentPid } from './proc-stats.js';
import type { WireCounter } from './pg-wire-counter.js';

export const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/postgres';

export function serverUrl(): string {
  return process.env.TEST_DATABASE_URL ?? DEFAULT_PG;
}

export function databaseUrl(base: string, name: string): string {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

export interface RunDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * A new empty database `<prefix><random>`; stale databases of the same prefix that nobody is
 * connected to (a crashed earlier run) are dropped first. The provider migrates it at start.
 */
export async function createRunDatabase(prefix: string, base = serverUrl()): Promise<RunDatabase> {
  const name = `${prefix}${randomBytes(5).toString('hex')}`;
  await withClient(base, async (c) => {
    const stale = await c.query<{ datname: string }>(
      `SELECT datname FROM pg_database d WHERE datname LIKE $1 AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = d.datname)`,
      [`${prefix}%`],
    );
    for (const { datname } of stale.rows) await c.query(`DROP DATABASE IF EXISTS ${ident(datname)}`);
    await c.query(`CREATE DATABASE ${ident(name)}`);
  });
  return {
    name,
    url: databaseUrl(base, name),
    drop: () => withClient(base, (c) => c.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`).then(() => undefined)),
  };
}

export interface PgCounters {
  commits: number;
  rollbacks: number;
  /** Statements executed in the database (pg_stat_statements calls, else the wire relay's count); null without either. */
  statements: number | null;
  /** Round trips the provider made (Sync + simple Query messages): only with the wire relay. */
  roundTrips: number | null;
  /** WAL records written by the whole cluster (pg_stat_wal, PostgreSQL 14+); null when it cannot be read. */
  walRecords: number | null;
  /**
   * Calls of each PL/pgSQL function in the run's database (pg_stat_user_functions: the money path's
   * CHECK rule functions and row triggers); null unless the database tracks them (FUNCTION_TRACKING).
   */
  functionCalls: Record<string, number> | null;
}

/**
 * Settings of the run's database that make PostgreSQL count each PL/pgSQL function's calls. Set
 * before the providers connect (a session reads its database's settings when it starts); a
 * superuser's setting (PGC_SUSET), so `trackFunctionCalls` tells whether it took.
 */
export const FUNCTION_TRACKING = { track_functions: 'pl' } as const;

/**
 * Sets FUNCTION_TRACKING on the run's database when the role may (a superuser: the test clusters'
 * `postgres`); false otherwise, and the bench prints the calls as n/a. Counting a call costs two
 * clock reads, not a statement: the bench's other figures do not move.
 */
export async function trackFunctionCalls(dbName: string, base = serverUrl()): Promise<boolean> {
  if (!(await isSuperuser(base))) return false;
  await withClient(base, async (c) => {
    for (const [name, value] of Object.entries(FUNCTION_TRACKING)) await c.query(`ALTER DATABASE ${ident(dbName)} SET ${name} = '${value}'`);
  });
  return true;
}

/** Is the role of `base` a superuser (may it set FUNCTION_TRACKING)? */
export async function isSuperuser(base = serverUrl()): Promise<boolean> {
  return withClient(base, async (c) => {
    const r = await c.query<{ rolsuper: boolean }>('SELECT rolsuper FROM pg_roles WHERE rolname = current_user');
    return r.rows[0]?.rolsuper === true;
  });
}

/** Each function's calls in the window per bet (functions called in it only); null when not counted. */
export function callsPerBet(before: Record<string, number> | null, after: Record<string, number> | null, bets: number): Record<string, number> | null {
  if (!before || !after) return null;
  const out: Record<string, number> = {};
  for (const [name, calls] of Object.entries(after)) {
    const n = calls - (before[name] ?? 0);
    if (n > 0) out[name] = n / bets;
  }
  return out;
}

/** All PL/pgSQL calls per bet, and each function's (most called first), as one line's text. */
export function describeCalls(perBet: Record<string, number>): { total: number; each: string } {
  const entries = Object.entries(perBet).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return { total: entries.reduce((t, [, n]) => t + n, 0), each: entries.map(([name, n]) => `${name} ${n.toFixed(2)}`).join(', ') };
}

/** Is pg_stat_statements loaded in the server of `base` (shared_preload_libraries)? */
export async function hasPgStatStatements(base = serverUrl()): Promise<boolean> {
  return withClient(base, async (c) => {
    const r = await c.query<{ v: string }>(`SELECT current_setting('shared_preload_libraries') AS v`);
    return (r.rows[0]?.v ?? '').includes('pg_stat_statements');
  });
}

/** Reads the server's counters of one database; keep one per run (it holds a connection). */
export class PgStats {
  private client: pg.Client | null = null;
  /** On the run's database itself: function statistics are per database (one statement and one commit a read, beside a window's thousands of bets). */
  private functionsClient: pg.Client | null = null;
  private oid = 0;
  /** Why statements are not counted, when they are not. */
  statementsNote: string | null = null;
  /** pid of the postmaster (for the CPU of the whole cluster); null when it cannot be seen. */
  postmasterPid: number | null = null;
  /** Where statements per bet come from: 'pg_stat_statements', 'wire relay' or null (not counted). */
  statementsSource: string | null = null;

  constructor(
    private readonly base: string,
    private readonly dbName: string,
    /** The relay the providers go through: counts statements when pg_stat_statements cannot. */
    private readonly wire: WireCounter | null = null,
    /** The run's database counts PL/pgSQL calls (trackFunctionCalls took). */
    private readonly functionsTracked = false,
  ) {}

  async open(): Promise<void> {
    this.client = new pg.Client({ connectionString: this.base });
    await this.client.connect();
    const db = await this.client.query<{ oid: number }>('SELECT oid FROM pg_database WHERE datname = $1', [this.dbName]);
    this.oid = Number(db.rows[0]?.oid ?? 0);
    const preload = await this.client.query<{ v: string }>(`SELECT current_setting('shared_preload_libraries') AS v`);
    if (!preload.rows[0]?.v.includes('pg_stat_statements')) {
      this.statementsNote =
        "pg_stat_statements is not loaded: add shared_preload_libraries = 'pg_stat_statements' to postgresql.conf, restart PostgreSQL, then CREATE EXTENSION pg_stat_statements in the database of TEST_DATABASE_URL";
    } else {
      try {
        await this.client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
        await this.client.query('SELECT 1 FROM pg_stat_statements LIMIT 1');
      } catch (err) {
        this.statementsNote = `pg_stat_statements is loaded but cannot be read: ${(err as Error).message}`;
      }
    }
    if (!this.statementsNote) this.statementsSource = 'pg_stat_statements';
    else if (this.wire) {
      this.statementsSource = 'wire relay (pg_stat_statements not loaded): Execute + Query messages the provider sent';
      this.statementsNote = null;
    }
    const me = await this.client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const backend = Number(me.rows[0]?.pid ?? 0);
    // Only when PostgreSQL runs on this machine (our backend is a process we can see).
    this.postmasterPid = backend ? parentPid(backend) : null;
    if (this.functionsTracked) {
      this.functionsClient = new pg.Client({ connectionString: databaseUrl(this.base, this.dbName) });
      await this.functionsClient.connect();
    }
  }

  async counters(): Promise<PgCounters> {
    const c = this.client!;
    await c.query('SELECT pg_stat_clear_snapshot()');
    const d = await c.query<{ xact_commit: string; xact_rollback: string }>('SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datid = $1', [
      this.oid,
    ]);
    let statements: number | null = null;
    const wire = this.wire?.counts() ?? null;
    if (this.statementsSource === 'pg_stat_statements') {
      const s = await c.query<{ calls: string | null }>('SELECT sum(calls)::text AS calls FROM pg_stat_statements WHERE dbid = $1', [this.oid]);
      statements = Number(s.rows[0]?.calls ?? 0);
    } else if (wire) statements = wire.statements;
    let walRecords: number | null = null;
    try {
      const w = await c.query<{ wal_records: string }>('SELECT wal_records::text FROM pg_stat_wal');
      walRecords = Number(w.rows[0]?.wal_records ?? NaN);
      if (!Number.isFinite(walRecords)) walRecords = null;
    } catch {
      walRecords = null;
    }
    let functionCalls: Record<string, number> | null = null;
    if (this.functionsClient) {
      const f = await this.functionsClient.query<{ funcname: string; calls: string }>(
        'SELECT funcname, sum(calls)::text AS calls FROM pg_stat_user_functions GROUP BY funcname',
      );
      functionCalls = Object.fromEntries(f.rows.map((r) => [r.funcname, Number(r.calls)]));
    }
    return {
      commits: Number(d.rows[0]?.xact_commit ?? 0),
      rollbacks: Number(d.rows[0]?.xact_rollback ?? 0),
      statements,
      roundTrips: wire?.roundTrips ?? null,
      walRecords,
      functionCalls,
    };
  }

  /** Connections to the run's database now. */
  async connections(): Promise<number> {
    const r = await this.client!.query<{ n: string }>('SELECT count(*)::text AS n FROM pg_stat_activity WHERE datname = $1', [this.dbName]);
    return Number(r.rows[0]?.n ?? 0);
  }

  /** The postmaster and its children (backends, writers): the cluster's CPU. */
  clusterPids(): number[] {
    if (!this.postmasterPid) return [];
    return [this.postmasterPid, ...childrenOf(this.postmasterPid)];
  }

  async close(): Promise<void> {
    await this.client?.end().catch(() => undefined);
    await this.functionsClient?.end().catch(() => undefined);
    this.client = null;
    this.functionsClient = null;
  }
}

/** Counts rows of a table of the run's database (its own short connection). */
export async function countRows(url: string, table: string): Promise<number> {
  return withClient(url, async (c) => {
    const r = await c.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${ident(table)}`);
    return Number(r.rows[0]?.n ?? 0);
  });
}

/** A small pool on the run's database for the bank check and the drain loop. */
export function runPool(url: string): pg.Pool {
  return new pg.Pool({ connectionString: url, max: 4 });
}

/**
 * The database's metrics (metrics.ts lists every name): the PostgreSQL pool of this process, and
 * the hot statements' batches (store/statement-batches.ts) — statements sent, the transactions they
 * went in (statements ÷ batches is the mean batch), those sent again alone after a refusal in their
 * batch, and those waiting now.
 */
import client from 'prom-client';

export interface DatabaseFigures {
  pool(): { used: number; free: number; pending: number } | null;
  /** null on the embedded database */
  hotStatements(): { statements: number; batches: number; resent: number; waiting: number } | null;
}

export function registerDatabaseMetrics(registers: client.Registry[], sources: () => DatabaseFigures | null): void {
  new client.Gauge({
    name: 'gp_db_pool_connections',
    help: 'PostgreSQL pool of this process: used, free, and pending (requests waiting for a connection)',
    labelNames: ['state'],
    registers,
    collect() {
      const p = sources()?.pool();
      this.reset();
      if (!p) return;
      this.set({ state: 'used' }, p.used);
      this.set({ state: 'free' }, p.free);
      this.set({ state: 'pending' }, p.pending);
    },
  });

  const counted = { statements: 0, batches: 0, resent: 0 };
  const hotCounter = (name: string, help: string, what: keyof typeof counted) =>
    new client.Counter({
      name,
      help,
      registers,
      collect() {
        const now = sources()?.hotStatements()?.[what] ?? counted[what];
        if (now > counted[what]) this.inc(now - counted[what]);
        counted[what] = Math.max(counted[what], now);
      },
    });
  hotCounter(
    'gp_db_hot_statements_total',
    "Hot statements (the money path's one-statement steps) this process sent to PostgreSQL, each sending counted",
    'statements',
  );
  hotCounter(
    'gp_db_hot_batches_total',
    'Transactions the hot statements went in: a batch of those that waited while earlier batches were out, or one alone',
    'batches',
  );
  hotCounter(
    'gp_db_hot_statements_resent_total',
    'Hot statements sent again, alone, because another statement of their batch was refused (nothing of that batch was written)',
    'resent',
  );
  new client.Gauge({
    name: 'gp_db_hot_statements_waiting',
    help: 'Hot statements waiting for a batch now (DB_HOT_BATCHES batches are out)',
    registers,
    collect() {
      this.set(sources()?.hotStatements()?.waiting ?? 0);
    },
  });
}

/**
 * Hot statements of concurrent requests sent together, as one transaction (issue 25, the
 * thirteenth session; docs/performance.md, DECISIONS.md).
 *
 * Each hot statement was its own transaction on its own round trip: PostgreSQL started and
 * committed a transaction, set up the money path's PL/pgSQL rules again and woke a backend for
 * every one of a bet's three statements. While `inFlight` batches are at PostgreSQL, the hot
 * statements that arrive wait here; the next batch takes them all (up to `maxBatch`) and sends
 * them on one connection in one write — each statement's Parse (once per connection), Bind,
 * Describe (once per connection) and Execute — with one Sync: PostgreSQL runs them one after
 * another, as separate statements with their own snapshots, in one implicit transaction that it
 * commits at the Sync, before it answers ReadyForQuery. A statement alone in its batch is sent as
 * before. Nothing is delayed to make a batch: a statement waits only while `inFlight` batches are
 * out, as it waited for a pooled connection before.
 *
 * What each statement's caller sees is what it saw alone:
 * - its answer only once the batch has committed (ReadyForQuery): the money path's rule that a
 *   step is recorded before the wallet call it allows holds as it did;
 * - a statement the database refuses (a unique violation: a key taken; a rule; a deadlock) aborts
 *   the transaction, so nothing of the batch was written. The refused one runs again alone and its
 *   caller gets the answer it would have got alone; the statements before it (they ran) go again in
 *   the next batch, the ones after it (skipped) wait as they were. A statement rolled back by a
 *   second refusal goes alone: another casino's refused statements cost a statement at most one
 *   execution more;
 * - a lost connection or a timeout (the outcome unknown), or a backend ended under the batch (FATAL),
 *   is that error for every statement of the batch, as it was for a statement alone: nothing is
 *   sent again blind.
 *
 * One statement's order against another's is what two concurrent requests may have anyway: as if
 * each had committed just before the next began.
 */
import pg from 'pg';
import { DescribedOnceQuery, mapValues, type BatchConnection } from './hot-statement.js';

export interface HotStatement {
  name: string;
  /** the text with $1, $2, … placeholders */
  text: string;
  values: unknown[];
}

export interface HotResult {
  rows: unknown[];
}

/** The pg connection (pg's Client) of knex's pool, as a batch uses it. */
export interface PgClient {
  query(q: object): unknown;
  _types?: unknown;
}

/**
 * A statement the server refused (an ErrorResponse of severity ERROR): the transaction is rolled
 * back and the connection answers ReadyForQuery and goes on. A FATAL one ends the backend: rolled
 * back too, but the connection is gone, and the pool may hand it out again before its socket has
 * closed; such a batch answers its error to every statement, as a lost connection does.
 */
function isServerRefusal(err: unknown): boolean {
  return err instanceof pg.DatabaseError && err.severity === 'ERROR';
}

/** A batch that failed: `index` the statement the server refused (its length: the commit), and the error. */
class BatchFailure extends Error {
  constructor(
    readonly index: number,
    readonly error: Error,
  ) {
    super(error.message);
  }
}

/**
 * A pg "custom query" (an object with `submit`) that writes its statements with one Sync and hands
 * each message the backend answers to the statement it belongs to: the statements answer in order,
 * each up to its CommandComplete.
 */
class BatchQuery {
  private index = 0;
  private sentParse: boolean[] = [];
  private connection: BatchConnection | null = null;

  constructor(
    private readonly members: DescribedOnceQuery[],
    private readonly mapped: unknown[][],
    public callback: (err: Error | null) => void,
  ) {}

  /** pg's client reads these on ParseComplete and on an error: the statement being answered. */
  get name(): string {
    return (this.members[this.index] as unknown as { name: string } | undefined)?.name ?? '';
  }

  get text(): string {
    return (this.members[this.index] as unknown as { text: string } | undefined)?.text ?? '';
  }

  submit(connection: BatchConnection): Error | null {
    this.connection = connection;
    connection.stream.cork?.();
    try {
      this.sentParse = this.members.map((m, i) => m.sendInBatch(connection as never, this.mapped[i]!));
      (connection as unknown as { sync(): void }).sync();
    } catch (err) {
      // a batch half written has no Sync: the backend would wait for it. The connection is given up
      // (pg answers the error to the batch, and the pool drops a connection whose socket ended).
      connection.stream.destroy?.();
      return err as Error;
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  private current(): PgQueryHandlers {
    return this.members[this.index] as unknown as PgQueryHandlers;
  }

  handleRowDescription(msg: unknown): void {
    this.current().handleRowDescription(msg);
  }

  handleDataRow(msg: unknown): void {
    this.current().handleDataRow(msg);
  }

  handleCommandComplete(msg: unknown, connection: unknown): void {
    this.current().handleCommandComplete(msg, connection);
    this.index += 1;
  }

  handleEmptyQuery(): void {
    this.index += 1;
  }

  handlePortalSuspended(): void {}

  handleCopyInResponse(): void {}

  handleCopyData(): void {}

  /** The backend refused statement `index` (or the commit) and skips to the Sync; or the connection failed. */
  handleError(err: Error): void {
    // The statements after the refused one were skipped: a Parse this batch sent for them did not happen.
    if (this.connection) {
      for (let i = this.index + 1; i < this.members.length; i++) {
        if (this.sentParse[i]) delete this.connection.submittedNamedStatements[(this.members[i] as unknown as { name: string }).name];
      }
    }
    this.callback(new BatchFailure(this.index, err));
  }

  /** Committed: each statement answers its caller (or its own error, a row pg could not read). */
  handleReadyForQuery(connection: unknown): void {
    for (const m of this.members) (m as unknown as PgQueryHandlers).handleReadyForQuery(connection);
    this.callback(null);
  }
}

interface PgQueryHandlers {
  handleRowDescription(msg: unknown): void;
  handleDataRow(msg: unknown): void;
  handleCommandComplete(msg: unknown, connection: unknown): void;
  handleReadyForQuery(connection: unknown): void;
}

interface Waiting extends HotStatement {
  resolve(r: HotResult): void;
  reject(err: Error): void;
  /** sent alone from now on: refused in a batch, or in a second refused batch */
  alone: boolean;
  /** ran in a batch that another statement's refusal rolled back */
  resent: boolean;
}

export interface BatchPool {
  acquire(): Promise<PgClient>;
  release(client: PgClient): void;
}

export interface BatchOptions {
  /** batches at PostgreSQL at once (a statement arriving below it is sent at once, alone) */
  inFlight: number;
  /** statements a batch takes at most */
  maxBatch: number;
}

/** Runs one statement, alone, on a connection of the pool. */
function runAlone(client: PgClient, s: HotStatement): Promise<HotResult> {
  return new Promise((resolve, reject) => {
    client.query(new DescribedOnceQuery(s, (err, res) => (err ? reject(err) : resolve(res as HotResult))));
  });
}

/** Counts for the bench and the metrics: statements sent, batches sent, statements sent again after a refusal in their batch (the refused one included). */
export interface BatchCounts {
  statements: number;
  batches: number;
  resent: number;
}

export class StatementBatches {
  private readonly waiting: Waiting[] = [];
  private out = 0;
  readonly counts: BatchCounts = { statements: 0, batches: 0, resent: 0 };

  constructor(
    private readonly pool: BatchPool,
    private readonly opts: BatchOptions,
  ) {}

  /** The counts so far, with the statements waiting now (the metrics: gp_db_hot_*). */
  figures(): BatchCounts & { waiting: number } {
    return { ...this.counts, waiting: this.waiting.length };
  }

  run(s: HotStatement): Promise<HotResult> {
    return new Promise<HotResult>((resolve, reject) => {
      this.waiting.push({ ...s, resolve, reject, alone: false, resent: false });
      this.pump();
    });
  }

  private pump(): void {
    while (this.out < this.opts.inFlight && this.waiting.length > 0) {
      const batch = this.take();
      this.out += 1;
      void this.send(batch).finally(() => {
        this.out -= 1;
        this.pump();
      });
    }
  }

  /** The next batch: the first waiting statement, and the ones after it that may share a batch. */
  private take(): Waiting[] {
    const first = this.waiting.shift()!;
    if (first.alone) return [first];
    const batch = [first];
    for (let i = 0; i < this.waiting.length && batch.length < this.opts.maxBatch;) {
      if (this.waiting[i]!.alone) i += 1;
      else batch.push(this.waiting.splice(i, 1)[0]!);
    }
    return batch;
  }

  private async send(batch: Waiting[]): Promise<void> {
    let client: PgClient;
    try {
      client = await this.pool.acquire();
    } catch (err) {
      for (const w of batch) w.reject(err as Error);
      return;
    }
    try {
      this.counts.batches += 1;
      this.counts.statements += batch.length;
      if (batch.length === 1) {
        const w = batch[0]!;
        await runAlone(client, w).then(w.resolve, w.reject);
        return;
      }
      await this.sendBatch(client, batch);
    } finally {
      this.pool.release(client);
    }
  }

  private async sendBatch(client: PgClient, batch: Waiting[]): Promise<void> {
    // values pg cannot send are found before anything is written: that statement alone answers its error
    const mapped: unknown[][] = [];
    const ok: Waiting[] = [];
    for (const w of batch) {
      try {
        mapped.push(mapValues(w.values));
        ok.push(w);
      } catch (err) {
        w.reject(err as Error);
      }
    }
    if (ok.length === 0) return;
    const results: { value?: HotResult; error?: Error }[] = ok.map(() => ({}));
    const members = ok.map((w, i) => {
      const m = new DescribedOnceQuery(w, (err, res) => {
        if (err) results[i]!.error = err;
        else results[i]!.value = res as HotResult;
      });
      const r = (m as unknown as { _result: { _types?: unknown } })._result;
      if (client._types !== undefined && !r._types) r._types = client._types;
      return m;
    });
    const failure = await new Promise<BatchFailure | null>((resolve) => {
      client.query(new BatchQuery(members, mapped, (err) => resolve(err as BatchFailure | null)));
    });
    if (!failure) {
      ok.forEach((w, i) => {
        const r = results[i]!;
        if (r.error) w.reject(r.error);
        else w.resolve(r.value!);
      });
      return;
    }
    if (!isServerRefusal(failure.error)) {
      // the connection failed or timed out: whether the batch committed is unknown, as it would be for one statement
      for (const w of ok) w.reject(failure.error);
      return;
    }
    // Refused: nothing of the batch was written. The statements before the refused one ran and go
    // again, in the next batch; the refused one goes alone, for its own answer; the ones after it
    // never ran and wait as they were. A statement in a second refused batch goes alone.
    const i = Math.min(failure.index, ok.length);
    const before = ok.slice(0, i);
    const refused = ok.slice(i, i + 1);
    for (const w of before) {
      if (w.resent) w.alone = true;
      w.resent = true;
    }
    for (const w of refused) w.alone = true;
    const after = ok.slice(i + 1);
    // the commit itself refused (index past the last statement): every statement ran; each goes alone
    if (failure.index >= ok.length) for (const w of before) w.alone = true;
    this.counts.resent += before.length + refused.length;
    this.waiting.unshift(...before, ...refused, ...after);
  }
}

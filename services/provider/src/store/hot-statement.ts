/**
 * A hot statement's execution without its row description (issue 25, docs/performance.md "the
 * fourth session"). pg asks PostgreSQL to describe the portal on every execution of a named
 * prepared statement (Describe, answered by a RowDescription), parses that message and builds the
 * row parsers again: ≈ 28 KiB and ≈ 3 % of the provider's CPU per dice bet, for a description that
 * cannot change. A named statement's result columns are fixed when it is prepared: PostgreSQL
 * refuses to run it with other columns ("cached plan must not change result type") rather than
 * answer another row. So the first execution on a connection describes and keeps what pg built
 * from it (the fields, their parsers, the empty row); the next ones send Bind, Execute and Sync
 * only and parse their rows with what was kept. Kept per connection: a statement is prepared per
 * connection, and a new connection prepares and describes again.
 */
import pg from 'pg';

/** What pg built from a statement's row description (pg 8: lib/result.js `addFields`). */
interface Shape {
  fields: unknown[];
  parsers: unknown[] | undefined;
  empty: object | null;
}

/** The parts of pg's Query (lib/query.js) and Result this reads and sets. */
interface PgQuery {
  name: string;
  portal: string;
  values: unknown[];
  binary: boolean | undefined;
  rows: number | undefined;
  callback: (err: Error | null, res?: unknown) => void;
  _accumulateRows: boolean;
  _result: { fields: unknown[]; _parsers: unknown[] | undefined; _prebuiltEmptyResultObject: object | null };
  hasBeenParsed(connection: object): boolean;
  handleError(err: Error, connection: object): void;
  _getRows(connection: object, rows: number | undefined): void;
  prepare(connection: object): void;
  submit(connection: object): Error | null;
  handleRowDescription(msg: unknown): void;
}

/** The parts of pg's Connection (lib/connection.js) this uses. */
interface PgConnection {
  bind(msg: { portal: string; statement: string; values: unknown[]; binary: boolean | undefined; valueMapper: unknown }): void;
  close(msg: { type: 'S'; name: string }): void;
  sync(): void;
}

/** What a batch also writes and reads on pg's Connection. */
export interface BatchConnection {
  parse(msg: { text: string; name: string; types: undefined }): void;
  describe(msg: { type: 'P'; name: string }): void;
  execute(msg: { portal: string; rows: undefined }): void;
  submittedNamedStatements: Record<string, string>;
  parsedStatements: Record<string, string>;
  stream: { cork?: () => void; uncork?: () => void; destroy?: () => void };
}

/** A statement's values as pg writes them (its `prepareValue`): throws for a value pg cannot send. */
export function mapValues(values: unknown[]): unknown[] {
  return values.map((v) => (prepareValue as (v: unknown) => unknown)(v));
}

const shapes = new WeakMap<object, Map<string, Shape>>();
const prepareValue = (pg as unknown as { utils: { prepareValue: unknown } }).utils.prepareValue;
const Base = pg.Query as unknown as new (text: string) => object;
const base = Base.prototype as PgQuery;

export class DescribedOnceQuery extends Base {
  /** The connection this query was submitted on: its row description arrives without it. */
  private connection: object | null = null;

  constructor(config: { name: string; text: string; values: unknown[] }, callback: (err: Error | null, res?: unknown) => void) {
    // The text alone, the name and values set after: given an object, pg's Query copies every
    // property descriptor of it (utils.normalizeQueryConfig → cloneQueryConfig), ≈ 0.6 % of a
    // dice bet's provider CPU for three statements (issue 25, the twelfth session).
    super(config.text);
    const q = this as unknown as PgQuery;
    q.name = config.name;
    q.values = config.values;
    q.callback = callback;
  }

  submit(connection: object): Error | null {
    this.connection = connection;
    return base.submit.call(this, connection);
  }

  /** pg's `prepare` (Parse once, Bind, Describe, Execute, Sync), without Describe once this connection has described the statement. */
  prepare(connection: PgConnection): void {
    const q = this as unknown as PgQuery;
    const shape = q.hasBeenParsed(connection) ? shapes.get(connection)?.get(q.name) : undefined;
    if (!shape) {
      base.prepare.call(this, connection);
      return;
    }
    try {
      connection.bind({ portal: q.portal, statement: q.name, values: q.values, binary: q.binary, valueMapper: prepareValue });
    } catch (err) {
      // as pg does: close the statement's half-sent use and answer the error
      connection.close({ type: 'S', name: q.name });
      connection.sync();
      q.handleError(err as Error, connection);
      return;
    }
    q._result.fields = shape.fields;
    q._result._parsers = shape.parsers;
    q._result._prebuiltEmptyResultObject = shape.empty;
    q._accumulateRows = true; // what pg's handleRowDescription sets for a query with a callback
    q._getRows(connection, q.rows);
  }

  /**
   * The statement's messages in a batch (statement-batches.ts): Parse when this connection has not
   * parsed it, Bind, Describe when it has not described it, Execute — and no Sync: the batch ends
   * with one, and its statements are one transaction. `mapped`: the values as pg sends them
   * (`mapValues`), mapped before any statement of the batch is written. Answers whether it sent
   * Parse (the batch forgets it when the backend skipped it after an earlier statement's error).
   */
  sendInBatch(connection: PgConnection & BatchConnection, mapped: unknown[]): boolean {
    const q = this as unknown as PgQuery & { text: string };
    this.connection = connection;
    const parsed = q.hasBeenParsed(connection);
    const shape = parsed ? shapes.get(connection)?.get(q.name) : undefined;
    if (!parsed) {
      connection.parse({ text: q.text, name: q.name, types: undefined });
      connection.submittedNamedStatements[q.name] = q.text;
    }
    connection.bind({ portal: q.portal, statement: q.name, values: mapped, binary: q.binary, valueMapper: undefined });
    if (shape) {
      q._result.fields = shape.fields;
      q._result._parsers = shape.parsers;
      q._result._prebuiltEmptyResultObject = shape.empty;
      q._accumulateRows = true;
    } else {
      connection.describe({ type: 'P', name: q.portal || '' });
    }
    connection.execute({ portal: q.portal, rows: undefined });
    return !parsed;
  }

  /** The first execution's description, kept for the next ones on this connection. */
  handleRowDescription(msg: unknown): void {
    base.handleRowDescription.call(this, msg);
    const q = this as unknown as PgQuery;
    if (!this.connection || !q.name) return;
    let byName = shapes.get(this.connection);
    if (!byName) shapes.set(this.connection, (byName = new Map<string, Shape>()));
    byName.set(q.name, { fields: q._result.fields, parsers: q._result._parsers, empty: q._result._prebuiltEmptyResultObject });
  }
}

/** Runs a named statement on a pg client (a connection of knex's pool) with its row description kept. */
export function queryDescribedOnce(client: { query(q: object): unknown }, q: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }> {
  return new Promise((resolve, reject) => {
    client.query(new DescribedOnceQuery(q, (err, res) => (err ? reject(err) : resolve(res as { rows: unknown[] }))));
  });
}

/**
 * Fuzzing of every operation of /openapi.json (issue 16 item 2). The operations are read from the
 * served document, so a route added later is fuzzed without touching this file. For each one,
 * fast-check generates bad input from the operation's own schema — wrong types, missing and
 * extra fields, huge and tiny numbers, too many decimals, negative and zero amounts, odd unicode
 * and control characters, `__proto__` / `constructor` keys, duplicate keys, oversized bodies, bad
 * JSON and bytes, wrong content types, bad query strings and path ids, missing and wrong
 * credentials — around a request that is otherwise valid (a real session, real round ids, the
 * operator's real values), so the bad part reaches deep. Every answer must be:
 *   - never a 500 (the one 5xx answer allowed without a wallet call is /ready's 503 NOT_READY);
 *   - 2xx, or the error envelope of CONTRACT.md §2 with a code of its list at that code's status;
 *   - when refused without a round (no `roundId` in the error): no state change — every table of
 *     the real database is unchanged (rounds, wallet_callbacks, idempotency_records, operators,
 *     seed pairs, sessions, ...), the real casino's ledger is unchanged and it got no debit,
 *     credit or rollback; refused as invalid input or credentials: no wallet call at all.
 * Every answer and every log line is searched for the secrets the run used.
 * The seed is fixed and the runs per operation are bounded (CI time about a minute).
 */
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, CRON_SECRET } from '../helpers/app.js';
import { newKey, secretOf, startWorld, type Player, type World } from '../helpers/casino.js';

/** CONTRACT.md §2: the codes an error may carry, and their statuses. */
const CONTRACT_CODES: Record<string, number> = {
  ...Object.fromEntries(
    [
      'VALIDATION_ERROR',
      'INVALID_SESSION',
      'INSUFFICIENT_FUNDS',
      'GAME_DISABLED',
      'SESSION_GAME_MISMATCH',
      'BET_OUT_OF_RANGE',
      'MAX_PAYOUT_EXCEEDED',
      'IDEMPOTENCY_REQUIRED',
      'IDEMPOTENCY_CONFLICT',
      'CURRENCY_MISMATCH',
      'UNSUPPORTED_CURRENCY',
      'WALLET_RETRY_OPERATOR_REQUIRED',
      'ROUND_NOT_FOUND',
      'ROUND_SESSION_MISMATCH',
      'ROUND_NOT_ACTIVE',
      'ACTIVE_ROUND_EXISTS',
      'ACTION_NOT_AVAILABLE',
      'TILE_ALREADY_REVEALED',
      'INVALID_GAME_PARAMS',
    ].map((c) => [c, 400]),
  ),
  ...Object.fromEntries(['UNAUTHORIZED', 'SIGNATURE_REQUIRED', 'SIGNATURE_STALE', 'SIGNATURE_REPLAYED', 'SIGNATURE_INVALID'].map((c) => [c, 401])),
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  IDEMPOTENCY_IN_PROGRESS: 409,
  RATE_LIMITED: 429,
  CASINO_HTTP_ERROR: 502,
  CASINO_HTTP_RETRYABLE: 502,
  CASINO_NETWORK_ERROR: 502,
  NOT_READY: 503,
  CASINO_TIMEOUT: 504,
};
/** Refusals that must come before any wallet call. */
const BEFORE_ANY_CALL = new Set([
  'VALIDATION_ERROR',
  'IDEMPOTENCY_REQUIRED',
  'UNAUTHORIZED',
  'SIGNATURE_REQUIRED',
  'SIGNATURE_STALE',
  'SIGNATURE_REPLAYED',
  'SIGNATURE_INVALID',
  'FORBIDDEN',
  'NOT_FOUND',
  'RATE_LIMITED',
]);

const SEED = 16_2026;
const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 35);

/* ------------------------------------------------------------------ the world */

const OP = 'op-fz';
const logLines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

let w: World;
let player: Player;
/** The sessions the fuzzing of POST /api/sessions/end may end (the fuzzer's own must live on). */
let bystander: Player;
let doc: OpenApi;
let tables: string[] = [];
const rounds: Record<'settled' | 'mines' | 'blackjack', string> = { settled: '', mines: '', blackjack: '' };
/** Responses of the run, searched for secrets at the end. */
const answers: string[] = [];
/** The request id of each fuzzed request (every answer carries its own), to find its access-log line. */
const requestIds: string[] = [];

beforeAll(async () => {
  w = await startWorld([{ operatorId: OP }], {
    env: { LOG_LEVEL: 'info' },
    logger: { stream: sink },
    requestLogging: true,
    config: { rateLimits: { authFailuresPerMinute: 1_000_000, sessionPerMinute: 1_000_000, ipPerMinute: 1_000_000, loginPerMinute: 1_000_000 } },
  });
  player = await w.player('fuzzer', { balance: '100000', launchMode: 'lobby' });
  bystander = await w.player('bystander', { launchMode: 'lobby' });
  const bet = await w.bet(player, 'dice', 1, { target: 50, direction: 'over' });
  rounds.settled = String(bet.body.roundId);
  const mines = await w.call('POST', '/api/mines/rounds', { sessionId: player.sessionId, amount: 1, idempotencyKey: newKey(), mineCount: 3 });
  rounds.mines = String(mines.body.roundId);
  // a Blackjack round that stays open (a natural ends at once)
  for (let i = 0; i < 20 && !rounds.blackjack; i++) {
    const bj = await w.call('POST', '/api/blackjack/rounds', { sessionId: player.sessionId, amount: 1, idempotencyKey: newKey() });
    if (bj.body.roundStatus === 'active') rounds.blackjack = String(bj.body.roundId);
  }
  expect(rounds.settled && rounds.mines && rounds.blackjack).toBeTruthy();
  doc = (await w.call('GET', '/openapi.json')).body as unknown as OpenApi;
  const t = await w.t.services.db.raw(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT LIKE 'knex%' ORDER BY 1`,
  );
  tables = (t.rows as { table_name: string }[]).map((r) => r.table_name);
}, 60_000);
afterAll(async () => w?.close());

/* ------------------------------------------------------------------ the document */

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  items?: Schema;
  minimum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  default?: unknown;
  $ref?: string;
}
interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  security?: Record<string, string[]>[];
}
interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}
interface Op {
  method: string;
  path: string;
  op: Operation;
}

function operations(): Op[] {
  const out: Op[] = [];
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item))
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) out.push({ method: method.toUpperCase(), path: p, op });
  }
  return out;
}

function resolve(s: Schema | undefined): Schema {
  if (!s) return {};
  if (s.$ref) return resolve(doc.components?.schemas?.[s.$ref.replace('#/components/schemas/', '')]);
  if (s.allOf?.length) return Object.assign({}, ...s.allOf.map(resolve)) as Schema;
  return s;
}

/* ------------------------------------------------------------------ valid values, by name or from the schema */

const serverSeed = 'a'.repeat(64);

/** The known good value of a field (by name), in the context of an operation. */
function good(name: string, o: Op): unknown {
  const roundOf = o.path.includes('/mines/') ? rounds.mines : o.path.includes('/blackjack/') ? rounds.blackjack : rounds.settled;
  const ending = o.op.operationId === 'endSessions';
  const known: Record<string, unknown> = {
    sessionId: ending ? bystander.sessionId : player.sessionId,
    launchToken: player.launchToken,
    operatorId: OP,
    playerRef: ending ? 'bystander' : 'fuzzer',
    roundId: roundOf,
    gameType: o.path.includes('/verify') ? 'dice' : 'dice',
    launchMode: 'lobby',
    amount: 1,
    currency: 'USD',
    tile: 7,
    mineCount: 3,
    action: 'stand',
    takeInsurance: false,
    limit: 10,
    serverSeed,
    serverSeedHash: createHash('sha256').update(serverSeed).digest('hex'),
    clientSeed: 'fuzz-seed',
    nonce: 0,
    params: { target: 50, direction: 'over' },
    sharedSecret: secretOf(OP),
    callbackBaseUrl: w.casino.url,
    minBet: 0.1,
    stakeStep: 0.01,
    maxPayout: 10_000,
    idempotencyKey: newKey('fz'),
  };
  return known[name];
}

function fromSchema(s0: Schema | undefined): unknown {
  const s = resolve(s0);
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  if (s.default !== undefined) return s.default;
  const alts = s.anyOf ?? s.oneOf;
  if (alts?.length) return fromSchema(alts.find((a) => resolve(a).type !== 'null') ?? alts[0]);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'string':
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return Object.fromEntries((s.required ?? []).map((k) => [k, fromSchema(s.properties?.[k])]));
    default:
      return null;
  }
}

const valueFor = (name: string, schema: Schema | undefined, o: Op) => good(name, o) ?? fromSchema(schema);

/* ------------------------------------------------------------------ bad values (raw JSON text) */

const ODD_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\u0007\u001b[31m',
  'line\nbreak\r\n',
  '\t',
  '\u202egnp.exe',
  '\ufeffBOM',
  '\u200b',
  '\ud800',
  '\udfff',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'e\u0301',
  '\uffff',
  '',
  ' ',
  '%00',
  '../../etc/passwd',
  "' OR 1=1 --",
  '${7*7}',
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  'x'.repeat(129),
  'x'.repeat(201),
  'x'.repeat(5000),
  '1e400',
  'NaN',
  '-0',
  '0x10',
  '1,5',
];
const ODD_NUMBERS = [
  '1e400',
  '-1e400',
  '1e-400',
  '5e-324',
  '1.7976931348623157e308',
  '-0',
  '0',
  '-1',
  '-0.01',
  '0.001',
  '0.123456789',
  '1.000000001',
  '1.005',
  '9007199254740993',
  '123456789012345678901234567890',
  '1E2',
  '-0.0',
  '0.1e1',
  '100000000000000000000000.5',
  '1e21',
  '2e-9',
];
const str = (v: string) => JSON.stringify(v);
const badValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...ODD_NUMBERS),
  fc.constantFrom(...ODD_STRINGS).map(str),
  fc.string({ unit: 'binary', maxLength: 30 }).map(str),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => String(d)),
  fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map(String),
  fc.tuple(fc.integer({ min: -1000, max: 1_000_000 }), fc.stringMatching(/^[0-9]{3,12}$/)).map(([a, b]) => `${a}.${b}`),
  fc.constantFrom(
    'true',
    'false',
    'null',
    '[]',
    '{}',
    '[1,2]',
    '[null]',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '"1"',
    '"true"',
  ),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? 'null'),
);
const extraKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'isAdmin', 'roundId', 'status', 'payout'),
  fc.string({ maxLength: 12 }),
);

const BAD_JSON = [
  '{',
  '{"a":',
  '[',
  'nul',
  '{"a":1,}',
  "{'a':1}",
  'NaN',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":-Infinity}',
  '\u0000',
  '',
  ' ',
  '{"a":1}{"b":2}',
  '{"a":"\\u00"}',
  '{"a":"\\x41"}',
  '/*c*/{}',
  '{"a":01}',
  '{"a":.5}',
  '{"a":+1}',
  '\ufeff{}',
];
const NON_OBJECTS = ['[]', '"s"', '1', 'null', 'true', '[{}]', '1e400'];
const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/octet-stream',
  'application/json-patch+json',
  'text/json',
  'image/png',
  '*/*',
  'application/json; charset=utf-16',
  'application',
];

const BAD_QUERY = [
  '%',
  '%zz',
  '%00',
  'a%00b',
  '%07',
  '%0A',
  '%C0%AF',
  '%FF',
  '%E2%80%AE',
  '%F0%9D%94%98',
  '',
  '+',
  '%20',
  '-1',
  '0',
  '1e2',
  '0x10',
  '5.0',
  '99999999999999999999',
  '[object Object]',
  'x'.repeat(3000),
  '2026-13-45T00:00:00Z',
  'null',
  'true',
  '%5B%5D',
  '..%2F..',
];
const badQueryValue = fc.oneof(fc.constantFrom(...BAD_QUERY), fc.string({ unit: 'binary', maxLength: 20 }).map(encodeURIComponent), fc.double().map(String));
const BAD_PATH = [
  '%00',
  'a%00b',
  '%2F',
  '..',
  '%2e%2e',
  '%C0%AF',
  '%FF',
  '%E2%80%AE',
  'x'.repeat(201),
  'x'.repeat(3000),
  '-1',
  '0',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  '%20',
  'a%20b',
  '%3F',
  '%23',
];
const badPathValue = fc.oneof(
  fc.constantFrom(...BAD_PATH),
  fc.uuid().map(String),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).map(encodeURIComponent),
);

/* ------------------------------------------------------------------ a request, and its mutations */

interface Req {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  what: string;
}

type Entries = [string, string][]; // [key, raw JSON value]
const objectText = (e: Entries) => `{${e.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;

function authHeaders(o: Op): Record<string, string> {
  const schemes = new Set((o.op.security ?? []).flatMap((s) => Object.keys(s)));
  if (schemes.has('adminToken')) return { authorization: `Bearer ${ADMIN_TOKEN}` };
  if (schemes.has('cronSecret')) return { authorization: `Bearer ${CRON_SECRET}` };
  return {};
}

function bodySchema(o: Op): Schema | null {
  const c = o.op.requestBody?.content;
  if (!c) return null;
  return resolve((c['application/json'] ?? Object.values(c)[0])?.schema);
}

/** The operation's request with valid values, as parts that a mutation changes. */
function base(o: Op) {
  const params = o.op.parameters ?? [];
  const pathParams = Object.fromEntries(params.filter((p) => p.in === 'path').map((p) => [p.name, encodeURIComponent(String(valueFor(p.name, p.schema, o)))]));
  if (o.path.endsWith('/{action}')) pathParams.action = 'stand';
  const query: [string, string][] = params
    .filter((p) => p.in === 'query' && (p.required || good(p.name, o) !== undefined))
    .map((p) => [p.name, encodeURIComponent(String(valueFor(p.name, p.schema, o)))]);
  const schema = bodySchema(o);
  const props = schema?.properties ?? {};
  const body: Entries | null = schema
    ? Object.keys(props)
        .filter((k) => (schema.required ?? []).includes(k) || good(k, o) !== undefined)
        .map((k) => [k, JSON.stringify(valueFor(k, props[k], o))])
    : null;
  return { pathParams, query, body, headers: authHeaders(o) };
}

function build(o: Op, b: ReturnType<typeof base>, what: string, extra: { contentType?: string; payload?: string | Buffer; rawQuery?: string } = {}): Req {
  const url = o.path.replace(/\{([^}]+)\}/g, (_m, n: string) => b.pathParams[n] ?? 'x');
  const qs = extra.rawQuery ?? b.query.map(([k, v]) => `${k}=${v}`).join('&');
  const payload = extra.payload ?? (b.body ? objectText(b.body) : undefined);
  const headers = { ...b.headers, ...(payload !== undefined ? { 'content-type': extra.contentType ?? 'application/json' } : {}) };
  return { method: o.method, url: qs ? `${url}?${qs}` : url, headers, ...(payload !== undefined ? { payload } : {}), what };
}

/** Bad input for one operation, generated from its schema. */
function mutations(o: Op): fc.Arbitrary<Req> {
  const params = o.op.parameters ?? [];
  const queryParams = params.filter((p) => p.in === 'query');
  const pathParams = params.filter((p) => p.in === 'path');
  const schema = bodySchema(o);
  const bodyKeys = Object.keys(schema?.properties ?? {});
  const required = schema?.required ?? [];
  const arbs: fc.Arbitrary<Req>[] = [];
  const mk = (what: string, f: (b: ReturnType<typeof base>) => Parameters<typeof build>[3] | void) =>
    fc.constant(null).map(() => {
      const b = base(o);
      const extra = f(b) ?? {};
      return build(o, b, what, extra);
    });

  if (schema) {
    // a field of the body (or of its params) gets a bad value
    const nested = bodyKeys.includes('params')
      ? [
          'params.target',
          'params.direction',
          'params.rows',
          'params.risk',
          'params.picks',
          'params.mineCount',
          'params.revealed',
          'params.actions',
          'params.__proto__',
        ]
      : [];
    arbs.push(
      fc.tuple(fc.constantFrom(...bodyKeys, ...nested), badValue).chain(([field, v]) =>
        mk(`body.${field} = ${v.slice(0, 60)}`, (b) => {
          if (field.startsWith('params.')) {
            const sub = field.slice(7);
            const entries = Object.entries(good('params', o) as Record<string, unknown>)
              .filter(([k]) => k !== sub)
              .map(([k, x]) => [k, JSON.stringify(x)] as [string, string]);
            b.body = [...b.body!.filter(([k]) => k !== 'params'), ['params', objectText([...entries, [sub, v]])]];
          } else b.body = [...b.body!.filter(([k]) => k !== field), [field, v]];
        }),
      ),
    );
    // money: negative, zero, tiny, huge, too many decimals
    if (bodyKeys.includes('amount'))
      arbs.push(
        fc
          .constantFrom(...ODD_NUMBERS, '-1', '0', '0.001', '0.015', '1e-8', '99999999999999999')
          .chain((v) => mk(`amount ${v}`, (b) => void (b.body = [...b.body!.filter(([k]) => k !== 'amount'), ['amount', v]]))),
      );
    if (required.length)
      arbs.push(fc.constantFrom(...required).chain((field) => mk(`without ${field}`, (b) => void (b.body = b.body!.filter(([k]) => k !== field)))));
    arbs.push(fc.tuple(extraKey, badValue).chain(([k, v]) => mk(`extra ${JSON.stringify(k)}: ${v.slice(0, 40)}`, (b) => void b.body!.push([k, v]))));
    arbs.push(fc.tuple(fc.constantFrom(...bodyKeys), badValue).chain(([k, v]) => mk(`duplicate ${k}`, (b) => void b.body!.push([k, v]))));
    arbs.push(fc.constantFrom(...BAD_JSON, ...NON_OBJECTS).chain((t) => mk(`body ${JSON.stringify(t).slice(0, 40)}`, () => ({ payload: t }))));
    arbs.push(
      fc
        .nat({ max: 200 })
        .chain((cut) => mk(`truncated body at ${cut}`, (b) => ({ payload: objectText(b.body!).slice(0, cut % Math.max(1, objectText(b.body!).length)) }))),
    );
    arbs.push(fc.integer({ min: 65 * 1024, max: 200 * 1024 }).chain((n) => mk(`${n}-byte body`, (b) => void b.body!.push(['padding', str('y'.repeat(n))]))));
    arbs.push(fc.integer({ min: 100, max: 3000 }).chain((n) => mk(`nested ${n} deep`, (b) => void b.body!.push(['deep', `${'['.repeat(n)}${']'.repeat(n)}`]))));
    arbs.push(
      fc
        .constantFrom(Buffer.from([0xff, 0xfe, 0x7b, 0x7d]), Buffer.from('{"sessionId":"\xff\xc0"}', 'latin1'), Buffer.from([0xc3, 0x28]))
        .chain((buf) => mk('bytes that are not UTF-8', () => ({ payload: buf }))),
    );
    arbs.push(fc.constantFrom(...CONTENT_TYPES).chain((ct) => mk(`content-type ${ct}`, () => ({ contentType: ct }))));
  } else if (o.method !== 'GET') {
    arbs.push(fc.constantFrom(...BAD_JSON).chain((t) => mk(`unexpected body ${JSON.stringify(t)}`, () => ({ payload: t }))));
  }
  if (o.method === 'GET') arbs.push(fc.constantFrom('{}', '{"a":', 'x'.repeat(70 * 1024)).chain((t) => mk('a GET with a body', () => ({ payload: t }))));

  // query strings
  if (queryParams.length) {
    arbs.push(
      fc
        .tuple(fc.constantFrom(...queryParams.map((p) => p.name)), badQueryValue)
        .chain(([name, v]) => mk(`?${name}=${v.slice(0, 40)}`, (b) => void (b.query = [...b.query.filter(([k]) => k !== name), [name, v]]))),
    );
    arbs.push(
      fc
        .tuple(fc.constantFrom(...queryParams.map((p) => p.name)), badQueryValue)
        .chain(([name, v]) => mk(`?${name} twice`, (b) => void b.query.push([name, v]))),
    );
    arbs.push(
      fc
        .constantFrom(...queryParams.map((p) => p.name))
        .chain((name) => mk(`?${name}[]`, (b) => void (b.query = [...b.query.filter(([k]) => k !== name), [`${name}[]`, '1'], [`${name}[a]`, '2']]))),
    );
    const req = queryParams.filter((p) => p.required).map((p) => p.name);
    if (req.length) arbs.push(fc.constantFrom(...req).chain((name) => mk(`without ?${name}`, (b) => void (b.query = b.query.filter(([k]) => k !== name)))));
  }
  arbs.push(
    fc
      .constantFrom('__proto__[polluted]=1', 'constructor[prototype][x]=1', '&&&', '=', '%', '%zz=1', 'a', `${'x=1&'.repeat(2000)}`, 'a=%00', '__proto__=1')
      .chain((q) => mk(`raw query ${q.slice(0, 30)}`, (b) => ({ rawQuery: [...b.query.map(([k, v]) => `${k}=${v}`), q].join('&') }))),
  );

  // path ids
  if (pathParams.length) {
    arbs.push(
      fc
        .tuple(fc.constantFrom(...pathParams.map((p) => p.name)), badPathValue)
        .chain(([name, v]) => mk(`{${name}} = ${v.slice(0, 40)}`, (b) => void (b.pathParams[name] = v))),
    );
  }

  // credentials
  if ((o.op.security ?? []).some((s) => Object.keys(s).length > 0)) {
    const wrong = [
      {},
      { authorization: 'Bearer wrong-token-0123456789' },
      { authorization: `Basic ${ADMIN_TOKEN}` },
      { authorization: `Bearer ${ADMIN_TOKEN}x` },
      { authorization: `Bearer ${CRON_SECRET} ` },
      { authorization: 'Bearer' },
      { 'x-operator-id': OP, 'x-timestamp': '1', 'x-nonce': 'n'.repeat(20), 'x-signature': 'a'.repeat(64) },
      { 'x-operator-id': OP },
    ];
    arbs.push(
      fc.constantFrom(...wrong).chain((h) => mk(`credentials ${JSON.stringify(h).slice(0, 50)}`, (b) => void (b.headers = h as Record<string, string>))),
    );
  }
  return fc.oneof(...arbs);
}

/* ------------------------------------------------------------------ the state a refusal must not change */

interface State {
  tables: Record<string, string>;
  ledger: number;
  moneyCalls: number;
  calls: number;
}

async function state(): Promise<State> {
  // A session's `last_seen_at` is the idle clock (issue 23): any request of the session may move it
  // (at most once a minute), a refused one too. It is bookkeeping, not state a refusal could corrupt.
  const sql = `SELECT ${tables.map((t) => `(SELECT md5(coalesce(string_agg((to_jsonb(x) - 'last_seen_at')::text, '|' ORDER BY (to_jsonb(x) - 'last_seen_at')::text), '')) FROM "${t}" x) AS "${t}"`).join(', ')}`;
  const res = await w.t.services.db.raw(sql);
  const requests = w.casino.requests();
  return {
    tables: res.rows[0] as Record<string, string>,
    ledger: w.casino.transactions().length,
    moneyCalls: requests.filter((r) => ['/wallet/debit', '/wallet/credit', '/wallet/rollback'].includes(r.path)).length,
    calls: requests.length,
  };
}

/* ------------------------------------------------------------------ the property */

/** The state after the last request (a refusal must leave it as it is; an accepted request moves it on). */
let current: State | null = null;
const seen = { requests: 0, refused: 0, accepted: 0, codes: new Map<string, number>(), operations: 0 };

async function check(o: Op, req: Req): Promise<void> {
  const before = (current ??= await state());
  const res = await w.t.app.inject({
    method: req.method as 'GET',
    url: req.url,
    headers: req.headers,
    ...(req.payload !== undefined ? { payload: req.payload } : {}),
  });
  seen.requests += 1;
  answers.push(res.body);
  requestIds.push(String(res.headers['x-request-id']));
  const what = `${req.method} ${req.url.slice(0, 120)} [${req.what}] → ${res.statusCode} ${res.body.slice(0, 300)}`;
  expect(res.statusCode, what).not.toBe(500);
  if (res.statusCode < 400) {
    expect(res.statusCode, what).toBeLessThan(300);
    seen.accepted += 1;
    current = null;
    return;
  }
  seen.refused += 1;
  let body: { statusCode?: number; error?: string; code?: string; message?: string; roundId?: string };
  try {
    body = res.json();
  } catch {
    throw new Error(`not JSON: ${what}`);
  }
  expect(Object.keys(CONTRACT_CODES), what).toContain(body.code);
  seen.codes.set(body.code!, (seen.codes.get(body.code!) ?? 0) + 1);
  expect(CONTRACT_CODES[body.code!], what).toBe(res.statusCode);
  expect(body.statusCode, what).toBe(res.statusCode);
  expect(typeof body.error, what).toBe('string');
  expect(typeof body.message, what).toBe('string');
  if (res.statusCode >= 500 && !(body.code === 'NOT_READY' && o.path === '/ready')) {
    // a casino failure (502/504 CASINO_*) is an answer only when the request did call the casino
    expect(body.code!.startsWith('CASINO_') && w.casino.requests().length > before.calls, `a 5xx without a wallet call: ${what}`).toBe(true);
  }
  if (body.roundId) {
    current = null;
    return; // the request reached the wallet: its round answers from now on (CONTRACT.md §13)
  }
  const after = await state();
  current = after;
  expect(after.tables, `a refusal changed the database: ${what}`).toEqual(before.tables);
  expect(after.ledger, `a refusal moved money at the casino: ${what}`).toBe(before.ledger);
  expect(after.moneyCalls, `a refusal called the casino's money paths: ${what}`).toBe(before.moneyCalls);
  if (BEFORE_ANY_CALL.has(body.code!)) expect(after.calls, `a ${body.code} called the casino: ${what}`).toBe(before.calls);
}

describe('fuzzing every operation of /openapi.json from its own schema', () => {
  it('lists the operations it fuzzes (every one of the document, new routes included)', () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(20);
    for (const id of [
      'placeBet',
      'startMines',
      'revealMinesTile',
      'blackjackAction',
      'putOperator',
      'walletRetries',
      'getReconciliation',
      'createSession',
      'verify',
    ]) {
      expect(ops.map((o) => o.op.operationId)).toContain(id);
    }
  });

  it('never answers 500, always a CONTRACT.md code in the envelope, and a refusal changes nothing (database, casino ledger, wallet calls)', async () => {
    for (const o of operations()) {
      seen.operations += 1;
      await fc.assert(
        fc.asyncProperty(mutations(o), (req) => check(o, req)),
        { seed: SEED + seen.operations, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
      );
    }
    console.log(
      `fuzz: ${seen.operations} operations, ${seen.requests} requests, ${seen.accepted} accepted, ${seen.refused} refused: ${[...seen.codes].map(([c, n]) => `${c} ${n}`).join(', ')}`,
    );
    expect(seen.refused).toBeGreaterThan(seen.operations * RUNS_PER_OPERATION * 0.6);
    // the refusals were spread over the catalogue, not only the schema check
    expect([...seen.codes.keys()]).toEqual(expect.arrayContaining(['VALIDATION_ERROR', 'UNAUTHORIZED']));
  }, 600_000); // a bound for a machine under load, not a timing: about a minute on a quiet one

  it('regressions it found stay fixed (each answered 500 before its fix)', async () => {
    const op = (id: string) => operations().find((o) => o.op.operationId === id)!;
    const cases: [Op, string][] = [
      // an amount too large for the NUMERIC(40, 0) column: Mines has no payout pre-check, so it reached the INSERT
      [op('startMines'), `{"sessionId":"${player.sessionId}","amount":1e300,"idempotencyKey":"${newKey()}","mineCount":3}`],
      [op('startMines'), `{"sessionId":"${player.sessionId}","amount":1.7976931348623157e308,"idempotencyKey":"${newKey()}"}`],
      [
        op('putOperator'),
        `{"currency":"USD","callbackBaseUrl":"${w.casino.url}","sharedSecret":"${secretOf(OP)}","minBet":0.1,"stakeStep":0.01,"maxPayout":1e300}`,
      ],
    ];
    for (const [o, payload] of cases) {
      const req: Req = {
        method: o.method,
        url: o.path.replace('{operatorId}', OP),
        headers: { ...authHeaders(o), 'content-type': 'application/json' },
        payload,
        what: 'regression',
      };
      await check(o, req);
      const res = await w.t.app.inject({ method: req.method as 'POST', url: req.url, headers: req.headers, payload });
      expect(res.json().code, payload).toBe('VALIDATION_ERROR');
    }
  });

  it('no answer and no log line of the run holds a secret, a launch token or a session cookie', () => {
    const secrets = [ADMIN_TOKEN, CRON_SECRET, secretOf(OP), player.launchToken];
    for (const s of secrets) {
      expect(
        answers.some((a) => a.includes(s)),
        `an answer holds ${s.slice(0, 6)}…`,
      ).toBe(false);
      expect(
        logLines.some((l) => l.includes(s)),
        `a log line holds ${s.slice(0, 6)}…`,
      ).toBe(false);
    }
    // the scan is not vacuous: every fuzzed request wrote its one access line, the router's refusals
    // (bad percent-encodings) too; counted by request id, so the setup's and the background jobs'
    // lines (their number depends on timing) do not matter
    const accessLines = new Map<string, number>();
    for (const l of logLines) {
      const line = JSON.parse(l) as { msg?: string; reqId?: string };
      if (line.reqId && (line.msg === 'request completed' || line.msg === 'request errored'))
        accessLines.set(line.reqId, (accessLines.get(line.reqId) ?? 0) + 1);
    }
    expect(requestIds.length).toBe(seen.requests);
    expect(requestIds.filter((id) => accessLines.get(id) !== 1)).toEqual([]);
  });
});

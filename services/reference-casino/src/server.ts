/**
 * The HTTP side of the reference casino: the five signed wallet endpoints (under any path
 * prefix), fault injection, and an unsigned control API under /_control for tests and demos.
 * Binds 127.0.0.1 only by default: the control API has no authentication.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { LosslessNumber, isLosslessNumber, isSafeNumber, parse, stringify } from 'lossless-json';
import { createFaults, type FaultAction, type FaultRule, type FaultState } from './faults.js';
import {
  createLedger,
  jsonAmount,
  SPEC_DECIMALS,
  WalletError,
  type CreatePlayerInput,
  type LaunchTokenOptions,
  type Operator,
  type OperatorConfig,
  type Transaction,
  type WalletAnswer,
  type ResponsibleGamingSettings,
  validateResponsibleGaming,
} from './ledger.js';
import { RACE_WINDOW_MS, validateMisbehaviours, type Misbehaviours } from './misbehaviours.js';
import { createNonceStore, verifySignedRequest } from './signature.js';

export interface ReferenceCasinoOptions {
  /** operatorId → shared secret, currency and its decimals. */
  operators: Record<string, OperatorConfig>;
  /** Default 0 (a free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Allowed |now − X-Timestamp| in seconds; default 300. */
  clockSkewSeconds?: number;
  /** Milliseconds since the epoch; default Date.now. Drives the skew check and transaction times. */
  now?: () => number;
  /** Seed of the fault RNG when `setFaults` is given none; default 1. */
  faultSeed?: number;
  /** Wallet bugs to switch on (misbehaviours.ts); none by default. */
  misbehaviours?: Misbehaviours;
}

export interface RequestLogEntry {
  /** ISO 8601 UTC, when the request was answered (or dropped). */
  time: string;
  /** ISO 8601 UTC, when the request arrived (with `time`: how long it was in the casino's hands). */
  receivedAt: string;
  method: string;
  /** Interface path (`/wallet/debit`). */
  path: string;
  /** The callback base's path prefix the request came under ('' for none). */
  prefix: string;
  operatorId?: string;
  idempotencyKey?: string;
  /** Status code sent; null when the socket was destroyed without an answer. */
  status: number | null;
  /** `code` of the answer body, when it had one. */
  code?: string;
  /** The fault that hit this request. */
  fault?: FaultAction['kind'];
}

export interface ReferenceCasino {
  /** `http://127.0.0.1:PORT`, no trailing slash. Use it (or it plus any prefix) as callbackBaseUrl. */
  url: string;
  port: number;
  close(): Promise<void>;
  /** Creates the player or sets its wallet in `currency`. */
  createPlayer(input: CreatePlayerInput): { playerRef: string; displayName: string; currency: string; balance: bigint };
  issueLaunchToken(playerRef: string, options?: LaunchTokenOptions): string;
  /** Makes validate-session report another currency for the token (undefined restores the default). */
  setTokenCurrency(token: string, currency: string | undefined): void;
  revokeLaunchToken(token: string): void;
  /** A player's (or one launch token's) jurisdiction and refusals with messages (issue 27); merged over what was set. */
  setResponsibleGaming(target: { playerRef: string } | { launchToken: string }, settings: ResponsibleGamingSettings): ResponsibleGamingSettings;
  /** Registers a free-bet campaign id (docs/free-bets.md): once an operator has one, free-bet credits must name a registered campaign. */
  addFreeBetCampaign(operatorId: string, campaignId: string): void;
  transactions(): Transaction[];
  balanceOf(playerRef: string, currency?: string): bigint;
  requests(): RequestLogEntry[];
  clearRequests(): void;
  setFaults(rules: FaultRule[], seed?: number): void;
  clearFaults(): void;
  faults(): FaultState[];
  /** Replaces the switched-on misbehaviours (`{}` switches all off). */
  setMisbehaviours(misbehaviours: Misbehaviours): void;
  misbehaviours(): Misbehaviours;
}

const WALLET_PATH = /^(.*?)(\/wallet\/(?:validate-session|balance|debit|credit|rollback))$/;
const MONEY_PATHS = new Set(['/wallet/debit', '/wallet/credit', '/wallet/rollback']);
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,128}$/;
const MAX_BODY_BYTES = 64 * 1024;

export async function startReferenceCasino(options: ReferenceCasinoOptions): Promise<ReferenceCasino> {
  const now = options.now ?? Date.now;
  const skew = options.clockSkewSeconds ?? 300;
  const operators = new Map<string, Operator>();
  const currencyDecimals = new Map<string, number>();
  for (const [operatorId, cfg] of Object.entries(options.operators)) {
    if (!cfg.secret || !cfg.currency || !Number.isInteger(cfg.decimals) || cfg.decimals < 0 || cfg.decimals > 18) {
      throw new Error(`operator ${operatorId}: secret, currency and decimals (0..18) are required`);
    }
    const known = currencyDecimals.get(cfg.currency);
    if (known !== undefined && known !== cfg.decimals) throw new Error(`${cfg.currency} is configured with ${known} and ${cfg.decimals} decimals`);
    currencyDecimals.set(cfg.currency, cfg.decimals);
    operators.set(operatorId, { operatorId, ...cfg });
  }
  const decimalsOf = (currency: string): number => {
    const d = currencyDecimals.get(currency) ?? SPEC_DECIMALS[currency];
    if (d === undefined) throw new Error(`unknown currency ${currency}`);
    return d;
  };

  let bugs: Misbehaviours = validateMisbehaviours(options.misbehaviours ?? {});
  const ledger = createLedger({ decimalsOf, now, misbehaviours: () => bugs });
  const faults = createFaults(options.faultSeed ?? 1);
  const nonces = createNonceStore(skew);
  const log: RequestLogEntry[] = [];
  const closing = new AbortController();

  // ------------------------------------------------------------ wallet endpoints

  function runOperation(op: Operator, path: string, key: string, rawBody: Buffer, o: { skipKeyLookup?: boolean } = {}): WalletAnswer {
    try {
      let body: unknown;
      try {
        body = parse(rawBody.toString('utf8'));
      } catch {
        throw new WalletError(400, 'VALIDATION_ERROR', 'body is not valid JSON');
      }
      switch (path) {
        case '/wallet/validate-session':
          return ledger.validateSession(op, body);
        case '/wallet/balance':
          return ledger.balance(op, body);
        case '/wallet/debit':
          return ledger.debit(op, key, body, o);
        case '/wallet/credit':
          return ledger.credit(op, key, body, o);
        default:
          return ledger.rollback(op, key, body, o);
      }
    } catch (err) {
      if (err instanceof WalletError) return { status: err.status, body: { code: err.code, message: err.message } };
      console.error('reference-casino: unexpected error', err);
      return { status: 500, body: { code: 'INTERNAL_ERROR', message: 'unexpected error' } };
    }
  }

  /** The default size of a `huge` fault's answer: 60 MB. */
  const HUGE_DEFAULT_BYTES = 60 * 1024 * 1024;

  async function wallet(req: IncomingMessage, res: ServerResponse, prefix: string, path: string): Promise<void> {
    const entry: RequestLogEntry = { time: '', receivedAt: new Date(now()).toISOString(), method: req.method ?? '', path, prefix, status: null };
    const answer = (status: number, body: Record<string, unknown>) => {
      entry.status = status;
      if (typeof body['code'] === 'string') entry.code = body['code'];
      finish();
      send(res, status, body);
    };
    const drop = () => {
      finish();
      req.socket.destroy();
    };
    // A hostile wallet's answer: `{"pad":"xxxx…"}` of `bytes` bytes, written as fast as the reader
    // takes it (backpressure respected), stopped when the reader hangs up.
    const huge = async (bytes: number, chunked: boolean) => {
      entry.status = 200;
      finish();
      res.writeHead(200, { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': String(bytes) }) });
      const head = '{"pad":"';
      const tail = '"}';
      let left = bytes - head.length - tail.length;
      if (left < 0) return void res.end('{}');
      res.write(head);
      const block = Buffer.alloc(64 * 1024, 'x');
      while (left > 0 && !res.destroyed) {
        const n = Math.min(left, block.length);
        left -= n;
        if (!res.write(n === block.length ? block : block.subarray(0, n))) {
          await new Promise<void>((resolve) => {
            res.once('drain', resolve);
            res.once('close', resolve);
          });
        }
      }
      if (!res.destroyed) res.end(tail);
    };
    const finish = () => {
      entry.time = new Date(now()).toISOString();
      log.push(entry);
    };

    if (req.method !== 'POST') return answer(405, { code: 'METHOD_NOT_ALLOWED', message: 'wallet endpoints take POST' });
    const rawBody = await readBody(req);
    if (!rawBody) return answer(400, { code: 'VALIDATION_ERROR', message: `body over ${MAX_BODY_BYTES} bytes` });

    const slow = bugs['slow-answers'];
    if (slow) {
      try {
        await sleep(slow, undefined, { signal: closing.signal });
      } catch {
        return drop();
      }
    }

    const verified = verifySignedRequest(
      { method: 'POST', path, headers: req.headers, rawBody },
      (id) => operators.get(id)?.secret,
      nonces,
      Math.floor(now() / 1000),
      skew,
      {
        acceptStale: bugs['accept-stale-timestamp'] === true,
        acceptReusedNonce: bugs['accept-reused-nonce'] === true,
        acceptBadSignature: bugs['accept-bad-signature'] === true,
      },
    );
    const claimedOperator = req.headers['x-operator-id'];
    if (typeof claimedOperator === 'string' && claimedOperator) entry.operatorId = claimedOperator;
    if (!verified.ok) return answer(401, { code: verified.code, message: verified.message });
    const op = operators.get(verified.operatorId)!;

    const key = req.headers['x-idempotency-key'];
    if (typeof key === 'string' && key) entry.idempotencyKey = key;
    if (MONEY_PATHS.has(path)) {
      if (typeof key !== 'string' || key === '') return answer(400, { code: 'IDEMPOTENCY_REQUIRED', message: 'X-Idempotency-Key is required' });
      if (!IDEMPOTENCY_KEY.test(key)) return answer(400, { code: 'VALIDATION_ERROR', message: 'X-Idempotency-Key must be 1..128 printable ASCII characters' });
    }

    const fault = faults.pick(path, op.operatorId);
    if (fault) entry.fault = fault.kind;
    switch (fault?.kind) {
      case 'drop':
        return drop();
      case 'status':
        return answer(fault.status, { code: fault.code ?? (fault.status === 429 ? 'RATE_LIMITED' : 'CASINO_UNAVAILABLE'), message: 'injected fault' });
      case 'refuse':
        // `message` only when the rule gives one: the provider shows a refusal's message to the player (issue 27)
        return answer(fault.status ?? 400, { code: fault.code, ...(fault.message !== undefined ? { message: fault.message } : {}) });
      case 'delay':
      case 'delay-then-drop':
        try {
          await sleep(fault.ms, undefined, { signal: closing.signal });
        } catch {
          return drop(); // the casino is shutting down
        }
        if (fault.kind === 'delay-then-drop') return drop();
    }

    // misbehaviour racy-idempotency: the key is looked up on arrival, the request applied later
    let skipKeyLookup = false;
    if (bugs['racy-idempotency'] && MONEY_PATHS.has(path) && !ledger.knowsKey(op, key as string)) {
      await sleep(RACE_WINDOW_MS);
      skipKeyLookup = true;
    }
    if (fault?.kind === 'huge' && !fault.applied) return huge(fault.bytes ?? HUGE_DEFAULT_BYTES, fault.chunked === true);
    const result = runOperation(op, path, typeof key === 'string' ? key : '', rawBody, { skipKeyLookup });
    if (fault?.kind === 'huge') return huge(fault.bytes ?? HUGE_DEFAULT_BYTES, fault.chunked === true);
    if (fault?.kind === 'ambiguous') {
      if (fault.mode === 'drop') return drop();
      if (fault.mode === 'late') {
        // applied now, the real answer only after `ms` (a caller with a shorter timeout never sees it)
        try {
          await sleep(fault.ms ?? 0, undefined, { signal: closing.signal });
        } catch {
          return drop();
        }
        return answer(result.status, result.body);
      }
      return answer(fault.status ?? 500, { code: 'INTERNAL_ERROR', message: 'injected fault (the request was applied)' });
    }
    return answer(result.status, misbehavingAnswer(path, result));
  }

  /** The answer as a misbehaving casino writes it (unchanged unless such a misbehaviour is on). */
  function misbehavingAnswer(path: string, result: WalletAnswer): Record<string, unknown> {
    if (result.status !== 200 || path === '/wallet/validate-session') return result.body;
    const body = { ...result.body };
    if (bugs['answer-other-currency'] && typeof body['currency'] === 'string') body['currency'] = body['currency'] === 'EUR' ? 'USD' : 'EUR';
    if (bugs['amounts-as-strings'] && isLosslessNumber(body['balance'])) body['balance'] = body['balance'].value;
    return body;
  }

  // ------------------------------------------------------------ control API

  const amountOut = (minor: bigint, currency: string) => jsonAmount(minor, decimalsOf(currency));

  async function control(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const route = `${req.method} ${url.pathname}`;
    const cors = {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, POST, PUT, DELETE, OPTIONS',
      'access-control-allow-headers': 'content-type',
    };
    const reply = (status: number, body: unknown) => send(res, status, body, cors);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors).end();
      return;
    }
    try {
      const body = req.method === 'POST' || req.method === 'PUT' ? controlBody(await readBody(req)) : {};
      const balanceMatch = /^GET \/_control\/balance\/([^/]+)$/.exec(route);
      if (balanceMatch) {
        const playerRef = decodeURIComponent(balanceMatch[1]!);
        const currency = url.searchParams.get('currency') ?? ledger.walletsOf(playerRef).keys().next().value;
        if (currency === undefined) return reply(404, { code: 'NOT_FOUND', message: `unknown player ${playerRef}` });
        return reply(200, { playerRef, currency, balance: amountOut(ledger.balanceOf(playerRef, currency), currency) });
      }
      switch (route) {
        case 'POST /_control/players': {
          const balance = body['balance'];
          const p = ledger.createPlayer({
            playerRef: text(body, 'playerRef'),
            currency: text(body, 'currency'),
            balance: isLosslessNumber(balance) ? balance.value : typeof balance === 'number' || typeof balance === 'string' ? String(balance) : '',
            ...(body['displayName'] !== undefined ? { displayName: text(body, 'displayName') } : {}),
            ...(body['responsibleGaming'] !== undefined ? { responsibleGaming: validateResponsibleGaming(body['responsibleGaming']) } : {}),
          });
          return reply(201, { ...p, balance: amountOut(p.balance, p.currency) });
        }
        case 'POST /_control/launch-tokens': {
          const opts: LaunchTokenOptions = {};
          if (body['currency'] !== undefined) opts.currency = text(body, 'currency');
          if (body['operatorId'] !== undefined) opts.operatorId = text(body, 'operatorId');
          if (body['responsibleGaming'] !== undefined) opts.responsibleGaming = validateResponsibleGaming(body['responsibleGaming']);
          return reply(201, { launchToken: ledger.issueLaunchToken(text(body, 'playerRef'), opts) });
        }
        case 'PUT /_control/responsible-gaming': {
          // {playerRef | launchToken, jurisdiction?, refusals?}: merged over the current settings
          const target = body['launchToken'] !== undefined ? { launchToken: text(body, 'launchToken') } : { playerRef: text(body, 'playerRef') };
          const { playerRef: _p, launchToken: _t, ...settings } = body;
          return reply(200, { ...target, responsibleGaming: ledger.setResponsibleGaming(target, validateResponsibleGaming(settings)) });
        }
        case 'POST /_control/free-bet-campaigns':
          ledger.addFreeBetCampaign(text(body, 'operatorId'), text(body, 'campaignId'));
          return reply(201, { operatorId: text(body, 'operatorId'), campaignId: text(body, 'campaignId') });
        case 'GET /_control/misbehaviours':
          return reply(200, { misbehaviours: bugs });
        case 'PUT /_control/misbehaviours':
          bugs = validateMisbehaviours(body['misbehaviours'] ?? body);
          return reply(200, { misbehaviours: bugs });
        case 'DELETE /_control/misbehaviours':
          bugs = {};
          return reply(200, { misbehaviours: bugs });
        case 'GET /_control/faults':
          return reply(200, { faults: faults.list() });
        case 'PUT /_control/faults': {
          const seed = body['seed'];
          if (seed !== undefined && !Number.isInteger(seed)) throw new Error('seed must be an integer');
          faults.set((Array.isArray(body) ? body : body['rules']) as FaultRule[], seed as number | undefined);
          return reply(200, { faults: faults.list() });
        }
        case 'DELETE /_control/faults':
          faults.clear();
          return reply(200, { faults: [] });
        case 'GET /_control/ledger':
          return reply(200, {
            transactions: ledger
              .transactions()
              .map((tx) => ({ ...tx, amount: amountOut(tx.amount, tx.currency), balanceAfter: amountOut(tx.balanceAfter, tx.currency) })),
          });
        case 'GET /_control/requests':
          return reply(200, { requests: log });
        case 'DELETE /_control/requests':
          log.length = 0;
          return reply(200, { requests: [] });
        default:
          return reply(404, { code: 'NOT_FOUND', message: `no control route ${route}` });
      }
    } catch (err) {
      return reply(400, { code: 'VALIDATION_ERROR', message: err instanceof Error ? err.message : String(err) });
    }
  }

  // ------------------------------------------------------------ server

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://casino.invalid');
    const handled = url.pathname === '/_control' || url.pathname.startsWith('/_control/') ? control(req, res, url) : routeWallet(req, res, url.pathname);
    handled.catch((err: unknown) => {
      console.error('reference-casino: request failed', err);
      if (!res.headersSent) send(res, 500, { code: 'INTERNAL_ERROR', message: 'unexpected error' });
      else res.destroy();
    });
  });
  const routeWallet = async (req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> => {
    const m = WALLET_PATH.exec(pathname);
    if (!m) return send(res, 404, { code: 'NOT_FOUND', message: `no route ${pathname}` });
    return wallet(req, res, m[1]!, m[2]!);
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;

  return {
    url: `http://${host}:${port}`,
    port,
    async close() {
      closing.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
    createPlayer: (input) => ledger.createPlayer(input),
    issueLaunchToken: (playerRef, opts) => ledger.issueLaunchToken(playerRef, opts),
    setTokenCurrency: (token, currency) => ledger.setTokenCurrency(token, currency),
    revokeLaunchToken: (token) => ledger.revokeLaunchToken(token),
    setResponsibleGaming: (target, settings) => ledger.setResponsibleGaming(target, validateResponsibleGaming(settings)),
    addFreeBetCampaign: (operatorId, campaignId) => ledger.addFreeBetCampaign(operatorId, campaignId),
    transactions: () => ledger.transactions(),
    balanceOf: (playerRef, currency) => ledger.balanceOf(playerRef, currency),
    requests: () => log.map((e) => ({ ...e })),
    clearRequests: () => {
      log.length = 0;
    },
    setFaults: (rules, seed) => faults.set(rules, seed ?? options.faultSeed ?? 1),
    clearFaults: () => faults.clear(),
    faults: () => faults.list(),
    setMisbehaviours: (m) => {
      bugs = validateMisbehaviours(m);
    },
    misbehaviours: () => ({ ...bugs }),
  };
}

// ------------------------------------------------------------ helpers

/** The raw body, or undefined when it exceeds MAX_BODY_BYTES. */
async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk); // past the limit: drain, keep nothing
  }
  return size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks);
}

/** Amounts are written as exact JSON numbers (LosslessNumber and bigint are written as their digits). */
function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = stringify(body) ?? 'null';
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Control bodies: plain numbers, except numbers a double cannot hold exactly (kept as LosslessNumber). */
function controlBody(raw: Buffer | undefined): Record<string, unknown> {
  if (!raw) throw new Error(`body over ${MAX_BODY_BYTES} bytes`);
  if (raw.length === 0) return {};
  const body = parse(raw.toString('utf8'), null, (s) => (isSafeNumber(s) ? Number(s) : new LosslessNumber(s)));
  if (typeof body !== 'object' || body === null) throw new Error('body must be a JSON object');
  return body as Record<string, unknown>;
}

function text(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value === '') throw new Error(`${name} must be a non-empty string`);
  return value;
}

/**
 * The wallet's HTTP transport: one signed POST to a casino's callback address over a keep-alive
 * pool (undici's dispatch API), its answer read up to a cap and the whole call bounded by one
 * timeout. The wallet client (wallet-client.ts) signs, retries and classifies; this only carries.
 */
import { Agent, errors as undiciErrors } from 'undici';
import { callableUrl, guardedLookup, type Lookup } from '../operators/callback-address.js';

/** The wallet interface's paths (SPEC.md Wallet interface). */
export type WalletPath = '/wallet/validate-session' | '/wallet/balance' | '/wallet/debit' | '/wallet/credit' | '/wallet/rollback';

export interface TransportRequest {
  operatorId: string;
  url: string;
  path: WalletPath;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

export interface TransportResponse {
  statusCode: number;
  body: string;
}

export class TransportError extends Error {
  constructor(
    /** timeout, network: no answer; oversize: an answer past the cap, cut off unread; busy: never sent (bulkhead full). */
    readonly kind: 'timeout' | 'network' | 'oversize' | 'busy',
    message: string,
  ) {
    super(message);
  }
}

/** The largest wallet answer read (WALLET_MAX_RESPONSE_BYTES): bigger answers are cut off there and count as no readable answer. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

export interface WalletTransport {
  send(req: TransportRequest): Promise<TransportResponse>;
  close?(): Promise<void>;
}

/**
 * Signed POSTs over HTTP(S) with a keep-alive pool. Only addresses callback-address.ts allows
 * are called: an IP literal is checked before the request, a host name's every address when the
 * socket connects (a name that now resolves inside is refused: DNS rebinding).
 */
export function httpTransport(opts: { production: boolean; lookup?: Lookup; maxResponseBytes?: number }): WalletTransport {
  const maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const agent = new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    connections: 64,
    pipelining: 1,
    connect: { lookup: guardedLookup(opts.production, opts.lookup) },
  });
  return {
    async send(req) {
      if (!callableUrl(req.url, opts.production)) throw new TransportError('network', 'the casino address is not one the service calls');
      return post(agent, req, maxBytes);
    },
    async close() {
      await agent.close();
    },
  };
}

/** The origin and path of a callback URL, parsed once per URL (a handful per operator). */
const targets = new Map<string, { origin: string; path: string }>();
function targetOf(url: string): { origin: string; path: string } {
  let t = targets.get(url);
  if (!t) {
    const u = new URL(url);
    t = { origin: u.origin, path: `${u.pathname}${u.search}` };
    if (targets.size >= 4096) targets.clear();
    targets.set(url, t);
  }
  return t;
}

/** What undici's dispatch API hands a handler: the request's controller. */
interface DispatchController {
  abort(reason: Error): void;
}

/**
 * One POST through the agent's dispatch API, its answer kept in memory up to `maxBytes`: past the
 * cap (announced, or as it arrives) the request is aborted and its socket closed, so a casino
 * answering 100 MB costs this process 64 KiB, never its event loop or its memory. The whole call
 * — a wait for a socket, the connect, the answer — is bounded by `timeoutMs`; a request still
 * waiting for a socket then is never sent. (undici's `request()` wraps the same dispatch in a
 * Readable stream read through an async iterator, with an AbortSignal timer: for a dice bet's two
 * callbacks 17 KiB allocated and 6–32 % of its provider CPU more, measured in 4 interleaved pairs;
 * issue 25, docs/performance.md "the twelfth session".)
 */
function post(agent: Agent, req: TransportRequest, maxBytes: number): Promise<TransportResponse> {
  const { origin, path } = targetOf(req.url);
  return new Promise<TransportResponse>((resolve, reject) => {
    let controller: DispatchController | null = null;
    let settled = false;
    let statusCode = 0;
    let size = 0;
    const chunks: Buffer[] = [];
    const finish = (err: Error | null, res?: TransportResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(res!);
    };
    /** Ends the call with `err` and stops the request wherever it is (a request not sent yet is never sent). */
    const stop = (err: Error) => {
      finish(err);
      controller?.abort(err);
    };
    const timer = setTimeout(() => stop(new TransportError('timeout', 'the casino did not answer in time')), req.timeoutMs);
    try {
      agent.dispatch(
        { origin, path, method: 'POST', headers: req.headers, body: req.body, headersTimeout: req.timeoutMs, bodyTimeout: req.timeoutMs },
        {
          onRequestStart(c: DispatchController) {
            controller = c;
            if (settled) c.abort(new TransportError('timeout', 'the casino did not answer in time'));
          },
          onResponseStart(_c: DispatchController, status: number, headers: Record<string, string | string[] | undefined>) {
            statusCode = status;
            const declared = Number(headers['content-length']);
            if (Number.isFinite(declared) && declared > maxBytes) {
              stop(new TransportError('oversize', `the casino's answer was larger than ${maxBytes} bytes (it announced ${declared}) and was not read`));
            }
          },
          onResponseData(_c: DispatchController, chunk: Buffer) {
            if (settled) return;
            size += chunk.length;
            if (size > maxBytes) {
              stop(new TransportError('oversize', `the casino's answer was larger than ${maxBytes} bytes and was cut off unread`));
              return;
            }
            chunks.push(chunk);
          },
          onResponseEnd() {
            finish(null, { statusCode, body: Buffer.concat(chunks, size).toString('utf8') });
          },
          onResponseError(_c: DispatchController, err: Error) {
            finish(err instanceof TransportError ? err : classifyTransportError(err));
          },
        },
      );
    } catch (err) {
      finish(classifyTransportError(err));
    }
  });
}

function classifyTransportError(err: unknown): TransportError {
  const e = err as { name?: string; code?: string; message?: string };
  if (
    e?.name === 'TimeoutError' ||
    e?.name === 'AbortError' ||
    err instanceof undiciErrors.HeadersTimeoutError ||
    err instanceof undiciErrors.BodyTimeoutError ||
    e?.code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return new TransportError('timeout', 'the casino did not answer in time');
  }
  return new TransportError('network', `the casino could not be reached (${e?.code ?? e?.name ?? 'error'})`);
}

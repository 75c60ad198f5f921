/**
 * The provider's side of the wire: signed POSTs to {callbackBaseUrl}/wallet/*, each attempt with
 * a new nonce and the current timestamp (CONTRACT.md §6), and the exchange (request sent, answer
 * received, time taken) kept for the report.
 *
 * The signature recipe is not written here: `signRequest` of @gp/reference-casino is the one
 * implementation this repository documents for "what the provider sends". A check that needs a
 * broken request (stale timestamp, reused nonce, tampered body, missing header) asks for it
 * through the options below, so every deviation is named at the call site.
 */
import { performance } from 'node:perf_hooks';
import { signRequest } from '@gp/reference-casino';
import { parse } from 'lossless-json';
import { Agent, request as undiciRequest } from 'undici';

export type WalletPath = '/wallet/validate-session' | '/wallet/balance' | '/wallet/debit' | '/wallet/credit' | '/wallet/rollback';

export interface SentRequest {
  method: 'POST';
  url: string;
  /** The interface path (what is signed). */
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface ReceivedAnswer {
  /** null when no answer came (timeout, network error). */
  status: number | null;
  contentType: string | null;
  text: string;
  /** The body parsed losslessly (numbers as LosslessNumber), undefined when it is not JSON. */
  json: unknown;
  /** `timeout` or `network: <code>` when no answer came. */
  error?: string;
}

export interface Exchange {
  label: string;
  request: SentRequest;
  response: ReceivedAnswer;
  /** Milliseconds from sending to the end of the answer. */
  ms: number;
}

export interface SendOptions {
  /** What the report calls this request. */
  label?: string;
  idempotencyKey?: string;
  /** Unix seconds to put in X-Timestamp (now by default). */
  timestamp?: number | string;
  /** Nonce to use (a new random one by default). */
  nonce?: string;
  /** Sign with this secret instead of the operator's. */
  secret?: string;
  /** X-Operator-Id (the operator by default). */
  operatorId?: string;
  /** The path that goes into the signature (the request path by default). */
  signedPath?: string;
  /** The body that goes into the signature (the sent body by default): a tampered body. */
  signedBody?: string;
  /** Header names to leave out. */
  omit?: string[];
  /** Headers to set after signing (override). */
  headers?: Record<string, string>;
}

export interface WalletHttpOptions {
  /** The callback base, e.g. https://casino.example/gp (no trailing slash needed). */
  baseUrl: string;
  operatorId: string;
  secret: string;
  /** An attempt without an answer after this many ms is given up as `timeout`. */
  abortMs: number;
}

export class WalletHttp {
  readonly baseUrl: string;
  /** Keep-alive connections, as the provider's wallet client keeps them. */
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, connections: 256, pipelining: 1 });

  constructor(private readonly o: WalletHttpOptions) {
    this.baseUrl = o.baseUrl.replace(/\/+$/, '');
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  get operatorId(): string {
    return this.o.operatorId;
  }

  /** Signs and sends `body` (exact JSON text) to `path`. Never throws for a failed request: the exchange says what happened. */
  async send(path: WalletPath, body: string, opts: SendOptions = {}): Promise<Exchange> {
    const signed = signRequest({
      operatorId: opts.operatorId ?? this.o.operatorId,
      secret: opts.secret ?? this.o.secret,
      method: 'POST',
      path: opts.signedPath ?? path,
      body: opts.signedBody ?? body,
      ...(opts.timestamp !== undefined ? { timestamp: Number(opts.timestamp) } : {}),
      ...(opts.nonce !== undefined ? { nonce: opts.nonce } : {}),
      ...(opts.idempotencyKey !== undefined ? { idempotencyKey: opts.idempotencyKey } : {}),
    });
    const headers: Record<string, string> = { ...signed };
    if (opts.timestamp !== undefined) headers['x-timestamp'] = String(opts.timestamp);
    for (const name of opts.omit ?? []) delete headers[name.toLowerCase()];
    Object.assign(headers, opts.headers ?? {});
    const request: SentRequest = { method: 'POST', url: `${this.baseUrl}${path}`, path, headers, body };
    return this.exchange(opts.label ?? path.slice('/wallet/'.length), request);
  }

  /** Sends a request exactly as given (an exact replay of an earlier one). */
  async resend(request: SentRequest, label: string): Promise<Exchange> {
    return this.exchange(label, { ...request, headers: { ...request.headers } });
  }

  private async exchange(label: string, request: SentRequest): Promise<Exchange> {
    const started = performance.now();
    let response: ReceivedAnswer;
    try {
      const res = await undiciRequest(request.url, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.o.abortMs),
      });
      const text = await res.body.text();
      const ct = res.headers['content-type'];
      response = { status: res.statusCode, contentType: (Array.isArray(ct) ? ct[0] : ct) ?? null, text, json: parseJson(text) };
    } catch (err) {
      const e = err as { name?: string; cause?: { code?: string }; code?: string };
      const error = e?.name === 'TimeoutError' || e?.name === 'AbortError' ? 'timeout' : `network: ${e?.cause?.code ?? e?.code ?? e?.name ?? 'error'}`;
      response = { status: null, contentType: null, text: '', json: undefined, error };
    }
    return { label, request, response, ms: performance.now() - started };
  }
}

function parseJson(text: string): unknown {
  try {
    return parse(text);
  } catch {
    return undefined;
  }
}

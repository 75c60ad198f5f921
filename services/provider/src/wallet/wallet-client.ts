/**
 * The wallet client: signed POSTs to {callbackBaseUrl}/wallet/* (SPEC.md Wallet interface,
 * CONTRACT.md §6 and §11). Each attempt gets a new nonce and timestamp; a timeout, network
 * error, 429 or 5xx is retried once at once with the identical body and idempotency key. The
 * answer is classified so the money path can decide: confirmed, refused, or ambiguous.
 * `sandbox://demo-casino` goes through the same client with an in-process transport.
 */
import { AppError, type ErrorCode } from '../errors.js';
import { parseJson } from '../infra/json.js';
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { outgoingRequestId } from '../infra/request-context.js';
import { httpClientAttributes, inSpan, ROUND_ID_ATTRIBUTE, traceHeaders, tracingEnabled } from '../infra/tracing.js';
import { SANDBOX_CALLBACK_BASE, type OperatorWithSecret } from '../operators/operator-schema.js';
import { signedHeaders } from './signing.js';
import { createOperatorBulkheads, type OperatorBulkheads } from './operator-bulkhead.js';

import { TransportError, type TransportResponse, type WalletPath, type WalletTransport } from './http-transport.js';

export {
  DEFAULT_MAX_RESPONSE_BYTES,
  httpTransport,
  TransportError,
  type TransportRequest,
  type TransportResponse,
  type WalletPath,
  type WalletTransport,
} from './http-transport.js';

/**
 * confirmed: a 2xx with a JSON object. refused: a 4xx (not 409). conflict: a 409. ambiguous: no
 * readable answer (timeout, network, 429/5xx after the retry, a non-JSON 2xx, an answer over the
 * size cap). busy: never sent, because this operator's share of the pod's wallet work was full
 * (operator-bulkhead.ts) — provably nothing moved.
 */
export type OutcomeKind = 'confirmed' | 'refused' | 'conflict' | 'ambiguous' | 'busy';

export interface WalletOutcome {
  kind: OutcomeKind;
  url: string;
  statusCode: number | null;
  responseText: string | null;
  /** The parsed JSON answer (numbers exact), when the casino sent JSON. */
  response: Record<string, unknown> | null;
  /** CASINO_* for transport failures; the casino's refusal mapped per CONTRACT.md §11. */
  errorCode: ErrorCode | null;
  casinoCode: string | null;
  errorMessage: string | null;
  attempts: number;
}

/** Casino refusal codes that pass through as themselves. */
const PASS_THROUGH: ReadonlySet<string> = new Set(['INSUFFICIENT_FUNDS', 'CURRENCY_MISMATCH', 'INVALID_SESSION', 'UNSUPPORTED_CURRENCY']);

export interface WalletClientOptions {
  timeoutMs: number;
  http: WalletTransport;
  sandbox: WalletTransport;
  /** Each operator's share of the HTTP wallet work (default: DEFAULT_BULKHEAD); the in-process demo casino has none. */
  bulkheads?: OperatorBulkheads;
  now?: () => number;
  onAttempt?: (info: { operatorId: string; path: WalletPath; outcome: string; durationMs: number }) => void;
  /** One wallet call done (its retry included): the metrics' hook. */
  onCall?: (operatorId: string, path: WalletPath, outcome: WalletOutcome, seconds: number, idempotencyKey?: string) => void;
  /** The operator's circuit in this process opened (true) or closed again (false): the webhooks' hook. */
  onCircuit?: (operatorId: string, open: boolean) => void;
}

export interface WalletClient {
  call(operator: OperatorWithSecret, path: WalletPath, body: string, idempotencyKey?: string): Promise<WalletOutcome>;
  /**
   * The operator's wallet circuit: open after CIRCUIT_FAILURES calls in a row got no answer, for
   * CIRCUIT_OPEN_MS. While open, new rounds and sessions are refused before any money moves
   * (CASINO_NETWORK_ERROR) and /ready reports it; credits and rollbacks are still attempted.
   */
  circuitOpen(operatorId: string): boolean;
  /** Every operator this process has called, with its circuit (metrics). */
  circuits(): Iterable<{ operatorId: string; open: boolean }>;
  /** Each operator's lane of wallet work in flight and waiting (metrics). */
  lanes(): Iterable<{ operatorId: string; inFlight: number; queued: number }>;
  close(): Promise<void>;
}

export const CIRCUIT_FAILURES = 5;
export const CIRCUIT_OPEN_MS = 15_000;

function parseBody(text: string): Record<string, unknown> | null {
  try {
    const v = parseJson(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function createWalletClient(opts: WalletClientOptions): WalletClient {
  const now = opts.now ?? Date.now;
  const bulkheads = opts.bulkheads ?? createOperatorBulkheads();
  const circuits = new Map<string, { failures: number; openUntil: number }>();
  const record = (operatorId: string, ok: boolean) => {
    const c = circuits.get(operatorId) ?? { failures: 0, openUntil: 0 };
    const wasOpen = c.openUntil > 0; // opened and not closed by an answer since
    c.failures = ok ? 0 : c.failures + 1;
    if (c.failures >= CIRCUIT_FAILURES) c.openUntil = now() + CIRCUIT_OPEN_MS;
    if (ok) c.openUntil = 0;
    if (!wasOpen && c.openUntil > 0) opts.onCircuit?.(operatorId, true);
    else if (wasOpen && c.openUntil === 0) opts.onCircuit?.(operatorId, false);
    circuits.set(operatorId, c);
  };
  return {
    circuitOpen(operatorId) {
      return (circuits.get(operatorId)?.openUntil ?? 0) > now();
    },
    *circuits() {
      const t = now();
      for (const [operatorId, c] of circuits) yield { operatorId, open: c.openUntil > t };
    },
    lanes: () => bulkheads.lanes(),
    call(operator, path, body, idempotencyKey) {
      if (!tracingEnabled()) return timedCall(operator, path, body, idempotencyKey, null);
      // A span per callback; its traceparent goes to the casino with every attempt.
      // OpenTelemetry's HTTP client attributes (an APM draws the casino on its service map) and ours.
      const attributes = {
        ...httpClientAttributes('POST', `${operator.callbackBaseUrl}${path}`),
        'gp.operator_id': operator.operatorId,
        'gp.wallet.operation': path.slice('/wallet/'.length),
        ...(idempotencyKey ? { [ROUND_ID_ATTRIBUTE]: idempotencyKey.split(':')[0] } : {}),
      };
      return inSpan(`wallet ${path}`, 'client', attributes, (span) => timedCall(operator, path, body, idempotencyKey, span));
    },
    async close() {
      await opts.http.close?.();
      await opts.sandbox.close?.();
    },
  };

  async function timedCall(
    operator: OperatorWithSecret,
    path: WalletPath,
    body: string,
    idempotencyKey: string | undefined,
    span: Span | null,
  ): Promise<WalletOutcome> {
    const started = performance.now();
    const outcome = await callWallet(operator, path, body, idempotencyKey);
    opts.onCall?.(operator.operatorId, path, outcome, (performance.now() - started) / 1000, idempotencyKey);
    if (span) {
      span.setAttribute('gp.wallet.outcome', outcome.kind);
      span.setAttribute('gp.wallet.attempts', outcome.attempts);
      if (outcome.statusCode !== null) span.setAttribute('http.response.status_code', outcome.statusCode);
      if (outcome.kind !== 'confirmed') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.errorCode ?? outcome.kind });
    }
    return outcome;
  }

  async function callWallet(operator: OperatorWithSecret, path: WalletPath, body: string, idempotencyKey: string | undefined): Promise<WalletOutcome> {
    const sandbox = operator.callbackBaseUrl === SANDBOX_CALLBACK_BASE;
    const transport = sandbox ? opts.sandbox : opts.http;
    const url = `${operator.callbackBaseUrl}${path}`;
    let last: WalletOutcome | null = null;
    // The request this callback serves (its X-Request-Id), or a new id: sent with tracing on or off.
    const requestId = outgoingRequestId();
    for (let attempt = 1; attempt <= 2; attempt++) {
      const started = Date.now();
      // The operator's share of the pod (operator-bulkhead.ts); the in-process demo casino needs none.
      const release = sandbox ? () => undefined : await bulkheads.acquire(operator.operatorId, opts.timeoutMs);
      // Signed once the attempt may go, not before its wait for a share: the timestamp is the send's.
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        ...signedHeaders(operator.operatorId, operator.sharedSecret, 'POST', path, body, now()),
        ...(idempotencyKey ? { 'x-idempotency-key': idempotencyKey } : {}),
        'x-request-id': requestId,
        ...traceHeaders(),
      };
      if (!release) {
        // Not sent. On the first attempt nothing can have moved; a retry not sent leaves the
        // first attempt's answer (no answer) as the outcome: that one may have been applied.
        if (last) break;
        last = busyOutcome(url);
        opts.onAttempt?.({ operatorId: operator.operatorId, path, outcome: 'busy', durationMs: Date.now() - started });
        break;
      }
      let outcome: WalletOutcome;
      try {
        const res = await transport.send({ operatorId: operator.operatorId, url, path, headers, body, timeoutMs: opts.timeoutMs });
        outcome = classifyResponse(url, res, attempt);
      } catch (err) {
        const te = err instanceof TransportError ? err : new TransportError('network', 'the casino could not be reached');
        outcome = {
          kind: 'ambiguous',
          url,
          statusCode: null,
          responseText: null,
          response: null,
          errorCode: te.kind === 'timeout' ? 'CASINO_TIMEOUT' : te.kind === 'oversize' ? 'CASINO_HTTP_ERROR' : 'CASINO_NETWORK_ERROR',
          casinoCode: null,
          errorMessage: te.message,
          attempts: attempt,
        };
      } finally {
        release();
      }
      opts.onAttempt?.({ operatorId: operator.operatorId, path, outcome: outcome.errorCode ?? outcome.kind, durationMs: Date.now() - started });
      last = outcome;
      record(operator.operatorId, outcome.statusCode !== null && outcome.statusCode < 500);
      if (outcome.kind !== 'ambiguous') break;
    }
    return last as WalletOutcome;
  }
}

/** A callback this pod did not send: the operator's lane was full (operator-bulkhead.ts). */
function busyOutcome(url: string): WalletOutcome {
  return {
    kind: 'busy',
    url,
    statusCode: null,
    responseText: null,
    response: null,
    errorCode: 'CASINO_HTTP_RETRYABLE',
    casinoCode: null,
    errorMessage: "not sent: this casino's share of wallet calls is in use (its wallet answers slowly); try again shortly",
    attempts: 1,
  };
}

function classifyResponse(url: string, res: TransportResponse, attempts: number): WalletOutcome {
  const response = parseBody(res.body);
  const casinoCode = typeof response?.code === 'string' ? response.code : null;
  const base = { url, statusCode: res.statusCode, responseText: res.body, response, casinoCode, attempts };
  if (res.statusCode >= 200 && res.statusCode < 300) {
    if (!response) {
      return { ...base, kind: 'ambiguous', errorCode: 'CASINO_HTTP_ERROR', errorMessage: 'the casino answered without a JSON body' };
    }
    return { ...base, kind: 'confirmed', errorCode: null, errorMessage: null };
  }
  if (res.statusCode === 429 || res.statusCode >= 500) {
    return { ...base, kind: 'ambiguous', errorCode: 'CASINO_HTTP_RETRYABLE', errorMessage: `the casino answered HTTP ${res.statusCode}` };
  }
  if (res.statusCode === 409) {
    return { ...base, kind: 'conflict', errorCode: 'CASINO_HTTP_ERROR', errorMessage: 'the casino reported an idempotency conflict' };
  }
  const errorCode: ErrorCode = casinoCode && PASS_THROUGH.has(casinoCode) ? (casinoCode as ErrorCode) : 'CASINO_HTTP_ERROR';
  return { ...base, kind: 'refused', errorCode, errorMessage: `the casino refused with HTTP ${res.statusCode}${casinoCode ? ` ${casinoCode}` : ''}` };
}

/**
 * A refusal that proves the debit was not applied: a 4xx (not 409) to the only attempt. A refusal
 * of the retry does not: the first attempt got no answer and may still be applied (a slow casino
 * that refuses the retry while the first is in flight), so that debit must be rolled back.
 */
export function isCleanRefusal(outcome: WalletOutcome): boolean {
  return outcome.kind === 'busy' || (outcome.kind === 'refused' && outcome.attempts === 1);
}

/** The most characters of a casino's refusal text passed to the game (issue 27). */
export const CASINO_MESSAGE_MAX = 300;

/**
 * A casino's own words for the player (issue 27): the `message` of a 4xx refusal `{code, message}`
 * (not 409), with control characters (and bidirectional overrides) removed, spaces collapsed at
 * the ends, cut to CASINO_MESSAGE_MAX characters; null for protocol refusals (SIGNATURE_*,
 * IDEMPOTENCY_CONFLICT), other outcomes, or no text. It is plain text: the game never reads it as HTML.
 */
export function casinoMessageOf(outcome: WalletOutcome): string | null {
  if (outcome.kind !== 'refused' || outcome.statusCode === null || outcome.statusCode < 400 || outcome.statusCode >= 500) return null;
  const code = outcome.casinoCode ?? '';
  if (code.startsWith('SIGNATURE_') || code === 'IDEMPOTENCY_CONFLICT' || outcome.statusCode === 401) return null;
  const raw = outcome.response?.message;
  return typeof raw === 'string' ? cleanCasinoText(raw) : null;
}

/** Plain, printable text of at most CASINO_MESSAGE_MAX characters (code points), or null when nothing is left. */
export function cleanCasinoText(raw: string): string | null {
  // Control characters become spaces (a line break between two words stays a gap); bidi overrides and isolates go.
  const text = raw
    .slice(0, 4 * CASINO_MESSAGE_MAX)
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/[\u202A-\u202E\u2066-\u2069]/g, '')
    .replace(/ {2,}/g, ' ')
    .trim();
  if (text === '') return null;
  const chars = [...text];
  return chars.length <= CASINO_MESSAGE_MAX ? text : chars.slice(0, CASINO_MESSAGE_MAX).join('').trimEnd();
}

/** The error a client sees for a wallet call that did not succeed. */
export function outcomeError(outcome: WalletOutcome): AppError {
  const code = outcome.errorCode ?? 'CASINO_HTTP_ERROR';
  const message =
    code === 'INSUFFICIENT_FUNDS'
      ? 'the casino balance cannot cover the bet'
      : code === 'CASINO_TIMEOUT'
        ? 'the casino did not answer in time'
        : code === 'CASINO_NETWORK_ERROR'
          ? 'the casino could not be reached'
          : outcome.kind === 'busy'
            ? (outcome.errorMessage ?? 'the casino is busy')
            : code === 'CASINO_HTTP_RETRYABLE'
              ? 'the casino is unavailable (retries exhausted)'
              : (outcome.errorMessage ?? 'the casino refused the request');
  const casinoMessage = casinoMessageOf(outcome);
  return new AppError(code, message, {
    // casinoCode when the casino's code is not the answer's own, and always beside casinoMessage.
    ...(outcome.casinoCode && (code !== outcome.casinoCode || casinoMessage !== null) ? { casinoCode: outcome.casinoCode } : {}),
    ...(casinoMessage !== null ? { casinoMessage } : {}),
  });
}

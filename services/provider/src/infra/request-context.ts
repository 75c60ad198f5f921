/**
 * The request a piece of work belongs to, without passing it down: the API's request id
 * (X-Request-Id) and what the request turned out to be about (operator, round, error code) travel
 * with the async context. A wallet callback made on behalf of a request sends the casino that id
 * (with tracing on or off); the access log line and the wallet events name the operator and the
 * round (issue 28). Work outside a request (a new session's retries in the background) gets a new id.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

export interface RequestNotes {
  requestId: string;
  operatorId?: string;
  roundId?: string;
  errorCode?: string;
}

const store = new AsyncLocalStorage<RequestNotes>();
const byRequest = new WeakMap<object, RequestNotes>();

/** Runs `fn` (a Fastify hook's `done`) with `request` as the current request. */
export function runWithRequest(request: { id: string }, fn: () => void): void {
  const notes: RequestNotes = { requestId: request.id };
  byRequest.set(request, notes);
  store.run(notes, fn);
}

/** The current request's id, or undefined outside a request. */
export const currentRequestId = (): string | undefined => store.getStore()?.requestId;

/** The X-Request-Id of an outgoing call: the current request's, else a new one. */
export const outgoingRequestId = (): string => currentRequestId() ?? randomUUID();

/** Records what the current request is about (the first operator and round it meets stay). */
export function noteRequest(fields: { operatorId?: string | undefined; roundId?: string | undefined; errorCode?: string | undefined }, request?: object): void {
  const notes = request ? byRequest.get(request) : store.getStore();
  if (!notes) return;
  if (fields.operatorId && !notes.operatorId) notes.operatorId = fields.operatorId;
  if (fields.roundId && !notes.roundId) notes.roundId = fields.roundId;
  if (fields.errorCode) notes.errorCode = fields.errorCode;
}

/** The request's operatorId, roundId and errorCode for its log line (only those it has). */
export function requestLogFields(request: object): { operatorId?: string; roundId?: string; errorCode?: string } {
  const n = byRequest.get(request);
  if (!n) return {};
  return {
    ...(n.operatorId ? { operatorId: n.operatorId } : {}),
    ...(n.roundId ? { roundId: n.roundId } : {}),
    ...(n.errorCode ? { errorCode: n.errorCode } : {}),
  };
}

/**
 * The one place errors become answers (CONTRACT.md §2): Fastify's error shape with a code from
 * the catalogue. Framework errors (bad JSON, body too large, wrong content type) are
 * VALIDATION_ERROR; anything unexpected is a 500 without its message, stack or SQL.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, asAppError, ERROR_STATUS, errorBody } from '../errors.js';
import { noteRequest, requestLogFields } from '../infra/request-context.js';

/**
 * Maps any thrown value to the AppError the client sees. Every framework error becomes a code of
 * the catalogue: no route → NOT_FOUND, rate limit → RATE_LIMITED, anything else the client got
 * wrong (a bad URL encoding, a path parameter over the router's length limit, a body that is not
 * JSON, too large, of another media type) → VALIDATION_ERROR; anything else → INTERNAL_ERROR.
 */
export function toAppError(err: unknown): AppError {
  const known = asAppError(err);
  if (known) return known;
  const down = unavailableStore(err);
  if (down)
    return new AppError('NOT_READY', `the ${down} is unavailable; retry the request (with the same idempotency key)`, {
      ready: false,
      checks: { [down]: 'unavailable' },
    });
  const fe = err as Partial<FastifyError> & { validation?: unknown };
  if (fe && typeof fe === 'object') {
    if (fe.code === 'FST_ERR_NOT_FOUND') return new AppError('NOT_FOUND', 'route not found');
    if (fe.statusCode === 429) return new AppError('RATE_LIMITED', 'too many requests, slow down');
    if (fe.validation) return new AppError('VALIDATION_ERROR', fe.message ?? 'request failed validation');
    if (typeof fe.code === 'string' && fe.code.startsWith('FST_ERR_CTP_')) {
      return new AppError('VALIDATION_ERROR', bodyProblem(fe.code));
    }
    if (fe.code === 'FST_ERR_BAD_URL') return new AppError('VALIDATION_ERROR', 'the request path is not a valid URL encoding');
    if (fe.code === 'FST_ERR_MAX_PARAM_LENGTH' || fe.statusCode === 414) return new AppError('VALIDATION_ERROR', 'a path parameter is too long');
    if (fe instanceof SyntaxError) return new AppError('VALIDATION_ERROR', 'the request body is not valid JSON');
    if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
      return new AppError('VALIDATION_ERROR', 'the request is not valid');
    }
  }
  return new AppError('INTERNAL_ERROR', 'internal error');
}

/**
 * A backing store that cannot be reached (Redis restarting, PostgreSQL failing over) is a 503
 * NOT_READY, not a 500: nothing was wrong with the request, the client retries it with the same
 * idempotency key (issue 16: the chaos run's Redis restart answered 500 for a second).
 */
export function unavailableStore(err: unknown): 'redis' | 'database' | null {
  const e = (err ?? {}) as { name?: unknown; code?: unknown; message?: unknown };
  if (
    e.name === 'MaxRetriesPerRequestError' ||
    e.message === 'Connection is closed.' ||
    (typeof e.message === 'string' && e.message.startsWith('Reached the max retries per request limit'))
  )
    return 'redis';
  if (typeof e.code === 'string' && (/^08[0-9A-Z]{3}$/.test(e.code) || ['57P01', '57P02', '57P03'].includes(e.code))) return 'database';
  if (typeof e.message === 'string' && /^(timeout exceeded when trying to connect|Connection terminated)/.test(e.message)) return 'database';
  return null;
}

function bodyProblem(code: string): string {
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'the request body is larger than 64 KiB';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'the request body must be application/json';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'the request body is empty';
    default:
      return 'the request body is not valid JSON';
  }
}

/**
 * Fastify's `frameworkErrors` option: the router's own refusals (a bad URL encoding, a path
 * parameter past its length limit) reach the client in the same envelope as every other error.
 * No route's hooks run for them: their access-log line is written by AccessLog.logged
 * (http/observability.ts), which app.ts wraps this in (the error code is noted for it), and the
 * request id header that registerAnswerHeaders gives every routed answer is set here.
 */
export function frameworkErrors(err: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const appErr = toAppError(err);
  noteRequest({ errorCode: appErr.code }, request);
  void reply.status(appErr.statusCode).header('x-request-id', request.id).type('application/json').send(errorBody(appErr));
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const appErr = toAppError(err);
    noteRequest({ errorCode: appErr.code }, request); // on the access log line
    if (appErr.code === 'INTERNAL_ERROR') {
      request.log.error({ err: loggableError(err), errorCode: appErr.code }, 'unhandled error');
    } else if (appErr.statusCode >= 500) {
      // One message key: the error's text goes in `error` (two `msg` keys lose one in most parsers).
      request.log.warn({ errorCode: appErr.code, error: appErr.message, ...requestLogFields(request) }, 'request failed');
    }
    void reply.status(appErr.statusCode).type('application/json').send(errorBody(appErr));
  });
  app.setNotFoundHandler((_request, reply) => {
    const err = new AppError('NOT_FOUND', 'route not found');
    void reply.status(ERROR_STATUS.NOT_FOUND).send(errorBody(err));
  });
}

/**
 * What the log keeps of an unexpected error. A database error's message can quote the SQL with
 * its values (a server seed, say), so only its SQLSTATE and constraint are kept.
 */
export function loggableError(err: unknown): Record<string, unknown> {
  const e = (err ?? {}) as { name?: string; code?: unknown; constraint?: unknown; message?: string; stack?: string };
  const frames = (e.stack ?? '').split('\n').slice(1, 8).join('\n');
  const database = typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code);
  return database
    ? { type: e.name, code: e.code, constraint: e.constraint, message: 'database error', stack: frames }
    : { type: e.name, code: e.code, message: e.message, stack: frames };
}

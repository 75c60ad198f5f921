/**
 * One zod schema per request part validates it, types the handler and feeds /openapi.json.
 * This is the Fastify type provider and the validator compiler that make that true.
 */
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyTypeProvider,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { FastifySchemaCompiler } from 'fastify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { z } from 'zod';
import { UNSUPPORTED_CURRENCY_MESSAGE } from '@gp/game-core/money';
import { AppError } from '../errors.js';
import { stringifyJson } from '../infra/json.js';

export interface ZodTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends z.ZodType ? z.output<this['schema']> : unknown;
  serializer: this['schema'] extends z.ZodType ? z.input<this['schema']> : unknown;
}

/** The app with the zod type provider: routes get typed requests from their schemas. */
export type AppInstance = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, ZodTypeProvider>;

/** Marker message: a missing or empty idempotency key is IDEMPOTENCY_REQUIRED, not VALIDATION_ERROR. */
export const IDEMPOTENCY_REQUIRED_MESSAGE = 'IDEMPOTENCY_REQUIRED';

export function describeIssues(error: z.ZodError, where: string): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${where}${i.path.length ? '.' + i.path.join('.') : ''}: ${i.message}`)
    .join('; ');
}

export function toValidationError(error: z.ZodError, where: string): AppError {
  if (error.issues.some((i) => i.message === IDEMPOTENCY_REQUIRED_MESSAGE)) {
    return new AppError('IDEMPOTENCY_REQUIRED', 'idempotencyKey is required for requests that move money');
  }
  const currency = error.issues.find((i) => i.message === UNSUPPORTED_CURRENCY_MESSAGE);
  if (currency) return new AppError('UNSUPPORTED_CURRENCY', 'currency code not supported');
  return new AppError('VALIDATION_ERROR', describeIssues(error, where));
}

export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const where = httpPart === 'querystring' ? 'query' : (httpPart ?? 'body');
  return (data: unknown) => {
    const result = schema.safeParse(data);
    if (result.success) return { value: result.data };
    return { error: toValidationError(result.error, where) };
  };
};

/**
 * Answers are written through their route's response schema: only what the schema lists goes
 * out (zod strips the rest), as lossless JSON. An answer that does not fit its schema is a bug:
 * in tests it fails the request loudly; in production it is logged and sent as it is (a settled
 * bet must not turn into a 500).
 */
export function zodSerializerCompiler(opts: {
  strict: boolean;
  onMismatch(route: string, issues: string): void;
}): FastifySerializerCompiler<z.ZodType | unknown> {
  return ({ schema, url, method }) => {
    if (!(schema instanceof z.ZodType)) return (data: unknown) => stringifyJson(data);
    return (data: unknown) => {
      const parsed = schema.safeParse(data);
      if (parsed.success) return stringifyJson(parsed.data);
      const issues = describeIssues(parsed.error, 'answer');
      if (opts.strict) throw new Error(`the answer of ${method} ${url} does not fit its schema: ${issues}`);
      opts.onMismatch(`${method} ${url}`, issues);
      return stringifyJson(data);
    };
  };
}

declare module 'fastify' {
  interface FastifySchema {
    /** OpenAPI documentation fields (http/openapi.ts). */
    operationId?: string;
    summary?: string;
    description?: string;
    tags?: string[];
    security?: Record<string, string[]>[];
    hide?: boolean;
  }
}

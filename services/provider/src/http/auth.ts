/**
 * Who may call the protected routes: the platform administrator (Bearer ADMIN_TOKEN), the cron
 * job (Bearer CRON_SECRET), and casino backends signing with their operator secret
 * (CONTRACT.md §6: replayed nonces refused through the replay cache). Every comparison of a
 * secret is timing-safe, and no secret appears in an answer or a log line.
 */
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { KeyValueStore } from '../infra/kv.js';
import type { OperatorStore } from '../operators/operator-store.js';
import type { Db } from '../store/db.js';
import { NONCE_PATTERN, secretEquals, sign, signatureMatches } from '../wallet/signing.js';

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  return m?.[1] ?? null;
}

export function isAdmin(request: FastifyRequest, config: Config): boolean {
  const token = bearerToken(request);
  return Boolean(config.adminToken && token && secretEquals(config.adminToken, token));
}

export function requireAdmin(request: FastifyRequest, config: Config): void {
  if (!isAdmin(request, config)) throw new AppError('UNAUTHORIZED', 'a valid administrator bearer token is required');
}

export function requireCron(request: FastifyRequest, config: Config): void {
  const token = bearerToken(request);
  if (!config.cronSecret || !token || !secretEquals(config.cronSecret, token)) {
    throw new AppError('UNAUTHORIZED', 'a valid cron bearer token is required');
  }
}

export function hasSignatureHeaders(request: FastifyRequest): boolean {
  return ['x-operator-id', 'x-timestamp', 'x-nonce', 'x-signature'].some((h) => request.headers[h] !== undefined);
}

export interface SignatureDeps {
  db: Db;
  operators: OperatorStore;
  kv: KeyValueStore;
  config: Config;
  now?: () => number;
}

/** Verifies a request signed with an operator secret; answers the operator id it is scoped to. */
export async function verifyOperatorSignature(request: FastifyRequest, deps: SignatureDeps): Promise<string> {
  const h = (name: string) => {
    const v = request.headers[name];
    return typeof v === 'string' ? v : undefined;
  };
  const operatorId = h('x-operator-id');
  const timestamp = h('x-timestamp');
  const nonce = h('x-nonce');
  const signature = h('x-signature');
  if (!operatorId || !timestamp || !nonce || !signature) throw new AppError('SIGNATURE_REQUIRED', 'signature headers are missing');
  const nowS = Math.floor((deps.now ?? Date.now)() / 1000);
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowS - Number(timestamp)) > deps.config.clockSkewSeconds) {
    throw new AppError('SIGNATURE_STALE', 'the request timestamp is outside the allowed clock skew');
  }
  if (!NONCE_PATTERN.test(nonce)) throw new AppError('SIGNATURE_INVALID', 'the request signature is not valid');
  const operator = await deps.operators.getWithSecret(deps.db, operatorId);
  if (!operator) throw new AppError('SIGNATURE_INVALID', 'the request signature is not valid');
  const rawBody = typeof (request as { rawBody?: string }).rawBody === 'string' ? (request as { rawBody?: string }).rawBody! : '';
  const expected = sign(operator.sharedSecret, request.method, request.raw.url ?? request.url, timestamp, nonce, rawBody);
  if (!signatureMatches(expected, signature.toLowerCase() === signature ? signature : '')) {
    throw new AppError('SIGNATURE_INVALID', 'the request signature is not valid');
  }
  const fresh = await deps.kv.claimOnce(`nonce:${operatorId}:${nonce}`, (deps.config.clockSkewSeconds * 2 + 60) * 1000);
  if (!fresh) throw new AppError('SIGNATURE_REPLAYED', 'this request nonce was already used');
  return operatorId;
}

export type Caller = { kind: 'admin' } | { kind: 'operator'; operatorId: string };

/** Admin token, or an operator signature (then scoped to that operator). */
export async function adminOrOperator(request: FastifyRequest, deps: SignatureDeps): Promise<Caller> {
  if (bearerToken(request) !== null) {
    requireAdmin(request, deps.config);
    return { kind: 'admin' };
  }
  if (hasSignatureHeaders(request)) return { kind: 'operator', operatorId: await verifyOperatorSignature(request, deps) };
  throw new AppError('UNAUTHORIZED', 'an administrator token or an operator signature is required');
}

/** Who made a change, from where: the audit's actor of an admin request (never a token or cookie). */
import type { FastifyRequest } from 'fastify';
import type { Actor } from '../../../staff/config-audit.js';
import { staffOf } from '../../authentication.js';

export function actorOf(request: FastifyRequest): Actor {
  const ua = request.headers['user-agent'];
  const userAgent = typeof ua === 'string' ? ua : null;
  if (request.caller.kind === 'admin') return { kind: 'admin-token', staffId: null, email: null, ip: request.ip, userAgent };
  const p = staffOf(request);
  return { kind: p.via === 'token' ? 'admin-token' : 'staff', staffId: p.staffId, email: p.email, ip: request.ip, userAgent };
}

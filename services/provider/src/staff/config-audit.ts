/**
 * The config-change audit (issue 13 item 4): every change to an operator profile, a secret (never
 * its value), a staff account or role, and every manual retry — who, when, from where, before and
 * after. Records are only ever inserted: no function here changes or removes one, no route does,
 * and a database trigger refuses UPDATE, DELETE and TRUNCATE (migrations/20261125010000).
 */
import { toIso, type Queryable, LIMIT_IN_TEXT } from '../store/db.js';

export interface Actor {
  kind: 'staff' | 'admin-token' | 'operator' | 'cli' | 'system';
  staffId: string | null;
  email: string | null;
  ip: string | null;
  userAgent: string | null;
}

export interface AuditEntry {
  action: string;
  tenantId: string | null;
  operatorId: string | null;
  targetType: 'operator' | 'secret' | 'staff' | 'round' | 'promotion';
  targetId: string;
  before: unknown;
  after: unknown;
}

/** Keys whose values never reach an audit record, at any depth. */
const SECRET_KEYS = /^(sharedSecret|secret|password|passwordHash|password_hash|secret_enc|token|launchToken|signature)$/i;

export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([k]) => !SECRET_KEYS.test(k))
        .map(([k, v]) => [k, withoutSecrets(v)]),
    );
  }
  return typeof value === 'bigint' ? value.toString() : value;
}

export async function recordChange(db: Queryable, actor: Actor, e: AuditEntry): Promise<void> {
  await db('config_audit').insert({
    actor_kind: actor.kind,
    actor_id: actor.staffId,
    actor_email: actor.email,
    ip: actor.ip,
    user_agent: actor.userAgent?.slice(0, 300) ?? null,
    action: e.action,
    tenant_id: e.tenantId,
    operator_id: e.operatorId,
    target_type: e.targetType,
    target_id: e.targetId,
    before: e.before === undefined || e.before === null ? null : JSON.stringify(withoutSecrets(e.before)),
    after: e.after === undefined || e.after === null ? null : JSON.stringify(withoutSecrets(e.after)),
  });
}

export interface AuditQuery {
  operatorId?: string | undefined;
  /** Restricts to these tenants (casino staff); undefined = every record (platform admin). */
  tenantIds?: string[] | undefined;
  targetType?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

interface AuditRow {
  id: string | number;
  created_at: Date | string;
  actor_kind: string;
  actor_id: string | null;
  actor_email: string | null;
  ip: string | null;
  user_agent: string | null;
  action: string;
  tenant_id: string | null;
  operator_id: string | null;
  target_type: string;
  target_id: string;
  /** jsonb: the target without secrets, or null */
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** Newest first, keyset-paginated by id. */
export async function listChanges(db: Queryable, q: AuditQuery) {
  const query = db<AuditRow>('config_audit')
    .orderBy('id', 'desc')
    .limit(q.limit + 1, LIMIT_IN_TEXT);
  if (q.operatorId) query.where('operator_id', q.operatorId);
  if (q.tenantIds) query.whereIn('tenant_id', q.tenantIds);
  if (q.targetType) query.where('target_type', q.targetType);
  if (q.cursor) query.where('id', '<', q.cursor);
  const rows = await query;
  const page = rows.slice(0, q.limit);
  return {
    records: page.map((r) => ({
      id: String(r.id),
      at: toIso(r.created_at),
      actor: { kind: r.actor_kind, staffId: r.actor_id, email: r.actor_email, ip: r.ip, userAgent: r.user_agent },
      action: r.action,
      tenantId: r.tenant_id,
      operatorId: r.operator_id,
      targetType: r.target_type,
      targetId: r.target_id,
      before: r.before,
      after: r.after,
    })),
    nextCursor: rows.length > q.limit ? String(page[page.length - 1]!.id) : null,
  };
}

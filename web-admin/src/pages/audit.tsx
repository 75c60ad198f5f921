/** The config-change audit: who changed what, when, from where, before and after (read-only). */
import { useInfiniteQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { Link } from 'react-router';
import { get, qs, type AuditRecord, type Answer } from '../api.js';
import { Badge, Card, DataTable, ErrorNote, PageHeader } from '../components.js';
import { when } from '../format.js';
import { ChangeDiff, OperatorSelect } from './shared.js';

const columns: ColumnDef<AuditRecord, unknown>[] = [
  { header: 'When', accessorKey: 'at', cell: (c) => <span className="nowrap">{when(c.getValue<string>())}</span> },
  { header: 'Change', accessorKey: 'action', cell: (c) => <Badge tone="blue">{c.getValue<string>()}</Badge> },
  {
    header: 'Target',
    id: 'target',
    cell: (c) => {
      const r = c.row.original;
      if (r.targetType === 'operator' || r.targetType === 'secret') return <Link to={`/operators/${r.targetId}`}>{r.targetId}</Link>;
      if (r.targetType === 'promotion') return <Link to={`/promotions/${r.targetId}`}>promotion {r.targetId.slice(0, 8)}…</Link>;
      if (r.targetType === 'round')
        return (
          <Link className="mono" to={`/rounds/${r.targetId}`}>
            {r.targetId.slice(0, 10)}…
          </Link>
        );
      return (
        <span className="mono small">
          {r.targetType} {r.targetId.slice(0, 8)}
        </span>
      );
    },
  },
  { header: 'Casino', accessorKey: 'tenantId', cell: (c) => c.getValue<string | null>() ?? '—' },
  {
    header: 'Who',
    id: 'who',
    cell: (c) => c.row.original.actor.email ?? (c.row.original.actor.kind === 'admin-token' ? 'Bootstrap token' : c.row.original.actor.kind),
  },
  { header: 'From', id: 'ip', cell: (c) => <span className="mono small">{c.row.original.actor.ip ?? '—'}</span> },
  { header: 'Before → after', id: 'diff', cell: (c) => <ChangeDiff before={c.row.original.before} after={c.row.original.after} /> },
];

export function AuditPage() {
  const [operatorId, setOperatorId] = useState('');
  const [targetType, setTargetType] = useState('');
  const q = useInfiniteQuery({
    queryKey: ['audit', operatorId, targetType],
    initialPageParam: '',
    queryFn: ({ pageParam }) => get<Answer<'listConfigChanges'>>(`/api/admin/audit${qs({ operatorId, targetType, cursor: pageParam, limit: 50 })}`),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const records = q.data?.pages.flatMap((p) => p.records) ?? [];
  return (
    <>
      <PageHeader
        title="Audit log"
        subtitle="Every change to profiles, secrets, staff and manual retries. Append-only: no one can edit or delete a record."
        actions={
          <>
            <OperatorSelect value={operatorId} onChange={setOperatorId} />
            <label className="field inline">
              <span>Kind</span>
              <select value={targetType} onChange={(e) => setTargetType(e.target.value)}>
                <option value="">Everything</option>
                <option value="operator">Profiles</option>
                <option value="secret">Secrets</option>
                <option value="staff">Staff</option>
                <option value="round">Retries</option>
              </select>
            </label>
          </>
        }
      />
      <ErrorNote error={q.error} />
      <Card>
        <DataTable data={records} columns={columns} empty="No changes recorded" testId="audit-table" />
        <div className="table-foot">
          <span className="muted small">{records.length} shown</span>
          {q.hasNextPage ? (
            <button className="btn secondary" onClick={() => void q.fetchNextPage()}>
              Load more
            </button>
          ) : null}
        </div>
      </Card>
    </>
  );
}

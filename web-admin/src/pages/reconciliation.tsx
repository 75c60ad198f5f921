/**
 * Reconciliation: filters, totals per operator/currency/day, the rows, the CSV export (streamed by
 * the server), and pending credits and rollbacks with "retry now". Paid money, free-bet payouts
 * (the casino's campaigns) and promo credits (promotions' prizes, docs/promotions.md) are apart:
 * their own totals columns, a "Money" filter and column on the rows and in the CSV.
 */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, get, qs, type PendingRound, type ReconRow, type Totals, type Answer } from '../api.js';
import { useAuth } from '../auth.js';
import { Badge, Card, DataTable, ErrorNote, Loading, PageHeader } from '../components.js';
import { money, short, STATUS_TONE, when, statusLabel } from '../format.js';
import { OperatorSelect } from './shared.js';

const TYPES = ['debit', 'credit', 'rollback', 'credit_pending', 'rollback_pending'];

/** The "Money" filter: the rounds' callbacks (paid and free bets), one of them, or the promo credits. */
const MONEY = [
  { value: '', label: 'Rounds: paid and free bets' },
  { value: 'paid', label: 'Paid rounds' },
  { value: 'freeBet', label: 'Free bets' },
  { value: 'promo', label: 'Promo credits' },
] as const;
const moneyParams = (m: string) => (m === 'promo' ? { promo: 'true' } : m === 'paid' ? { freeBet: 'false' } : m === 'freeBet' ? { freeBet: 'true' } : {});
const amountCell = (v: Totals['stakes'], currency: string, testId?: string) => (
  <span className={String(v) === '0' ? 'muted' : ''} data-testid={testId}>
    {money(v, currency)}
  </span>
);

const totalColumns: ColumnDef<Totals, unknown>[] = [
  { header: 'Day (UTC)', accessorKey: 'day', cell: (c) => <span className="nowrap">{c.getValue<string>()}</span> },
  { header: 'Operator', accessorKey: 'operatorId', cell: (c) => <span className="nowrap">{c.getValue<string>()}</span> },
  { header: 'Currency', accessorKey: 'currency' },
  { header: 'Bets', accessorKey: 'debits', meta: { align: 'right' } },
  { header: 'Stakes', id: 'stakes', meta: { align: 'right' }, cell: (c) => money(c.row.original.stakes, c.row.original.currency) },
  { header: 'Paid payouts', id: 'payouts', meta: { align: 'right' }, cell: (c) => money(c.row.original.payouts, c.row.original.currency) },
  { header: 'Rollbacks', id: 'rollbacks', meta: { align: 'right' }, cell: (c) => money(c.row.original.rollbacks, c.row.original.currency) },
  {
    header: 'Paid GGR',
    id: 'ggr',
    meta: { align: 'right' },
    cell: (c) => {
      const v = c.row.original.ggr;
      return <strong className={String(v).startsWith('-') ? 'neg' : ''}>{money(v, c.row.original.currency)}</strong>;
    },
  },
  {
    header: 'Free-bet payouts',
    id: 'freeBetPayouts',
    meta: { align: 'right' },
    cell: (c) => amountCell(c.row.original.freeBetPayouts, c.row.original.currency),
  },
  {
    header: 'Promo credits',
    id: 'promoCredits',
    meta: { align: 'right' },
    cell: (c) => amountCell(c.row.original.promoCredits, c.row.original.currency, 'promo-credits'),
  },
  {
    header: 'Promo pending',
    id: 'promoPending',
    meta: { align: 'right' },
    cell: (c) =>
      c.row.original.promoPendingCount > 0 ? (
        <span className="nowrap" data-testid="promo-pending">
          {money(c.row.original.promoPending, c.row.original.currency)} <Badge tone="amber">{c.row.original.promoPendingCount}</Badge>
        </span>
      ) : (
        <span className="muted">—</span>
      ),
  },
];

const MONEY_BADGE = { paid: ['Paid', 'gray'], free_bet: ['Free bet', 'blue'], promo: ['Promo', 'green'] } as const;
const moneyOf = (r: ReconRow) => (r.promo ? 'promo' : r.freeBet ? 'free_bet' : 'paid');

const rowColumns: ColumnDef<ReconRow, unknown>[] = [
  { header: 'Time', accessorKey: 'createdAt', cell: (c) => <span className="nowrap">{when(c.getValue<string>())}</span> },
  {
    header: 'Type',
    accessorKey: 'type',
    cell: (c) => <Badge tone={c.getValue<string>().endsWith('pending') ? 'amber' : 'blue'}>{statusLabel(c.getValue<string>())}</Badge>,
  },
  {
    header: 'Status',
    accessorKey: 'status',
    cell: (c) => <Badge tone={STATUS_TONE[c.getValue<string>()] ?? 'gray'}>{statusLabel(c.getValue<string>())}</Badge>,
  },
  { header: 'Operator', accessorKey: 'operatorId' },
  {
    header: 'Money',
    id: 'money',
    cell: (c) => {
      const [label, tone] = MONEY_BADGE[moneyOf(c.row.original)];
      return <Badge tone={tone}>{label}</Badge>;
    },
  },
  {
    header: 'Round or prize',
    id: 'roundId',
    cell: (c) => {
      const r = c.row.original;
      if (r.promo && r.promoId)
        return (
          <Link className="mono" to={`/promotions/${r.promoId}`} title={r.idempotencyKey}>
            {short(r.promoId, 8)} · prize {r.prize}
          </Link>
        );
      return r.roundId ? (
        <Link className="mono" to={`/rounds/${r.roundId}`}>
          {short(r.roundId, 10)}
        </Link>
      ) : (
        '—'
      );
    },
  },
  { header: 'Player', accessorKey: 'playerRef' },
  { header: 'Game', accessorKey: 'gameType', cell: (c) => <span className="cap">{c.getValue<string | null>() ?? '—'}</span> },
  {
    header: 'Amount',
    id: 'amount',
    meta: { align: 'right' },
    cell: (c) => `${money(c.row.original.amount, c.row.original.currency)} ${c.row.original.currency}`,
  },
  {
    header: 'Casino tx',
    accessorKey: 'casinoTransactionId',
    cell: (c) => <span className="mono small">{c.getValue<string | null>() ? short(c.getValue<string>(), 12) : '—'}</span>,
  },
];

const iso = (v: string) => (v ? new Date(v).toISOString() : undefined);

export function ReconciliationPage() {
  const { canWrite } = useAuth();
  const client = useQueryClient();
  const [draft, setDraft] = useState({ operatorId: '', money: '', type: '', status: '', from: '', to: '' });
  const [f, setF] = useState(draft);
  const params = { operatorId: f.operatorId, ...moneyParams(f.money), type: f.type, status: f.status, from: iso(f.from), to: iso(f.to) };
  const totals = useQuery({
    queryKey: ['totals', f],
    queryFn: () => get<Answer<'reconciliationTotals'>>(`/api/admin/reconciliation/totals${qs({ operatorId: f.operatorId, from: iso(f.from), to: iso(f.to) })}`),
  });
  const rows = useInfiniteQuery({
    queryKey: ['recon', f],
    initialPageParam: '',
    queryFn: ({ pageParam }) => get<Answer<'adminReconciliation'>>(`/api/admin/reconciliation${qs({ ...params, cursor: pageParam, limit: 50 })}`),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const pending = useQuery({
    queryKey: ['pending', f.operatorId],
    queryFn: () => get<Answer<'pendingRounds'>>(`/api/admin/pending${qs({ operatorId: f.operatorId })}`),
  });
  const retry = useMutation({
    mutationFn: (roundId: string) => api<Answer<'retryRound'>>('POST', `/api/admin/rounds/${encodeURIComponent(roundId)}/retry`),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['pending'] });
      await client.invalidateQueries({ queryKey: ['recon'] });
      await client.invalidateQueries({ queryKey: ['totals'] });
    },
  });
  const pendingColumns: ColumnDef<PendingRound, unknown>[] = [
    {
      header: 'Round',
      accessorKey: 'roundId',
      cell: (c) => (
        <Link className="mono" to={`/rounds/${c.getValue<string>()}`}>
          {short(c.getValue<string>(), 10)}
        </Link>
      ),
    },
    { header: 'Waiting', accessorKey: 'status', cell: (c) => <Badge tone="amber">{statusLabel(c.getValue<string>())}</Badge> },
    { header: 'Operator', accessorKey: 'operatorId' },
    { header: 'Player', accessorKey: 'playerRef' },
    {
      header: 'Amount',
      id: 'amount',
      meta: { align: 'right' },
      cell: (c) => `${money(c.row.original.amount, c.row.original.currency)} ${c.row.original.currency}`,
    },
    { header: 'Last attempt', accessorKey: 'updatedAt', cell: (c) => when(c.getValue<string>()) },
    {
      header: '',
      id: 'retry',
      meta: { align: 'right' },
      cell: (c) =>
        canWrite ? (
          <button
            className="btn secondary small"
            disabled={retry.isPending}
            onClick={() => retry.mutate(c.row.original.roundId)}
            data-testid={`retry-${c.row.original.roundId}`}
          >
            Retry now
          </button>
        ) : null,
    },
  ];
  const list = rows.data?.pages.flatMap((p) => p.rows) ?? [];
  // pending promo credits (not rounds: not in the table above), counted from the totals; their amounts are in the totals' "Promo pending"
  const promoPending = (totals.data?.totals ?? []).reduce((n, d) => n + d.promoPendingCount, 0);
  const csvHref = `/api/admin/reconciliation.csv${qs(params)}`;
  return (
    <>
      <PageHeader
        title="Reconciliation"
        subtitle="Every debit, credit and rollback the casinos confirmed — or still owe; free-bet payouts and promo credits apart from paid money"
        actions={
          <a className="btn secondary" href={csvHref} download data-testid="export-csv">
            Export CSV
          </a>
        }
      />
      <Card>
        <form
          className="filters"
          onSubmit={(e) => {
            e.preventDefault();
            setF(draft);
          }}
        >
          <OperatorSelect value={draft.operatorId} onChange={(v) => setDraft({ ...draft, operatorId: v })} testId="recon-operator" />
          <label className="field inline">
            <span>Money</span>
            <select value={draft.money} onChange={(e) => setDraft({ ...draft, money: e.target.value })} data-testid="recon-money">
              {MONEY.map((m) => (
                <option key={m.value} value={m.value}>
                  {m.label}
                </option>
              ))}
            </select>
          </label>
          <label className="field inline">
            <span>Type</span>
            <select value={draft.type} onChange={(e) => setDraft({ ...draft, type: e.target.value })} data-testid="recon-type">
              <option value="">All types</option>
              {TYPES.map((t) => (
                <option key={t} value={t}>
                  {statusLabel(t)}
                </option>
              ))}
            </select>
          </label>
          <label className="field inline">
            <span>Status</span>
            <select value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.target.value })}>
              <option value="">Any status</option>
              <option value="succeeded">succeeded</option>
              <option value="pending">pending</option>
              <option value="failed">failed</option>
            </select>
          </label>
          <label className="field inline">
            <span>From</span>
            <input type="datetime-local" value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.target.value })} />
          </label>
          <label className="field inline">
            <span>To</span>
            <input type="datetime-local" value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} />
          </label>
          <div className="filter-buttons">
            <button className="btn primary" type="submit" data-testid="recon-apply">
              Apply
            </button>
          </div>
        </form>
      </Card>
      <ErrorNote error={totals.error ?? rows.error ?? retry.error} />
      {retry.data ? (
        <div className="alert success" data-testid="retry-result">
          Retried {retry.data.items[0]?.roundId ? short(retry.data.items[0].roundId, 10) : ''}: {retry.data.items[0]?.outcome ?? 'nothing was pending'}
        </div>
      ) : null}
      <Card
        title={`Pending credits and rollbacks (${pending.data?.rounds.length ?? 0})`}
        actions={<span className="muted small">retried by the cron job; “Retry now” runs the same job for one round</span>}
      >
        <DataTable data={pending.data?.rounds ?? []} columns={pendingColumns} empty="No round is waiting for a casino" testId="pending-table" />
        {promoPending > 0 ? (
          <div className="table-foot" data-testid="promo-pending-note">
            <span className="small">
              {promoPending} promo credit{promoPending === 1 ? '' : 's'} not confirmed yet (retried with the same key until the casino confirms; amounts under
              “Promo pending”)
            </span>
            <button className="btn secondary small" onClick={() => setF({ ...draft, money: 'promo', type: 'credit_pending' })}>
              Show them
            </button>
          </div>
        ) : null}
      </Card>
      <Card
        title="Totals per operator, currency and day"
        actions={<span className="muted small">GGR of paid rounds; free bets and promo credits are the casino's marketing cost, never in it</span>}
      >
        {totals.isLoading ? (
          <Loading />
        ) : (
          <DataTable data={totals.data?.totals ?? []} columns={totalColumns} empty="No confirmed money in this range" testId="totals-table" />
        )}
      </Card>
      <Card title="Rows">
        <DataTable data={list} columns={rowColumns} empty="No rows match" testId="recon-table" />
        <div className="table-foot">
          <span className="muted small">{list.length} shown</span>
          {rows.hasNextPage ? (
            <button className="btn secondary" onClick={() => void rows.fetchNextPage()} disabled={rows.isFetchingNextPage}>
              Load more
            </button>
          ) : null}
        </div>
      </Card>
    </>
  );
}

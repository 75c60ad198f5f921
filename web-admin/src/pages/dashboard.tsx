/** The dashboard: bets per minute, GGR, pending retries, callback health per operator, measured vs design RTP, over a chosen range. */
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { get, qs, type Dashboard } from '../api.js';
import { Badge, Card, DataTable, ErrorNote, Kpi, PageHeader, TimeChart } from '../components.js';
import { money, pct } from '../format.js';
import { OperatorSelect, presetRange, RangePicker, type Range } from './shared.js';

type Health = Dashboard['callbacks'][number];
type Rtp = Dashboard['rtp'][number];

const healthColumns: ColumnDef<Health, unknown>[] = [
  { header: 'Operator', accessorKey: 'operatorId', cell: (c) => <Link to={`/operators/${c.getValue<string>()}`}>{c.getValue<string>()}</Link> },
  { header: 'Callbacks', accessorKey: 'callbacks', meta: { align: 'right' } },
  { header: 'Errors', accessorKey: 'errors', meta: { align: 'right' } },
  {
    header: 'Error rate',
    accessorKey: 'errorRate',
    meta: { align: 'right' },
    cell: (c) => {
      const v = c.getValue<number>() * 100;
      return <Badge tone={v === 0 ? 'green' : v < 2 ? 'amber' : 'red'}>{pct(v)}</Badge>;
    },
  },
  {
    header: 'Mean latency',
    accessorKey: 'meanMs',
    meta: { align: 'right' },
    cell: (c) => (c.getValue<number | null>() === null ? '—' : `${c.getValue<number>()} ms`),
  },
  {
    header: 'p95 latency',
    accessorKey: 'p95Ms',
    meta: { align: 'right' },
    cell: (c) => (c.getValue<number | null>() === null ? '—' : `${c.getValue<number>()} ms`),
  },
];

const rtpColumns: ColumnDef<Rtp, unknown>[] = [
  { header: 'Game', accessorKey: 'gameType', cell: (c) => <span className="cap">{c.getValue<string>()}</span> },
  { header: 'Currency', accessorKey: 'currency' },
  { header: 'Rounds', accessorKey: 'rounds', meta: { align: 'right' } },
  { header: 'Staked', id: 'staked', meta: { align: 'right' }, cell: (c) => money(c.row.original.staked, c.row.original.currency) },
  { header: 'Paid', id: 'paid', meta: { align: 'right' }, cell: (c) => money(c.row.original.paid, c.row.original.currency) },
  {
    header: 'Measured RTP',
    accessorKey: 'measured',
    meta: { align: 'right' },
    cell: (c) => {
      const r = c.row.original;
      return (
        <span className="rtp-cell">
          <span className="rtp-bar">
            <span style={{ width: `${Math.min(100, ((r.measured ?? 0) / 150) * 100)}%` }} />
            <i style={{ left: `${(r.design / 150) * 100}%` }} />
          </span>
          {pct(r.measured)}
        </span>
      );
    },
  },
  { header: 'Design RTP', accessorKey: 'design', meta: { align: 'right' }, cell: (c) => pct(c.getValue<number>()) },
];

export function DashboardPage() {
  const [range, setRange] = useState<Range>(() => presetRange('24h'));
  const [operatorId, setOperatorId] = useState('');
  const q = useQuery({
    queryKey: ['dashboard', range.from, range.to, operatorId],
    queryFn: () => get<Dashboard>(`/api/admin/dashboard${qs({ from: range.from, to: range.to, operatorId })}`),
  });
  const d = q.data;

  // Dense series: one point per bucket of the range (zero where nothing happened), on the range's own x scale.
  const axis = useMemo(() => {
    if (!d) return { times: [] as number[], range: undefined as [number, number] | undefined };
    const step = { minute: 60, hour: 3600, day: 86400 }[d.bucket];
    const from = Math.floor(Date.parse(d.from) / 1000 / step) * step;
    const to = Date.parse(d.to) / 1000;
    const times: number[] = [];
    for (let t = from; t < to; t += step) times.push(t);
    return { times, range: [from, to] as [number, number] };
  }, [d]);
  const at = (iso: string) => Math.floor(Date.parse(iso) / 1000);
  const bets = useMemo(() => {
    const byTime = new Map((d?.series.betsPerMinute ?? []).map((p) => [at(p.t), p.value]));
    return { x: axis.times, series: [{ label: 'Bets / min', values: axis.times.map((t) => byTime.get(t) ?? 0) }] };
  }, [d, axis]);
  const ggr = useMemo(() => {
    const points = d?.series.ggr ?? [];
    const currencies = [...new Set(points.map((p) => p.currency))];
    return {
      x: axis.times,
      series: currencies.map((c) => {
        const byTime = new Map(points.filter((p) => p.currency === c).map((p) => [at(p.t), Number(p.value)]));
        return { label: `GGR ${c}`, values: axis.times.map((t) => byTime.get(t) ?? 0) };
      }),
    };
  }, [d, axis]);
  const pending = (d?.pendingRetries ?? []).reduce((a, p) => a + p.rounds, 0);

  return (
    <>
      <PageHeader
        title="Dashboard"
        subtitle="Live figures of the games and the casino wallets"
        actions={<OperatorSelect value={operatorId} onChange={setOperatorId} testId="dash-operator" />}
      />
      <RangePicker value={range} onChange={setRange} />
      <ErrorNote error={q.error} />
      <div className="kpis">
        <Kpi label="Bets per minute" value={d ? d.betsPerMinute.toFixed(2) : '…'} hint={d ? `${d.rounds} rounds in range` : undefined} testId="kpi-bpm" />
        <Kpi
          label="Gross gaming revenue"
          value={
            d && d.ggr.length > 0 ? (
              <span className="stack-tight">
                {d.ggr.map((g) => (
                  <span key={g.currency}>
                    {money(g.value, g.currency)} <small>{g.currency}</small>
                  </span>
                ))}
              </span>
            ) : d ? (
              '0'
            ) : (
              '…'
            )
          }
          hint="stakes − payouts − rollbacks, confirmed"
          testId="kpi-ggr"
        />
        <Kpi
          label="Pending retries"
          value={d ? <span className={pending > 0 ? 'warn' : ''}>{pending}</span> : '…'}
          hint={<Link to="/reconciliation">credits and rollbacks waiting</Link>}
          testId="kpi-pending"
        />
        <Kpi
          label="Callback error rate"
          value={
            d
              ? pct(
                  (d.callbacks.reduce((a, c) => a + c.errors, 0) /
                    Math.max(
                      1,
                      d.callbacks.reduce((a, c) => a + c.callbacks, 0),
                    )) *
                    100,
                )
              : '…'
          }
          hint="non-2xx, unanswered or retried"
        />
      </div>
      <div className="grid-2">
        <Card title="Bets per minute">
          {d && d.rounds > 0 ? (
            <TimeChart x={bets.x} series={bets.series} range={axis.range} testId="chart-bets" />
          ) : (
            <div className="chart-empty">No bets in this range</div>
          )}
        </Card>
        <Card title="GGR by currency">
          {ggr.series.length ? (
            <TimeChart x={ggr.x} series={ggr.series} range={axis.range} testId="chart-ggr" />
          ) : (
            <div className="chart-empty">No settled money in this range</div>
          )}
        </Card>
      </div>
      <Card title="Casino callbacks per operator">
        <DataTable data={d?.callbacks ?? []} columns={healthColumns} empty="No callbacks in this range" testId="callback-health" />
      </Card>
      <Card title="Return to player per game" actions={<span className="muted small">bar: measured · tick: design</span>}>
        <DataTable data={d?.rtp ?? []} columns={rtpColumns} empty="No settled rounds in this range" testId="rtp-table" />
      </Card>
    </>
  );
}

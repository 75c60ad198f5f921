/** The console's building blocks: the shell, page header, cards, badges, tables (TanStack Table), dialogs, charts (uPlot). */
import { flexRender, getCoreRowModel, getSortedRowModel, useReactTable, type ColumnDef, type SortingState } from '@tanstack/react-table';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { NavLink, Outlet, useNavigate } from 'react-router';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useAuth } from './auth.js';
import { ROLE_LABEL } from './format.js';

const Icon = ({ d }: { d: string }) => (
  <svg
    viewBox="0 0 24 24"
    width="18"
    height="18"
    fill="none"
    stroke="currentColor"
    strokeWidth="1.8"
    strokeLinecap="round"
    strokeLinejoin="round"
    aria-hidden="true"
  >
    <path d={d} />
  </svg>
);
const ICONS = {
  dashboard: 'M3 13h8V3H3zM13 21h8V11h-8zM3 21h8v-6H3zM13 3v6h8V3z',
  operators: 'M4 21V8l8-5 8 5v13M9 21v-6h6v6',
  rounds: 'M12 3a9 9 0 1 0 9 9M12 7v5l3 3M17 3h4v4',
  recon: 'M4 4h16v16H4zM4 9h16M9 9v11',
  staff: 'M16 11a4 4 0 1 0-8 0M4 21a8 8 0 0 1 16 0',
  audit: 'M9 5h10M9 12h10M9 19h10M4 5h.01M4 12h.01M4 19h.01',
  account: 'M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM19 12h2M3 12h2M12 3v2M12 19v2',
  promo: 'M7 4h10v5a5 5 0 0 1-10 0zM12 14v4M8 20h8M7 6H4v1a3 3 0 0 0 3 3M17 6h3v1a3 3 0 0 1-3 3',
};

export function Shell() {
  const { me, logout } = useAuth();
  const navigate = useNavigate();
  const nav = [
    ['/', 'Dashboard', ICONS.dashboard],
    ['/operators', 'Operator profiles', ICONS.operators],
    ['/rounds', 'Rounds', ICONS.rounds],
    ['/reconciliation', 'Reconciliation', ICONS.recon],
    ['/promotions', 'Promotions', ICONS.promo],
    ['/staff', 'Staff', ICONS.staff],
    ['/audit', 'Audit log', ICONS.audit],
  ] as const;
  return (
    <div className="shell">
      <aside className="sidebar">
        <div className="brand">
          <span className="brand-mark">GP</span>
          <span>
            <strong>Provider Console</strong>
            <small>{me.staff.tenantId ?? 'All casinos'}</small>
          </span>
        </div>
        <nav>
          {nav.map(([to, label, d]) => (
            <NavLink key={to} to={to} end={to === '/'} className={({ isActive }) => (isActive ? 'active' : '')}>
              <Icon d={d} />
              {label}
            </NavLink>
          ))}
        </nav>
        <div className="sidebar-foot">
          <NavLink to="/account" className={({ isActive }) => (isActive ? 'active' : '')}>
            <Icon d={ICONS.account} />
            Account
          </NavLink>
        </div>
      </aside>
      <div className="main">
        <header className="topbar">
          <div className="topbar-scope">
            {me.staff.tenantId ? (
              <>
                Casino <strong>{me.staff.tenantId}</strong>
              </>
            ) : (
              <>Platform — every casino</>
            )}
          </div>
          <div className="user">
            <span className="avatar">{(me.staff.email ?? 'A')[0]!.toUpperCase()}</span>
            <span className="user-text">
              <strong data-testid="user-email">{me.staff.email ?? 'Bootstrap token'}</strong>
              <small>{ROLE_LABEL[me.staff.role]}</small>
            </span>
            <button
              className="btn ghost"
              data-testid="logout"
              onClick={() => {
                void logout().then(() => navigate('/login'));
              }}
            >
              Sign out
            </button>
          </div>
        </header>
        <main className="content">
          <Outlet />
        </main>
      </div>
    </div>
  );
}

export function PageHeader({ title, subtitle, actions }: { title: ReactNode; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="page-header">
      <div>
        <h1>{title}</h1>
        {subtitle ? <p className="subtitle">{subtitle}</p> : null}
      </div>
      {actions ? <div className="actions">{actions}</div> : null}
    </div>
  );
}

export function Card({ title, actions, children, className }: { title?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <section className={`card ${className ?? ''}`}>
      {title || actions ? (
        <div className="card-head">
          {title ? <h2>{title}</h2> : <span />}
          {actions}
        </div>
      ) : null}
      {children}
    </section>
  );
}

export function Badge({ tone = 'gray', children }: { tone?: 'green' | 'red' | 'amber' | 'gray' | 'blue'; children: ReactNode }) {
  return <span className={`badge ${tone}`}>{children}</span>;
}

export function Kpi({ label, value, hint, testId }: { label: string; value: ReactNode; hint?: ReactNode; testId?: string }) {
  return (
    <div className="kpi" data-testid={testId}>
      <span className="kpi-label">{label}</span>
      <span className="kpi-value">{value}</span>
      {hint ? <span className="kpi-hint">{hint}</span> : null}
    </div>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error as { code?: string; message?: string };
  if (e.code === 'FORBIDDEN') {
    return (
      <div className="denied" role="alert">
        <span className="denied-icon">!</span>
        <div>
          <h2>No access</h2>
          <p>This belongs to another casino, or your role may only read. Your account sees the profiles, rounds, reconciliation and staff of its own casino.</p>
          <div className="alert error">
            <strong>FORBIDDEN</strong> {e.message}
          </div>
          <p className="small" style={{ marginTop: 12 }}>
            <NavLink to="/">Back to the dashboard</NavLink>
          </p>
        </div>
      </div>
    );
  }
  if (e.code === 'VALIDATION_ERROR') {
    // the server's rule in words, without the code (issue 29: the banner read `VALIDATION_ERROR callbackBaseUrl…`)
    return (
      <div className="alert error" role="alert">
        The server refused a field: {e.message ?? String(error)}
      </div>
    );
  }
  return (
    <div className="alert error" role="alert">
      {e.code && e.code !== 'ERROR' ? <strong>{e.code}</strong> : null} {e.message ?? String(error)}
    </div>
  );
}

export function Loading() {
  return <div className="loading">Loading…</div>;
}

export function DataTable<T>({
  data,
  columns,
  empty = 'Nothing to show',
  testId,
  onRowClick,
}: {
  data: T[];
  columns: ColumnDef<T, unknown>[];
  empty?: string;
  testId?: string;
  onRowClick?: (row: T) => void;
}) {
  const [sorting, setSorting] = useState<SortingState>([]);
  const table = useReactTable({
    data,
    columns,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
  });
  return (
    <div className="table-wrap">
      <table className="tbl" data-testid={testId}>
        <thead>
          {table.getHeaderGroups().map((g) => (
            <tr key={g.id}>
              {g.headers.map((h) => (
                <th
                  key={h.id}
                  onClick={h.column.getToggleSortingHandler()}
                  className={h.column.getCanSort() ? 'sortable' : ''}
                  style={{ textAlign: (h.column.columnDef.meta as { align?: 'right' } | undefined)?.align ?? 'left' }}
                >
                  {flexRender(h.column.columnDef.header, h.getContext())}
                  {{ asc: ' ▲', desc: ' ▼' }[h.column.getIsSorted() as string] ?? ''}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} className="empty">
                {empty}
              </td>
            </tr>
          ) : (
            table.getRowModel().rows.map((row) => (
              <tr key={row.id} className={onRowClick ? 'clickable' : ''} onClick={onRowClick ? () => onRowClick(row.original) : undefined}>
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id} style={{ textAlign: (cell.column.columnDef.meta as { align?: 'right' } | undefined)?.align ?? 'left' }}>
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

export function Modal({ title, children, onClose, testId }: { title: string; children: ReactNode; onClose: () => void; testId?: string }) {
  return (
    <div className="modal-backdrop" onClick={onClose}>
      <div className="modal" role="dialog" aria-label={title} data-testid={testId} onClick={(e) => e.stopPropagation()}>
        <div className="modal-head">
          <h2>{title}</h2>
          <button className="btn ghost icon" onClick={onClose} aria-label="Close">
            ×
          </button>
        </div>
        {children}
      </div>
    </div>
  );
}

/** A secret or password shown once, with a copy button. */
export function OneTimeSecret({ label, value, testId }: { label: string; value: string; testId?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret-box">
      <span className="secret-label">{label}</span>
      <code data-testid={testId}>{value}</code>
      <button
        className="btn secondary"
        onClick={() => {
          void navigator.clipboard?.writeText(value).then(() => setCopied(true));
        }}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
      <p className="muted">It is shown this once: the console never shows it again. Store it in the casino's secret manager now.</p>
    </div>
  );
}

const PALETTE = ['#2563eb', '#16a34a', '#f59e0b', '#db2777', '#7c3aed', '#0891b2', '#dc2626'];

/** A time series chart (uPlot): x in seconds, one or more series. */
export function TimeChart({
  x,
  series,
  range,
  height = 220,
  testId,
}: {
  x: number[];
  series: { label: string; values: (number | null)[] }[];
  range?: [number, number];
  height?: number;
  testId?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: el.clientWidth || 600,
      height,
      legend: { show: series.length > 1, live: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true, ...(range ? { range: () => range } : {}) } },
      axes: [
        { stroke: '#64748b', grid: { stroke: '#eef1f5' }, ticks: { stroke: '#e2e8f0' } },
        { stroke: '#64748b', grid: { stroke: '#eef1f5' }, ticks: { stroke: '#e2e8f0' }, size: 60 },
      ],
      series: [
        {},
        ...series.map((s, i) => ({
          label: s.label,
          stroke: PALETTE[i % PALETTE.length],
          width: 2,
          fill: series.length === 1 ? 'rgba(37,99,235,0.08)' : undefined,
          points: { show: x.length < 40 },
        })),
      ],
    };
    const plot = new uPlot(opts, [x, ...series.map((s) => s.values)] as uPlot.AlignedData, el);
    const ro = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [x, series, height, range]);
  return <div ref={ref} className="chart" data-testid={testId} />;
}

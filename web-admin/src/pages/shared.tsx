/** Pieces several pages share: the operator picker, the time-range picker, the change diff. */
import { useQuery } from '@tanstack/react-query';
import { get, type Answer } from '../api.js';

export function useOperators() {
  return useQuery({ queryKey: ['operators'], queryFn: () => get<Answer<'listOperators'>>('/api/admin/operators') });
}

export function OperatorSelect({
  value,
  onChange,
  testId,
  label = 'Operator',
}: {
  value: string;
  onChange: (v: string) => void;
  testId?: string;
  label?: string;
}) {
  const ops = useOperators();
  return (
    <label className="field inline">
      <span>{label}</span>
      <select value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
        <option value="">All operators</option>
        {(ops.data?.operators ?? []).map((o) => (
          <option key={o.operatorId} value={o.operatorId}>
            {o.operatorId} ({o.currency})
          </option>
        ))}
      </select>
    </label>
  );
}

export const PRESETS = [
  { id: '1h', label: 'Last hour', ms: 3_600_000 },
  { id: '24h', label: '24 hours', ms: 86_400_000 },
  { id: '7d', label: '7 days', ms: 7 * 86_400_000 },
  { id: '30d', label: '30 days', ms: 30 * 86_400_000 },
] as const;

export interface Range {
  preset: string;
  from: string;
  to: string;
}

export function presetRange(id: string): Range {
  const p = PRESETS.find((x) => x.id === id) ?? PRESETS[1];
  const to = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 60_000);
  return { preset: p.id, from: new Date(to.getTime() - p.ms).toISOString(), to: to.toISOString() };
}

const local = (iso: string) => {
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocal = (v: string) => (v ? new Date(v).toISOString() : '');

export function RangePicker({ value, onChange }: { value: Range; onChange: (r: Range) => void }) {
  return (
    <div className="range-picker" data-testid="range-picker">
      <div className="segmented">
        {PRESETS.map((p) => (
          <button key={p.id} className={value.preset === p.id ? 'on' : ''} onClick={() => onChange(presetRange(p.id))} data-testid={`range-${p.id}`}>
            {p.label}
          </button>
        ))}
      </div>
      <label className="field inline">
        <span>From</span>
        <input
          type="datetime-local"
          value={local(value.from)}
          onChange={(e) => e.target.value && onChange({ preset: 'custom', from: fromLocal(e.target.value), to: value.to })}
        />
      </label>
      <label className="field inline">
        <span>To</span>
        <input
          type="datetime-local"
          value={local(value.to)}
          onChange={(e) => e.target.value && onChange({ preset: 'custom', from: value.from, to: fromLocal(e.target.value) })}
        />
      </label>
    </div>
  );
}

/** Before → after of an audit record, field by field (only what changed). */
export function ChangeDiff({ before, after }: { before: Record<string, unknown> | null; after: Record<string, unknown> | null }) {
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].filter(
    (k) => JSON.stringify(before?.[k]) !== JSON.stringify(after?.[k]),
  );
  if (keys.length === 0) return <span className="muted">—</span>;
  const show = (v: unknown) => (v === undefined ? '∅' : typeof v === 'string' ? v : JSON.stringify(v));
  return (
    <ul className="diff">
      {keys.map((k) => (
        <li key={k}>
          <span className="diff-key">{k}</span>
          {before ? <del>{show(before[k])}</del> : null}
          {before && after ? <span className="arrow">→</span> : null}
          {after ? <ins>{show(after[k])}</ins> : null}
        </li>
      ))}
    </ul>
  );
}

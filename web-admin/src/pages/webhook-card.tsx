/**
 * A profile's webhook receiver in the console (issue 26 item 2): URL and event types, a test
 * delivery answered at once, the latest events with their state and a "Redeliver" button, and the
 * delivery log (one row per attempt). Reads GET/PUT /api/admin/operators/{id}/webhook and friends.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { api, get, type Answer } from '../api.js';
import { Badge, Card, DataTable, ErrorNote } from '../components.js';
import { when } from '../format.js';

type WebhookView = Answer<'getWebhook'>;
type Endpoint = Pick<NonNullable<WebhookView['endpoint']>, 'url' | 'events' | 'enabled'>;
type WebhookEvent = Answer<'listWebhookEvents'>['events'][number];
type Delivery = Answer<'testWebhook'>;

const tone = (s: WebhookEvent['status']) => (s === 'delivered' ? 'green' : s === 'failed' ? 'red' : 'amber');

export function WebhookCard({ operatorId, canWrite }: { operatorId: string; canWrite: boolean }) {
  const base = `/api/admin/operators/${encodeURIComponent(operatorId)}/webhook`;
  const client = useQueryClient();
  const config = useQuery({ queryKey: ['webhook', operatorId], queryFn: () => get<WebhookView>(base) });
  const events = useQuery({ queryKey: ['webhook-events', operatorId], queryFn: () => get<Answer<'listWebhookEvents'>>(`${base}/events?limit=20`) });
  const deliveries = useQuery({
    queryKey: ['webhook-deliveries', operatorId],
    queryFn: () => get<Answer<'listWebhookDeliveries'>>(`${base}/deliveries?limit=20`),
  });
  const [draft, setDraft] = useState<Endpoint | null>(null);
  const refresh = async () => {
    for (const k of ['webhook', 'webhook-events', 'webhook-deliveries', 'history']) await client.invalidateQueries({ queryKey: [k, operatorId] });
  };
  const save = useMutation({ mutationFn: (e: Endpoint) => api('PUT', base, e), onSuccess: async () => (setDraft(null), refresh()) });
  const test = useMutation({ mutationFn: () => api<Delivery>('POST', `${base}/test`), onSuccess: refresh });
  const redeliver = useMutation({ mutationFn: (eventId: string) => api('POST', `${base}/events/${eventId}/redeliver`), onSuccess: refresh });
  const current = draft ?? config.data?.endpoint ?? { url: '', events: [], enabled: true };
  const eventColumns: ColumnDef<WebhookEvent, unknown>[] = [
    { header: 'Created', accessorKey: 'createdAt', cell: (c) => when(c.row.original.createdAt) },
    { header: 'Type', accessorKey: 'type' },
    { header: 'State', id: 'status', cell: (c) => <Badge tone={tone(c.row.original.status)}>{c.row.original.status}</Badge> },
    { header: 'Attempts', accessorKey: 'attempts' },
    { header: 'Last answer', id: 'last', cell: (c) => c.row.original.lastError ?? c.row.original.lastStatusCode ?? '' },
    {
      header: '',
      id: 'redeliver',
      cell: (c) =>
        canWrite && c.row.original.status !== 'pending' ? (
          <button className="btn secondary small" onClick={() => redeliver.mutate(c.row.original.eventId)} data-testid="webhook-redeliver">
            Redeliver
          </button>
        ) : null,
    },
  ];
  const deliveryColumns: ColumnDef<Delivery, unknown>[] = [
    { header: 'At', accessorKey: 'createdAt', cell: (c) => when(c.row.original.createdAt) },
    { header: 'Event', accessorKey: 'eventId', cell: (c) => <span className="mono small">{c.row.original.eventId.slice(0, 8)}</span> },
    { header: 'Attempt', accessorKey: 'attempt' },
    { header: 'Answer', id: 'answer', cell: (c) => c.row.original.error ?? c.row.original.statusCode ?? '' },
    { header: 'ms', accessorKey: 'durationMs' },
  ];
  return (
    <Card
      title="Webhook"
      actions={
        canWrite && config.data?.endpoint ? (
          <button className="btn secondary" onClick={() => test.mutate()} data-testid="webhook-test">
            Send test
          </button>
        ) : null
      }
    >
      <ErrorNote error={config.error ?? save.error ?? test.error ?? redeliver.error} />
      {test.data ? (
        <p className="small" data-testid="webhook-test-result">
          Test delivery: {test.data.error ?? `HTTP ${test.data.statusCode}`} in {test.data.durationMs} ms
        </p>
      ) : null}
      <label className="field">
        <span>Receiver URL (signed POSTs, at least once; deduplicate on the event id)</span>
        <input value={current.url} disabled={!canWrite} onChange={(e) => setDraft({ ...current, url: e.target.value })} data-testid="webhook-url" />
      </label>
      <div className="tags">
        {(config.data?.events ?? []).map((type) => (
          <label key={type} className="small">
            <input
              type="checkbox"
              disabled={!canWrite}
              checked={current.events.includes(type)}
              onChange={(e) => setDraft({ ...current, events: e.target.checked ? [...current.events, type] : current.events.filter((x) => x !== type) })}
            />{' '}
            {type}
          </label>
        ))}
      </div>
      {canWrite ? (
        <button className="btn" disabled={!draft} onClick={() => save.mutate(current)} data-testid="webhook-save">
          Save webhook
        </button>
      ) : null}
      <h4>Events</h4>
      <DataTable data={events.data?.events ?? []} columns={eventColumns} empty="No events" testId="webhook-events" />
      <h4>Deliveries</h4>
      <DataTable data={deliveries.data?.deliveries ?? []} columns={deliveryColumns} empty="No deliveries" testId="webhook-deliveries" />
    </Card>
  );
}

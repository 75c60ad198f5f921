/** Operator profiles: the list, a profile with its actions (edit, enable/disable, rotate the secret) and its change history, and the create/edit form. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, get, type AuditRecord, type Operator, type Answer } from '../api.js';
import { useAuth } from '../auth.js';
import { Badge, Card, DataTable, ErrorNote, Loading, Modal, OneTimeSecret, PageHeader } from '../components.js';
import { money, when, statusLabel } from '../format.js';
import { bodyOf, formOf, ProfileFormView, type ProfileForm } from './operator-form.js';
import { ChangeDiff, useOperators } from './shared.js';
import { WebhookCard } from './webhook-card.js';

const columns: ColumnDef<Operator, unknown>[] = [
  {
    header: 'Operator',
    accessorKey: 'operatorId',
    cell: (c) => (
      <Link to={`/operators/${c.getValue<string>()}`} className="strong">
        {c.getValue<string>()}
      </Link>
    ),
  },
  { header: 'Casino', accessorKey: 'tenantId', cell: (c) => c.getValue<string | null>() ?? <span className="muted">—</span> },
  { header: 'Currency', accessorKey: 'currency' },
  {
    header: 'Bet range',
    id: 'range',
    cell: (c) =>
      `${money(c.row.original.minBet, c.row.original.currency)} – ${c.row.original.maxBet === null ? '∞' : money(c.row.original.maxBet, c.row.original.currency)}`,
  },
  { header: 'Max payout', id: 'maxPayout', meta: { align: 'right' }, cell: (c) => money(c.row.original.maxPayout, c.row.original.currency) },
  { header: 'Games', id: 'games', cell: (c) => `${c.row.original.enabledGames.length} of 6` },
  { header: 'Wallet', accessorKey: 'callbackBaseUrl', cell: (c) => <span className="mono small">{c.getValue<string>()}</span> },
  {
    header: 'Status',
    accessorKey: 'enabled',
    cell: (c) => (c.getValue<boolean>() ? <Badge tone="green">Enabled</Badge> : <Badge tone="gray">Disabled</Badge>),
  },
  { header: 'Updated', accessorKey: 'updatedAt', cell: (c) => when(c.getValue<string>()) },
];

export function OperatorsPage() {
  const ops = useOperators();
  const { canWrite } = useAuth();
  const navigate = useNavigate();
  const list = ops.data?.operators ?? [];
  return (
    <>
      <PageHeader
        title="Operator profiles"
        subtitle={`${list.length} profile${list.length === 1 ? '' : 's'} · one per casino and currency`}
        actions={
          canWrite ? (
            <Link className="btn primary" to="/operators/new" data-testid="new-profile">
              New profile
            </Link>
          ) : null
        }
      />
      <ErrorNote error={ops.error} />
      <Card>
        {ops.isLoading ? (
          <Loading />
        ) : (
          <DataTable data={list} columns={columns} testId="operators-table" onRowClick={(o) => void navigate(`/operators/${o.operatorId}`)} />
        )}
      </Card>
    </>
  );
}

/** What a read-only role sees on a form's address (issue 29: a viewer could open the forms by URL; the server refused only on save). */
function ReadOnlyNote({ back }: { back: string }) {
  return (
    <div className="denied" role="alert" data-testid="read-only">
      <span className="denied-icon">!</span>
      <div>
        <h2>Read-only access</h2>
        <p>Your role can read operator profiles but not create or change them. Ask a casino admin.</p>
        <p className="small" style={{ marginTop: 12 }}>
          <Link to={back}>Back</Link>
        </p>
      </div>
    </div>
  );
}

export function OperatorNewPage() {
  const { me, isPlatform, canWrite } = useAuth();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<{ operatorId: string; secret: string } | null>(null);
  const submit = async (v: ProfileForm) => {
    setError(null);
    try {
      const res = await api<Answer<'createOperator'>>('POST', `/api/admin/operators/${encodeURIComponent(v.operatorId)}`, bodyOf(v, isPlatform));
      await client.invalidateQueries({ queryKey: ['operators'] });
      setCreated({ operatorId: res.operator.operatorId, secret: res.sharedSecret });
    } catch (err) {
      setError(err);
    }
  };
  if (!canWrite) return <ReadOnlyNote back="/operators" />;
  return (
    <>
      <PageHeader title="New operator profile" subtitle="A casino's games in one currency. The shared secret is generated and shown once." />
      <ErrorNote error={error} />
      <Card>
        <ProfileFormView
          initial={{ ...formOf(null), tenantId: me.staff.tenantId ?? '' }}
          mode="create"
          platform={isPlatform}
          tenants={me.tenants}
          onSubmit={submit}
          submitLabel="Create profile"
        />
      </Card>
      {created ? (
        <Modal title="Profile created" onClose={() => void navigate(`/operators/${created.operatorId}`)} testId="created-modal">
          <p>
            Give this shared secret to the casino: it signs every wallet callback of <strong>{created.operatorId}</strong> and the casino's requests to the
            provider.
          </p>
          <OneTimeSecret label="Shared secret" value={created.secret} testId="new-secret" />
          <div className="modal-actions">
            <button className="btn primary" onClick={() => void navigate(`/operators/${created.operatorId}`)}>
              I stored it — open the profile
            </button>
          </div>
        </Modal>
      ) : null}
    </>
  );
}

export function OperatorEditPage() {
  const { operatorId = '' } = useParams();
  const { me, isPlatform, canWrite } = useAuth();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [error, setError] = useState<unknown>(null);
  const op = useQuery({
    queryKey: ['operator', operatorId],
    queryFn: () => get<Operator>(`/api/admin/operators/${encodeURIComponent(operatorId)}`),
    enabled: canWrite,
  });
  const submit = async (v: ProfileForm) => {
    setError(null);
    try {
      const { currency: _c, ...body } = bodyOf(v, isPlatform);
      await api('PATCH', `/api/admin/operators/${encodeURIComponent(operatorId)}`, body);
      await client.invalidateQueries({ queryKey: ['operators'] });
      await client.invalidateQueries({ queryKey: ['operator', operatorId] });
      void navigate(`/operators/${operatorId}`);
    } catch (err) {
      setError(err);
    }
  };
  if (!canWrite) return <ReadOnlyNote back={`/operators/${encodeURIComponent(operatorId)}`} />;
  return (
    <>
      <PageHeader title={`Edit ${operatorId}`} subtitle="Every change is recorded in the profile's history." />
      <ErrorNote error={error ?? op.error} />
      <Card>
        {op.data ? (
          <ProfileFormView initial={formOf(op.data)} mode="edit" platform={isPlatform} tenants={me.tenants} onSubmit={submit} submitLabel="Save changes" />
        ) : (
          <Loading />
        )}
      </Card>
    </>
  );
}

const historyColumns: ColumnDef<AuditRecord, unknown>[] = [
  { header: 'When', accessorKey: 'at', cell: (c) => <span className="nowrap">{when(c.getValue<string>())}</span> },
  { header: 'Change', accessorKey: 'action', cell: (c) => <Badge tone="blue">{c.getValue<string>()}</Badge> },
  {
    header: 'Who',
    id: 'who',
    cell: (c) => c.row.original.actor.email ?? (c.row.original.actor.kind === 'admin-token' ? 'Bootstrap token' : c.row.original.actor.kind),
  },
  { header: 'From', id: 'from', cell: (c) => <span className="mono small">{c.row.original.actor.ip ?? '—'}</span> },
  { header: 'Before → after', id: 'diff', cell: (c) => <ChangeDiff before={c.row.original.before} after={c.row.original.after} /> },
];

export function OperatorDetailPage() {
  const { operatorId = '' } = useParams();
  const { canWrite } = useAuth();
  const client = useQueryClient();
  const [rotateOpen, setRotateOpen] = useState(false);
  const [grace, setGrace] = useState(24);
  const [secret, setSecret] = useState<{ value: string; until: string | null } | null>(null);
  const op = useQuery({ queryKey: ['operator', operatorId], queryFn: () => get<Operator>(`/api/admin/operators/${encodeURIComponent(operatorId)}`) });
  const history = useQuery({
    queryKey: ['history', operatorId],
    queryFn: () => get<Answer<'operatorHistory'>>(`/api/admin/operators/${encodeURIComponent(operatorId)}/history`),
  });
  const refresh = async () => {
    await client.invalidateQueries({ queryKey: ['operator', operatorId] });
    await client.invalidateQueries({ queryKey: ['history', operatorId] });
    await client.invalidateQueries({ queryKey: ['operators'] });
  };
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => api('PATCH', `/api/admin/operators/${encodeURIComponent(operatorId)}`, { enabled }),
    onSuccess: refresh,
  });
  const rotate = useMutation({
    mutationFn: () =>
      api<Answer<'rotateOperatorSecret'>>('POST', `/api/admin/operators/${encodeURIComponent(operatorId)}/rotate-secret`, { graceHours: grace }),
    onSuccess: async (res) => {
      setRotateOpen(false);
      setSecret({ value: res.sharedSecret, until: res.previousSecretValidUntil });
      await refresh();
    },
  });
  const o = op.data;
  if (op.error) return <ErrorNote error={op.error} />;
  if (!o) return <Loading />;
  return (
    <>
      <PageHeader
        title={
          <>
            {o.operatorId} {o.enabled ? <Badge tone="green">Enabled</Badge> : <Badge tone="gray">Disabled</Badge>}
          </>
        }
        subtitle={`${o.tenantId ?? 'No casino'} · ${o.currency} · created ${when(o.createdAt)}`}
        actions={
          canWrite ? (
            <>
              <Link className="btn secondary" to={`/operators/${o.operatorId}/edit`} data-testid="edit-profile">
                Edit
              </Link>
              <button className="btn secondary" onClick={() => toggle.mutate(!o.enabled)} data-testid="toggle-profile">
                {o.enabled ? 'Disable' : 'Enable'}
              </button>
              <button className="btn danger" onClick={() => setRotateOpen(true)} data-testid="rotate-secret">
                Rotate secret
              </button>
            </>
          ) : null
        }
      />
      <ErrorNote error={toggle.error ?? rotate.error} />
      <div className="grid-2">
        <Card title="Wallet and limits">
          <dl className="props">
            <dt>Callback base URL</dt>
            <dd className="mono" data-testid="detail-callback">
              {o.callbackBaseUrl}
            </dd>
            <dt>Minimum bet</dt>
            <dd data-testid="detail-minBet">
              {money(o.minBet, o.currency)} {o.currency}
            </dd>
            <dt>Maximum bet</dt>
            <dd>{o.maxBet === null ? 'none' : `${money(o.maxBet, o.currency)} ${o.currency}`}</dd>
            <dt>Stake step</dt>
            <dd>
              {money(o.stakeStep, o.currency)} {o.currency}
            </dd>
            <dt>Maximum payout</dt>
            <dd data-testid="detail-maxPayout">
              {money(o.maxPayout, o.currency)} {o.currency}
            </dd>
          </dl>
        </Card>
        <Card title="Games and embedding">
          <dl className="props">
            <dt>Enabled games</dt>
            <dd>
              <span className="tags">
                {o.enabledGames.map((g) => (
                  <Badge key={g} tone="blue">
                    {statusLabel(g)}
                  </Badge>
                ))}
              </span>
            </dd>
            <dt>Balance in the embed</dt>
            <dd>{o.theme.showBalanceInEmbed ? 'shown' : 'hidden'}</dd>
            <dt>Embed origins</dt>
            <dd className="mono small">{o.allowedEmbedOrigins.length ? o.allowedEmbedOrigins.join(', ') : 'any (outside production)'}</dd>
            <dt>Abandoned rounds</dt>
            <dd>
              after {o.abandonedRoundPolicy.afterHours} h · mines {statusLabel(o.abandonedRoundPolicy.mines)} · blackjack{' '}
              {statusLabel(o.abandonedRoundPolicy.blackjack)}
            </dd>
            <dt>Shared secret</dt>
            <dd data-testid="secret-state">
              {o.secretRotatedAt ? `rotated ${when(o.secretRotatedAt)}` : 'never rotated'}
              {o.previousSecretValidUntil ? ` · previous secret valid until ${when(o.previousSecretValidUntil)}` : ''}
            </dd>
          </dl>
        </Card>
      </div>
      <WebhookCard operatorId={o.operatorId} canWrite={canWrite} />
      <Card title="History" actions={<span className="muted small">append-only; secrets are never recorded</span>}>
        <DataTable data={history.data?.records ?? []} columns={historyColumns} empty="No changes recorded" testId="history-table" />
      </Card>
      {rotateOpen ? (
        <Modal title="Rotate the shared secret" onClose={() => setRotateOpen(false)} testId="rotate-modal">
          <p>
            A new secret is generated and signs every callback from now on. The casino's requests signed with the current secret keep verifying during the grace
            period, so it can switch without downtime.
          </p>
          <label className="field">
            <span>Grace period for the current secret</span>
            <select value={grace} onChange={(e) => setGrace(Number(e.target.value))} data-testid="grace-hours">
              <option value={0}>None — the current secret stops at once</option>
              <option value={1}>1 hour</option>
              <option value={24}>24 hours</option>
              <option value={72}>3 days</option>
              <option value={168}>7 days</option>
            </select>
          </label>
          <div className="modal-actions">
            <button className="btn secondary" onClick={() => setRotateOpen(false)}>
              Cancel
            </button>
            <button className="btn danger" onClick={() => rotate.mutate()} disabled={rotate.isPending} data-testid="rotate-confirm">
              Rotate now
            </button>
          </div>
        </Modal>
      ) : null}
      {secret ? (
        <Modal title="New shared secret" onClose={() => setSecret(null)} testId="secret-modal">
          <OneTimeSecret label="Shared secret" value={secret.value} testId="new-secret" />
          <p className="muted">
            {secret.until
              ? `The previous secret verifies the casino's requests until ${when(secret.until)}.`
              : 'The previous secret no longer verifies anything.'}
          </p>
          <div className="modal-actions">
            <button className="btn primary" onClick={() => setSecret(null)} data-testid="secret-done">
              Done
            </button>
          </div>
        </Modal>
      ) : null}
    </>
  );
}

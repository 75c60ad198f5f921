/** Staff: the accounts of the own casino (every account for a platform admin), invitations with a one-time password, role changes, removal. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { api, get, type Role, type StaffMember, type Answer } from '../api.js';
import { useAuth } from '../auth.js';
import { Badge, Card, DataTable, ErrorNote, Modal, OneTimeSecret, PageHeader } from '../components.js';
import { ROLE_LABEL, when } from '../format.js';

const inviteSchema = z.object({
  email: z.string().regex(/^[^\s@]+@[^\s@]+$/, 'An email address'),
  role: z.enum(['platform_admin', 'admin', 'viewer']),
  tenantId: z.string().max(64),
});
type Invite = z.infer<typeof inviteSchema>;

export function StaffPage() {
  const { me, canWrite, isPlatform } = useAuth();
  const client = useQueryClient();
  const [inviteOpen, setInviteOpen] = useState(false);
  const [invited, setInvited] = useState<{ email: string; password: string } | null>(null);
  const staff = useQuery({ queryKey: ['staff'], queryFn: () => get<Answer<'listStaff'>>('/api/admin/staff') });
  const refresh = () => client.invalidateQueries({ queryKey: ['staff'] });
  const changeRole = useMutation({
    mutationFn: (v: { id: string; role: Role }) => api('PATCH', `/api/admin/staff/${v.id}`, { role: v.role }),
    onSuccess: refresh,
  });
  const remove = useMutation({ mutationFn: (id: string) => api('DELETE', `/api/admin/staff/${id}`), onSuccess: refresh });
  const form = useForm<Invite>({ resolver: zodResolver(inviteSchema), defaultValues: { email: '', role: 'viewer', tenantId: me.staff.tenantId ?? '' } });
  const [inviteError, setInviteError] = useState<unknown>(null);
  const submit = form.handleSubmit(async (v) => {
    setInviteError(null);
    try {
      const res = await api<Answer<'inviteStaff'>>('POST', '/api/admin/staff', {
        email: v.email,
        role: v.role,
        tenantId: v.role === 'platform_admin' ? null : v.tenantId || null,
      });
      setInviteOpen(false);
      setInvited({ email: res.staff.email, password: res.temporaryPassword });
      form.reset();
      await refresh();
    } catch (err) {
      setInviteError(err);
    }
  });

  const columns: ColumnDef<StaffMember, unknown>[] = [
    { header: 'Email', accessorKey: 'email', cell: (c) => <strong>{c.getValue<string>()}</strong> },
    { header: 'Casino', accessorKey: 'tenantId', cell: (c) => c.getValue<string | null>() ?? <span className="muted">platform</span> },
    {
      header: 'Role',
      accessorKey: 'role',
      cell: (c) => {
        const m = c.row.original;
        if (!canWrite || m.role === 'platform_admin' || m.staffId === me.staff.staffId)
          return <Badge tone={m.role === 'viewer' ? 'gray' : 'blue'}>{ROLE_LABEL[m.role]}</Badge>;
        return (
          <select
            value={m.role}
            onChange={(e) => changeRole.mutate({ id: m.staffId, role: e.target.value as Role })}
            className="compact"
            data-testid={`role-${m.email}`}
          >
            <option value="admin">Casino admin</option>
            <option value="viewer">Casino viewer</option>
          </select>
        );
      },
    },
    { header: 'Last sign-in', accessorKey: 'lastLoginAt', cell: (c) => when(c.getValue<string | null>()) },
    {
      header: 'Status',
      accessorKey: 'lockedUntil',
      cell: (c) =>
        c.getValue<string | null>() && Date.parse(c.getValue<string>()) > Date.now() ? <Badge tone="red">Locked</Badge> : <Badge tone="green">Active</Badge>,
    },
    { header: 'Created', accessorKey: 'createdAt', cell: (c) => when(c.getValue<string>()) },
    {
      header: '',
      id: 'remove',
      meta: { align: 'right' },
      cell: (c) =>
        canWrite && c.row.original.staffId !== me.staff.staffId && (isPlatform || c.row.original.role !== 'platform_admin') ? (
          <button
            className="btn ghost small danger-text"
            onClick={() => {
              if (window.confirm(`Remove ${c.row.original.email}? Their sessions end at once.`)) remove.mutate(c.row.original.staffId);
            }}
          >
            Remove
          </button>
        ) : null,
    },
  ];
  const role = form.watch('role');
  return (
    <>
      <PageHeader
        title="Staff"
        subtitle={isPlatform ? 'Every account of the platform and the casinos' : `The accounts of ${me.staff.tenantId}`}
        actions={
          canWrite ? (
            <button className="btn primary" onClick={() => setInviteOpen(true)} data-testid="invite-staff">
              Invite staff
            </button>
          ) : null
        }
      />
      <ErrorNote error={staff.error ?? changeRole.error ?? remove.error} />
      <Card>
        <DataTable data={staff.data?.staff ?? []} columns={columns} testId="staff-table" />
      </Card>
      {inviteOpen ? (
        <Modal title="Invite a staff member" onClose={() => setInviteOpen(false)} testId="invite-modal">
          <form onSubmit={(e) => void submit(e)} noValidate className="stack">
            <label className="field">
              <span>Email</span>
              <input {...form.register('email')} data-testid="invite-email" />
              {form.formState.errors.email ? <em>{form.formState.errors.email.message}</em> : null}
            </label>
            <label className="field">
              <span>Role</span>
              <select {...form.register('role')} data-testid="invite-role">
                <option value="viewer">Casino viewer — reads everything of the casino</option>
                <option value="admin">Casino admin — also changes profiles, staff, retries</option>
                {isPlatform ? <option value="platform_admin">Platform admin — every casino</option> : null}
              </select>
            </label>
            {role !== 'platform_admin' ? (
              <label className="field">
                <span>Casino (tenant)</span>
                <input {...form.register('tenantId')} disabled={!isPlatform} list="staff-tenants" data-testid="invite-tenant" />
                <datalist id="staff-tenants">
                  {me.tenants.map((t) => (
                    <option key={t} value={t} />
                  ))}
                </datalist>
              </label>
            ) : null}
            <ErrorNote error={inviteError} />
            <div className="modal-actions">
              <button type="button" className="btn secondary" onClick={() => setInviteOpen(false)}>
                Cancel
              </button>
              <button type="submit" className="btn primary" data-testid="invite-submit">
                Create account
              </button>
            </div>
          </form>
        </Modal>
      ) : null}
      {invited ? (
        <Modal title="Account created" onClose={() => setInvited(null)} testId="invited-modal">
          <p>
            Send <strong>{invited.email}</strong> this temporary password through a channel you trust; they should change it after signing in.
          </p>
          <OneTimeSecret label="Temporary password" value={invited.password} testId="temp-password" />
          <div className="modal-actions">
            <button className="btn primary" onClick={() => setInvited(null)}>
              Done
            </button>
          </div>
        </Modal>
      ) : null}
    </>
  );
}

/** The own account: password change (the current one, then a new one of 12+ characters). */
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { api } from '../api.js';
import { useAuth } from '../auth.js';
import { Card, ErrorNote, PageHeader } from '../components.js';
import { ROLE_LABEL } from '../format.js';

const schema = z
  .object({
    currentPassword: z.string().min(1, 'Enter the current password'),
    newPassword: z.string().min(12, 'At least 12 characters').max(200),
    confirm: z.string(),
  })
  .refine((v) => v.newPassword === v.confirm, { message: 'The passwords differ', path: ['confirm'] });
type Form = z.infer<typeof schema>;

export function AccountPage() {
  const { me } = useAuth();
  const [done, setDone] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const { register, handleSubmit, formState, reset } = useForm<Form>({ resolver: zodResolver(schema) });
  const submit = handleSubmit(async (v) => {
    setError(null);
    try {
      await api('POST', '/api/admin/auth/password', { currentPassword: v.currentPassword, newPassword: v.newPassword });
      setDone(true);
      reset();
    } catch (err) {
      setError(err);
    }
  });
  return (
    <>
      <PageHeader
        title="Account"
        subtitle={`${me.staff.email ?? 'Bootstrap token'} · ${ROLE_LABEL[me.staff.role]}${me.staff.tenantId ? ` · ${me.staff.tenantId}` : ''}`}
      />
      <Card title="Change password" className="narrow">
        {me.staff.via === 'token' ? (
          <p className="muted">The bootstrap token has no password.</p>
        ) : (
          <form onSubmit={(e) => void submit(e)} noValidate className="stack">
            <label className="field">
              <span>Current password</span>
              <input type="password" autoComplete="current-password" {...register('currentPassword')} />
              {formState.errors.currentPassword ? <em>{formState.errors.currentPassword.message}</em> : null}
            </label>
            <label className="field">
              <span>New password</span>
              <input type="password" autoComplete="new-password" {...register('newPassword')} />
              {formState.errors.newPassword ? <em>{formState.errors.newPassword.message}</em> : null}
            </label>
            <label className="field">
              <span>Repeat the new password</span>
              <input type="password" autoComplete="new-password" {...register('confirm')} />
              {formState.errors.confirm ? <em>{formState.errors.confirm.message}</em> : null}
            </label>
            <ErrorNote error={error} />
            {done ? <div className="alert success">Password changed. Your other sessions were signed out.</div> : null}
            <div>
              <button className="btn primary" type="submit" disabled={formState.isSubmitting}>
                Change password
              </button>
            </div>
          </form>
        )}
      </Card>
    </>
  );
}

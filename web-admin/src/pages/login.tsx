/** Sign-in: email and password (react-hook-form + zod); a locked account says so. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { z } from 'zod';
import { ApiError } from '../api.js';
import { signIn } from '../auth.js';

const schema = z.object({ email: z.string().min(3, 'Enter your email').max(254), password: z.string().min(1, 'Enter your password').max(200) });
type Form = z.infer<typeof schema>;

export function LoginPage() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const { register, handleSubmit, formState } = useForm<Form>({ resolver: zodResolver(schema) });
  const submit = handleSubmit(async (values) => {
    setError(null);
    try {
      const me = await signIn(values.email, values.password);
      client.setQueryData(['me'], { staff: me.staff, tenants: me.tenants });
      void navigate('/');
    } catch (err) {
      if (err instanceof ApiError && err.code === 'RATE_LIMITED')
        setError('Too many failed sign-ins for this email. Try again in 15 minutes or ask an administrator.');
      else if (err instanceof ApiError && err.code === 'UNAUTHORIZED') setError('The email or the password is wrong.');
      else setError(err instanceof Error ? err.message : String(err));
    }
  });
  return (
    <div className="login-page">
      <div className="login-panel">
        <div className="brand login-brand">
          <span className="brand-mark">GP</span>
          <span>
            <strong>Provider Console</strong>
            <small>Operators, rounds and money</small>
          </span>
        </div>
        <h1>Sign in</h1>
        <p className="muted">Staff accounts of the game provider and its casinos.</p>
        <form onSubmit={(e) => void submit(e)} noValidate>
          <label className="field">
            <span>Email</span>
            <input type="email" autoComplete="username" data-testid="login-email" {...register('email')} />
            {formState.errors.email ? <em>{formState.errors.email.message}</em> : null}
          </label>
          <label className="field">
            <span>Password</span>
            <input type="password" autoComplete="current-password" data-testid="login-password" {...register('password')} />
            {formState.errors.password ? <em>{formState.errors.password.message}</em> : null}
          </label>
          {error ? (
            <div className="alert error" role="alert" data-testid="login-error">
              {error}
            </div>
          ) : null}
          <button className="btn primary block" type="submit" disabled={formState.isSubmitting} data-testid="login-submit">
            {formState.isSubmitting ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        <p className="muted small">Sessions end after 2 hours without activity. Five wrong passwords lock the account for 15 minutes.</p>
      </div>
      <div className="login-aside">
        <h2>Run your casino's games with confidence</h2>
        <ul>
          <li>Every round with its provably fair proof and the full wallet callback trail</li>
          <li>Reconciliation per operator, currency and day, exported as CSV</li>
          <li>Secret rotation with a grace period, and an audit of every change</li>
        </ul>
      </div>
    </div>
  );
}

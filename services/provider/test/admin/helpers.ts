/** Staff sessions over inject: the CSRF token, login, and the headers a signed-in browser sends. */
import type { TestApp } from '../helpers/app.js';
import { createAccount } from '../../src/staff/staff.js';
import type { StaffRole } from '../../src/staff/staff-store.js';

export interface StaffSession {
  email: string;
  staffId: string;
  /** cookie + x-csrf-token, as the console sends them */
  headers: Record<string, string>;
}

export const PASSWORD = 'correct horse battery staple';

function cookiesOf(setCookie: string | string[] | undefined): Record<string, string> {
  const list = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  return Object.fromEntries(list.map((c) => c.split(';')[0]!.split('=') as [string, string]));
}

export async function csrf(t: TestApp): Promise<{ token: string; cookie: string }> {
  const res = await t.app.inject({ method: 'GET', url: '/api/admin/auth/csrf' });
  const cookies = cookiesOf(res.headers['set-cookie']);
  return { token: res.json().csrfToken, cookie: `gp_admin_csrf=${cookies.gp_admin_csrf}` };
}

export async function login(t: TestApp, email: string, password = PASSWORD, ip = '127.0.0.1') {
  const c = await csrf(t);
  return t.app.inject({
    method: 'POST',
    url: '/api/admin/auth/login',
    remoteAddress: ip,
    headers: { cookie: c.cookie, 'x-csrf-token': c.token },
    payload: { email, password },
  });
}

export async function staffSession(t: TestApp, email: string, role: StaffRole, tenantId: string | null): Promise<StaffSession> {
  const account = await createAccount(t.services.db, { email, password: PASSWORD, role, tenantId });
  const res = await login(t, email);
  if (res.statusCode !== 200) throw new Error(`login ${email}: ${res.body}`);
  const cookies = cookiesOf(res.headers['set-cookie']);
  return {
    email,
    staffId: account.staffId,
    headers: { cookie: `gp_admin_session=${cookies.gp_admin_session}; gp_admin_csrf=${cookies.gp_admin_csrf}`, 'x-csrf-token': res.json().csrfToken },
  };
}

/** A profile on the sandbox casino (bets need no casino process). */
export const profile = (tenantId: string | null, currency = 'USD') => ({
  currency,
  callbackBaseUrl: 'sandbox://demo-casino',
  sharedSecret: 'shared-secret-0123456789abcdef',
  minBet: 0.1,
  stakeStep: 0.01,
  maxPayout: 10_000,
  tenantId,
});

/** Plays one settled dice bet for a player of a profile; answers the round id. */
export async function playDice(t: TestApp, operatorId: string, playerRef = 'p1'): Promise<string> {
  const launch = await t.app.inject({ method: 'POST', url: '/sandbox/launch', payload: { operatorId, playerRef, gameType: 'dice' } });
  const session = await t.app.inject({ method: 'POST', url: '/api/sessions', payload: { operatorId, launchToken: launch.json().launchToken } });
  const bet = await t.app.inject({
    method: 'POST',
    url: '/api/bets',
    payload: {
      sessionId: session.json().sessionId,
      gameType: 'dice',
      amount: 1,
      idempotencyKey: `k-${Math.random()}`,
      params: { target: 50.5, direction: 'over' },
    },
  });
  if (bet.statusCode !== 200) throw new Error(`bet: ${bet.body}`);
  return bet.json().roundId;
}

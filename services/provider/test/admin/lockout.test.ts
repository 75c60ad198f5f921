/**
 * Staff lockout under a burst (issue 23 defect 2): the attempt is reserved atomically in
 * PostgreSQL before the slow password hash, so a burst of parallel logins (from rotating IPs)
 * gets no more evaluations than a patient attacker; the password change counts wrong current
 * passwords against the same limit; known and unknown emails answer alike, lock included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, createTestApp, type TestApp } from '../helpers/app.js';
import { createAccount, LOCKOUT } from '../../src/staff/staff.js';
import { csrf, login, PASSWORD, staffSession } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

/** Sends every login at once, each from its own IP (the per-IP limit is not what holds here). */
async function burst(email: string, passwords: string[], net: string) {
  const tokens = await Promise.all(passwords.map(() => csrf(t)));
  return Promise.all(
    passwords.map((password, i) =>
      t.app.inject({
        method: 'POST',
        url: '/api/admin/auth/login',
        remoteAddress: `${net}.${i + 1}`,
        headers: { cookie: tokens[i]!.cookie, 'x-csrf-token': tokens[i]!.token },
        payload: { email, password },
      }),
    ),
  );
}

const count = (answers: { statusCode: number }[], status: number) => answers.filter((a) => a.statusCode === status).length;

describe('login lockout under a burst', () => {
  it('evaluates no more than the allowed attempts of 30 parallel wrong logins; the right password is then locked out too', async () => {
    await createAccount(t.services.db, { email: 'burst@a.test', password: PASSWORD, role: 'admin', tenantId: 'casino-a' });
    const answers = await burst(
      'burst@a.test',
      Array.from({ length: 30 }, (_, i) => `wrong password ${i}`),
      '10.23.1',
    );
    expect(count(answers, 401)).toBe(LOCKOUT.maxFailures);
    expect(count(answers, 429)).toBe(30 - LOCKOUT.maxFailures);
    for (const a of answers.filter((x) => x.statusCode === 429)) expect(a.json().code).toBe('RATE_LIMITED');
    const after = await login(t, 'burst@a.test', PASSWORD, '10.23.1.200');
    expect(after.statusCode).toBe(429);
    expect(after.json().code).toBe('RATE_LIMITED');
    const list = await t.app.inject({ method: 'GET', url: '/api/admin/staff?tenantId=casino-a', headers: adminHeaders });
    const row = (list.json().staff as { email: string; lockedUntil: string | null }[]).find((a) => a.email === 'burst@a.test')!;
    expect(Date.parse(row.lockedUntil!)).toBeGreaterThan(Date.now());
  });

  it('29 wrong and 1 right in parallel: the right one (sent last) does not sign in', async () => {
    await createAccount(t.services.db, { email: 'burst2@a.test', password: PASSWORD, role: 'admin', tenantId: 'casino-a' });
    const answers = await burst('burst2@a.test', [...Array.from({ length: 29 }, (_, i) => `wrong password ${i}`), PASSWORD], '10.23.2');
    expect(answers[29]!.statusCode).toBe(429);
    expect(count(answers, 200)).toBe(0);
    expect(count(answers, 401)).toBe(LOCKOUT.maxFailures);
  });

  it('a right password within the limit signs in and resets the count', async () => {
    await createAccount(t.services.db, { email: 'reset@a.test', password: PASSWORD, role: 'viewer', tenantId: 'casino-a' });
    for (let i = 0; i < LOCKOUT.maxFailures - 1; i++) expect((await login(t, 'reset@a.test', 'wrong password!!', '10.23.3.1')).statusCode).toBe(401);
    expect((await login(t, 'reset@a.test', PASSWORD, '10.23.3.2')).statusCode).toBe(200);
    for (let i = 0; i < LOCKOUT.maxFailures - 1; i++) expect((await login(t, 'reset@a.test', 'wrong password!!', '10.23.3.3')).statusCode).toBe(401);
    expect((await login(t, 'reset@a.test', PASSWORD, '10.23.3.4')).statusCode).toBe(200);
  });
});

describe('known and unknown emails answer alike', () => {
  it('a wrong password answers the same for an existing and an unknown email, and both lock after the same number of attempts', async () => {
    await createAccount(t.services.db, { email: 'known@a.test', password: PASSWORD, role: 'viewer', tenantId: 'casino-a' });
    const known: { statusCode: number; body: string }[] = [];
    const unknown: { statusCode: number; body: string }[] = [];
    for (let i = 0; i <= LOCKOUT.maxFailures; i++) {
      known.push(await login(t, 'known@a.test', 'wrong password!!', '10.23.4.1'));
      unknown.push(await login(t, 'unknown@a.test', 'wrong password!!', '10.23.4.2'));
    }
    const shape = (r: { statusCode: number; body: string }) => ({ status: r.statusCode, ...(JSON.parse(r.body) as object) });
    expect(known.map(shape)).toEqual(unknown.map(shape));
    expect(known.map((r) => r.statusCode)).toEqual([...Array<number>(LOCKOUT.maxFailures).fill(401), 429]);
  });

  it('the email is matched case-insensitively for the count (no fresh attempts by changing case)', async () => {
    await createAccount(t.services.db, { email: 'case@a.test', password: PASSWORD, role: 'viewer', tenantId: 'casino-a' });
    for (let i = 0; i < LOCKOUT.maxFailures; i++) await login(t, i % 2 ? 'CASE@a.test' : 'case@A.TEST', 'wrong password!!', '10.23.5.1');
    expect((await login(t, 'Case@a.test', PASSWORD, '10.23.5.2')).statusCode).toBe(429);
  });
});

describe('password change counts wrong current passwords', () => {
  const change = (headers: Record<string, string>, currentPassword: string) =>
    t.app.inject({ method: 'POST', url: '/api/admin/auth/password', headers, payload: { currentPassword, newPassword: 'a brand new password' } });

  it('locks after the same limit: the right current password is then refused, and so is login', async () => {
    const s = await staffSession(t, 'pwlock@a.test', 'viewer', 'casino-a');
    for (let i = 0; i < LOCKOUT.maxFailures; i++) {
      const bad = await change(s.headers, `not the password ${i}`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().code).toBe('VALIDATION_ERROR');
    }
    const locked = await change(s.headers, PASSWORD);
    expect(locked.statusCode).toBe(429);
    expect(locked.json().code).toBe('RATE_LIMITED');
    expect((await login(t, 'pwlock@a.test', PASSWORD, '10.23.6.1')).statusCode).toBe(429);
  });

  it('a burst of wrong current passwords gets no more evaluations than the limit', async () => {
    const s = await staffSession(t, 'pwburst@a.test', 'viewer', 'casino-a');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => change(s.headers, `not the password ${i}`)));
    expect(count(answers, 400)).toBe(LOCKOUT.maxFailures);
    expect(count(answers, 429)).toBe(20 - LOCKOUT.maxFailures);
  });
});

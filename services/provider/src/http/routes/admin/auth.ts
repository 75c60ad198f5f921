/**
 * Staff sign-in of the admin console (issue 13 item 1): the CSRF token, login (lockout in
 * staff/staff.ts), the session cookie (httpOnly, SameSite=Strict, Secure in production), who am I,
 * logout, password change.
 */
import { z } from 'zod';
import type { Services } from '../../../services.js';
import type { AppInstance } from '../../zod-provider.js';
import { login, logout } from '../../../staff/staff.js';
import { changeOwnPassword, visibleTenants } from '../../../staff/staff-admin.js';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../../staff/passwords.js';
import { checkCsrf, CSRF_COOKIE, STAFF_SESSION_COOKIE, staffOf } from '../../authentication.js';
import { csrfAnswer, meAnswer, okAnswer } from '../../answers.js';
import { actorOf } from './actor.js';

export const emailSchema = z
  .string()
  .min(3)
  .max(254)
  .regex(/^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+$/u, 'must be an email address')
  .transform((v) => v.toLowerCase());
export const passwordSchema = z.string().min(PASSWORD_MIN, `at least ${PASSWORD_MIN} characters`).max(PASSWORD_MAX);
const loginBody = z.object({ email: emailSchema, password: z.string().min(1).max(PASSWORD_MAX) }).strict();
const passwordBody = z.object({ currentPassword: z.string().min(1).max(PASSWORD_MAX), newPassword: passwordSchema }).strict();

export function adminAuthRoutes(app: AppInstance, s: Services): void {
  const cookieOptions = { path: '/', httpOnly: true, sameSite: 'strict' as const, secure: s.config.production };

  app.get(
    '/api/admin/auth/csrf',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'adminCsrfToken',
        summary: 'A CSRF token for the admin console (its secret travels in an httpOnly cookie)',
        tags: ['admin'],
        response: { 200: csrfAnswer },
      },
    },
    async (_request, reply) => ({ csrfToken: reply.generateCsrf() }),
  );

  app.post(
    '/api/admin/auth/login',
    {
      config: { auth: 'public', rateLimitPolicy: 'login' },
      schema: {
        operationId: 'adminLogin',
        summary: 'Staff sign-in: sets the session cookie',
        tags: ['admin'],
        body: loginBody,
        response: { 200: meAnswer.extend({ csrfToken: z.string() }) },
      },
    },
    async (request, reply) => {
      await checkCsrf(app, request);
      const ua = request.headers['user-agent'];
      const { token, account, expiresAt } = await login(s.db, request.body.email, request.body.password, {
        ip: request.ip,
        userAgent: typeof ua === 'string' ? ua : null,
      });
      reply.setCookie(STAFF_SESSION_COOKIE, token, { ...cookieOptions, expires: expiresAt });
      // A new CSRF secret for the new session (no token from before the login carries over).
      delete (request.cookies as Record<string, string | undefined>)[CSRF_COOKIE];
      const csrfToken = reply.generateCsrf();
      const tenants = account.tenantId ? [account.tenantId] : await visibleTenants(s.db, s.operators, account);
      return {
        staff: { staffId: account.staffId, email: account.email, role: account.role, tenantId: account.tenantId, via: 'session' as const },
        tenants,
        csrfToken,
      };
    },
  );

  app.get(
    '/api/admin/auth/me',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'self' } },
      schema: { operationId: 'adminMe', summary: 'The signed-in staff member', tags: ['admin'], response: { 200: meAnswer } },
    },
    async (request) => {
      const p = staffOf(request);
      const tenants = await visibleTenants(s.db, s.operators, p);
      return { staff: { staffId: p.staffId, email: p.email, role: p.role, tenantId: p.tenantId, via: p.via }, tenants };
    },
  );

  app.post(
    '/api/admin/auth/logout',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'self' } },
      schema: { operationId: 'adminLogout', summary: 'Ends the session (revoked on the server)', tags: ['admin'], response: { 200: okAnswer } },
    },
    async (request, reply) => {
      await logout(s.db, staffOf(request));
      reply.clearCookie(STAFF_SESSION_COOKIE, { path: '/' });
      return { ok: true as const };
    },
  );

  app.post(
    '/api/admin/auth/password',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'self' } },
      schema: {
        operationId: 'adminChangePassword',
        summary: 'Changes the own password; other sessions are revoked',
        tags: ['admin'],
        body: passwordBody,
        response: { 200: okAnswer },
      },
    },
    async (request) => {
      await changeOwnPassword(s.db, staffOf(request), actorOf(request), request.body.currentPassword, request.body.newPassword);
      return { ok: true as const };
    },
  );
}

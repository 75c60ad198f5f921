/**
 * Field rules of an operator-currency profile that the admin console's forms use as they are
 * (web-admin imports this file and operator-schema.ts through its `@gp/provider-schemas` alias):
 * zod only, no Node built-ins.
 */
import { z } from 'zod';

export const operatorIdSchema = z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash and underscore only');

/** The casino a profile belongs to (CONTRACT.md §7 `tenantId`). */
export const tenantIdSchema = z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash and underscore only');


/**
 * An embed origin (CONTRACT.md §14): `scheme://host[:port]` as the URL standard serialises it.
 * The scheme and host's case and a default port are normalised (`HTTPS://Casino.Example:443` is
 * stored as `https://casino.example`); a path (a trailing slash too), query, fragment, user info,
 * wildcard or a scheme other than http(s) is refused.
 */
export const originSchema = z
  .string()
  .max(300)
  .transform((v, ctx) => {
    const origin = embedOrigin(v);
    if (origin === null) {
      ctx.addIssue({ code: 'custom', message: 'must be an origin such as https://casino.example (no path, no trailing slash, no wildcard)' });
      return z.NEVER;
    }
    return origin;
  });

export function embedOrigin(v: string): string | null {
  if (v.includes('*') || !/^https?:\/\/[^/?#]+$/i.test(v)) return null;
  try {
    const u = new URL(v);
    if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password) return null;
    return u.origin;
  } catch {
    return null;
  }
}


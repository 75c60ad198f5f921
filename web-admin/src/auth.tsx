/** Who is signed in: the `me` query; login and logout; what the role may do. */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { api, ApiError, get, setCsrfToken, type Me } from './api.js';

interface Auth {
  me: Me;
  canWrite: boolean;
  isPlatform: boolean;
  logout(): Promise<void>;
}

const AuthContext = createContext<Auth | null>(null);

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside the signed-in console');
  return auth;
}

export function useMe() {
  return useQuery({
    queryKey: ['me'],
    queryFn: async () => {
      try {
        return await get<Me>('/api/admin/auth/me');
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
    staleTime: 60_000,
  });
}

export async function signIn(email: string, password: string): Promise<Me> {
  setCsrfToken(null);
  const res = await api<Me & { csrfToken: string }>('POST', '/api/admin/auth/login', { email, password });
  setCsrfToken(res.csrfToken);
  return res;
}

export function AuthProvider({ me, children }: { me: Me; children: ReactNode }) {
  const client = useQueryClient();
  const value: Auth = {
    me,
    canWrite: me.staff.role !== 'viewer',
    isPlatform: me.staff.role === 'platform_admin',
    async logout() {
      await api('POST', '/api/admin/auth/logout').catch(() => undefined);
      setCsrfToken(null);
      client.clear();
      client.setQueryData(['me'], null);
    },
  };
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

/** The admin console: the router (react-router 7, under /admin), server state (TanStack Query), the signed-in shell. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, Navigate, Outlet, RouterProvider } from 'react-router';
import { AuthProvider, useMe } from './auth.js';
import { Loading, Shell } from './components.js';
import { AccountPage } from './pages/account.js';
import { AuditPage } from './pages/audit.js';
import { DashboardPage } from './pages/dashboard.js';
import { LoginPage } from './pages/login.js';
import { OperatorDetailPage, OperatorEditPage, OperatorNewPage, OperatorsPage } from './pages/operators.js';
import { PromotionPage, PromotionsPage } from './pages/promotions.js';
import { ReconciliationPage } from './pages/reconciliation.js';
import { RoundPage, RoundsPage } from './pages/rounds.js';
import { StaffPage } from './pages/staff.js';
import './styles.css';

const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });

function SignedIn() {
  const me = useMe();
  if (me.isLoading) return <Loading />;
  if (!me.data) return <Navigate to="/login" replace />;
  return (
    <AuthProvider me={me.data}>
      <Outlet />
    </AuthProvider>
  );
}

const router = createBrowserRouter(
  [
    { path: '/login', element: <LoginPage /> },
    {
      element: <SignedIn />,
      children: [
        {
          element: <Shell />,
          children: [
            { index: true, element: <DashboardPage /> },
            { path: 'operators', element: <OperatorsPage /> },
            { path: 'operators/new', element: <OperatorNewPage /> },
            { path: 'operators/:operatorId', element: <OperatorDetailPage /> },
            { path: 'operators/:operatorId/edit', element: <OperatorEditPage /> },
            { path: 'rounds', element: <RoundsPage /> },
            { path: 'rounds/:roundId', element: <RoundPage /> },
            { path: 'reconciliation', element: <ReconciliationPage /> },
            { path: 'promotions', element: <PromotionsPage /> },
            { path: 'promotions/:promoId', element: <PromotionPage /> },
            { path: 'staff', element: <StaffPage /> },
            { path: 'audit', element: <AuditPage /> },
            { path: 'account', element: <AccountPage /> },
            { path: '*', element: <Navigate to="/" replace /> },
          ],
        },
      ],
    },
  ],
  { basename: '/admin' },
);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);

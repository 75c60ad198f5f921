/**
 * Reconciliation and the dashboard in the admin console (issue 13 items 7–8): rows with filters,
 * totals per operator, currency and day, the CSV export (streamed), and the dashboard's figures.
 * Casino staff see their tenant's profiles only (`scope: 'list'`).
 */
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { Services } from '../../../services.js';
import type { AppInstance } from '../../zod-provider.js';
import { AppError } from '../../../errors.js';
import { dashboard, reconciliationCsv, reconciliationTotals } from '../../../rounds/admin-reports.js';
import { reconciliationRows, RECONCILIATION_TYPES } from '../../../rounds/reconciliation.js';
import { dashboardAnswer, reconciliationAnswer, totalsAnswer } from '../../answers.js';
import { operatorIdText, queryInt, queryTime } from '../../schemas.js';

const filters = {
  operatorId: operatorIdText.optional(),
  type: z.enum(RECONCILIATION_TYPES).optional(),
  status: z.enum(['pending', 'succeeded', 'failed']).optional(),
  from: queryTime.optional(),
  to: queryTime.optional(),
  /** `true`: only free-bet rounds' callbacks; `false`: only paid ones (docs/free-bets.md) */
  freeBet: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true')),
  /** `true`: the promo credits instead of the rounds' callbacks (docs/promotions.md "Reconciling") */
  promo: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true'),
};
const rowsQuery = z.object({
  ...filters,
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,400}$/, 'must be a cursor this route answered')
    .optional(),
  limit: queryInt(1, 500, 100),
});
const csvQuery = z.object(filters);
const totalsQuery = z.object({ operatorId: operatorIdText.optional(), from: queryTime.optional(), to: queryTime.optional() });
const dashboardQuery = z.object({ operatorId: operatorIdText.optional(), from: queryTime, to: queryTime });

const MAX_DASHBOARD_DAYS = 92;

export function adminReportRoutes(app: AppInstance, s: Services): void {
  app.get(
    '/api/admin/reconciliation',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'list' } },
      schema: {
        operationId: 'adminReconciliation',
        summary: 'Reconciliation rows with filters',
        tags: ['admin'],
        querystring: rowsQuery,
        response: { 200: reconciliationAnswer },
      },
    },
    async (request) => reconciliationRows(s.db, { ...request.query, operatorIds: request.staffScope.operatorIds }),
  );

  app.get(
    '/api/admin/reconciliation/totals',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'list' } },
      schema: {
        operationId: 'reconciliationTotals',
        summary: 'Paid stakes, payouts, rollbacks and GGR, free-bet payouts and promo credits per operator, currency and UTC day',
        tags: ['admin'],
        querystring: totalsQuery,
        response: { 200: totalsAnswer },
      },
    },
    async (request) => reconciliationTotals(s.db, { ...request.query, operatorIds: request.staffScope.operatorIds }),
  );

  app.get(
    '/api/admin/reconciliation.csv',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'list' } },
      schema: {
        operationId: 'reconciliationCsv',
        summary: 'The filtered reconciliation rows as CSV, streamed (text/csv)',
        tags: ['admin'],
        querystring: csvQuery,
        response: { 200: z.string().meta({ description: 'text/csv' }) },
      },
    },
    async (request, reply) => {
      const stream = Readable.from(reconciliationCsv(s.db, { ...request.query, operatorIds: request.staffScope.operatorIds }));
      const stamp = new Date().toISOString().slice(0, 10);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="reconciliation-${stamp}.csv"`)
        .header('cache-control', 'no-store')
        .send(stream as unknown as string); // a stream is sent as it is read, never serialised
    },
  );

  app.get(
    '/api/admin/dashboard',
    {
      config: { auth: 'staff', staff: { role: 'viewer', scope: 'list' } },
      schema: {
        operationId: 'adminDashboard',
        summary: 'Bets per minute, GGR, pending retries, callback health, measured and design RTP over a time range',
        tags: ['admin'],
        querystring: dashboardQuery,
        response: { 200: dashboardAnswer },
      },
    },
    async (request) => {
      const { from, to } = request.query;
      if (Date.parse(to) <= Date.parse(from)) throw new AppError('VALIDATION_ERROR', '`to` must be after `from`');
      if (Date.parse(to) - Date.parse(from) > MAX_DASHBOARD_DAYS * 86_400_000)
        throw new AppError('VALIDATION_ERROR', `the range may span at most ${MAX_DASHBOARD_DAYS} days`);
      return dashboard(s.db, { operatorIds: request.staffScope.operatorIds, from, to });
    },
  );
}

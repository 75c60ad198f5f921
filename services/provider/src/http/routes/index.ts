/**
 * Every route group, registered in one visible order. Each route declares who may call it
 * (`config.auth`, http/authentication.ts) and its request and response schemas (/openapi.json).
 */
import type { Services } from '../../services.js';
import type { AppInstance } from '../zod-provider.js';
import { adminPageRoutes } from './admin/admin-page.js';
import { adminAuditRoutes } from './admin/audit.js';
import { adminAuthRoutes } from './admin/auth.js';
import { adminOperatorRoutes } from './admin/operators.js';
import { adminReportRoutes } from './admin/reports.js';
import { adminRoundRoutes } from './admin/rounds.js';
import { adminStaffRoutes } from './admin/staff.js';
import { adminWebhookRoutes } from './admin/webhooks.js';
import { operatorReportRoutes } from './operator-reports.js';
import { betRoutes } from './bets.js';
import { blackjackRoutes } from './blackjack.js';
import { fairnessRoutes } from './fairness.js';
import { freeBetRoutes } from './free-bets.js';
import { promotionRoutes } from './promotions.js';
import { gamePageRoutes } from './game-page.js';
import { gamesCatalogueRoutes } from './games-catalogue.js';
import { healthRoutes } from './health.js';
import { minesRoutes } from './mines.js';
import { operatorConfigRoutes } from './operator-config.js';
import { reconciliationRoutes } from './reconciliation.js';
import { sandboxRoutes } from './sandbox.js';
import { sessionRoutes } from './sessions.js';
import { walletOpenApiRoutes } from './wallet-openapi.js';
import { walletRetryRoutes } from './wallet-retries.js';

export function registerRoutes(app: AppInstance, s: Services): void {
  // operations
  healthRoutes(app, s);
  walletRetryRoutes(app, s);
  // players (the game page)
  gamePageRoutes(app, s);
  sandboxRoutes(app, s);
  operatorConfigRoutes(app, s);
  sessionRoutes(app, s);
  betRoutes(app, s);
  minesRoutes(app, s);
  blackjackRoutes(app, s);
  fairnessRoutes(app, s);
  // casinos and staff
  gamesCatalogueRoutes(app, s);
  walletOpenApiRoutes(app);
  reconciliationRoutes(app, s);
  adminOperatorRoutes(app, s);
  // the admin console (issue 13): its page, sign-in, staff, audit, rounds, reports
  adminPageRoutes(app, s);
  adminAuthRoutes(app, s);
  adminStaffRoutes(app, s);
  adminAuditRoutes(app, s);
  adminRoundRoutes(app, s);
  adminReportRoutes(app, s);
  adminWebhookRoutes(app, s);
  // the reporting API (issue 26): signed casino requests or the admin token, like reconciliation
  operatorReportRoutes(app, s);
  freeBetRoutes(app, s);
  promotionRoutes(app, s);
}

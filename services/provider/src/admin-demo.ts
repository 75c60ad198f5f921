/**
 * Development only (`npm start` outside production): a demo platform admin whose password is new
 * at every start and printed once to the terminal, and demo data so the console's pages are not
 * empty — a second casino (tenant `demo-eur-casino`) with its own profile and viewer, and a few
 * dozen bets played through the sandbox casino, the way a player would.
 */
import { randomUUID } from 'node:crypto';
import type { AppInstance } from './http/zod-provider.js';
import type { Services } from './services.js';
import { hashPassword, generatePassword } from './staff/passwords.js';
import { clearSignInAttempts, findAccountByEmail, insertAccount, updateAccount } from './staff/staff-store.js';
import { emailKey } from './staff/staff.js';
import { demoOperatorWrite } from './operators/operators.js';
import { GAME_TYPES } from '@gp/game-core/games';
import { searchRounds } from './rounds/round-store/reports.js';

export const DEMO_ADMIN_EMAIL = 'admin@demo.local';
export const DEMO_VIEWER_EMAIL = 'viewer@demo-eur.local';

/** A fresh password and its hash. */
export interface DemoPassword {
  password: string;
  passwordHash: string;
}

/**
 * The demo accounts' fresh passwords, hashed. The server makes them before it opens the embedded
 * database: each scrypt hash takes 32 MiB for a moment, which on top of the running cluster made
 * the first start's peak RSS (issue 25).
 */
export async function demoPasswords(): Promise<{ admin: DemoPassword; viewer: DemoPassword }> {
  const make = async () => {
    const password = generatePassword();
    return { password, passwordHash: await hashPassword(password) };
  };
  return { admin: await make(), viewer: await make() };
}

/** Creates or resets an account with `fresh`; answers its password. */
async function demoAccount(s: Services, email: string, role: 'platform_admin' | 'viewer', tenantId: string | null, fresh: DemoPassword): Promise<string> {
  const { password, passwordHash } = fresh;
  const existing = await findAccountByEmail(s.db, email);
  if (existing) await updateAccount(s.db, existing.staffId, { passwordHash });
  else await insertAccount(s.db, { staffId: randomUUID(), email, passwordHash, role, tenantId });
  await clearSignInAttempts(s.db, emailKey(email));
  return password;
}

export async function seedAdminDemo(
  app: AppInstance,
  s: Services,
  fresh?: { admin: DemoPassword; viewer: DemoPassword },
): Promise<{ email: string; password: string; viewerEmail: string; viewerPassword: string }> {
  const passwords = fresh ?? (await demoPasswords());
  const password = await demoAccount(s, DEMO_ADMIN_EMAIL, 'platform_admin', null, passwords.admin);
  await s.operators.insertIfMissing(s.db, {
    ...demoOperatorWrite(),
    operatorId: 'demo-eur',
    tenantId: 'demo-eur-casino',
    currency: 'EUR',
    enabledGames: [...GAME_TYPES],
  });
  const viewerPassword = await demoAccount(s, DEMO_VIEWER_EMAIL, 'viewer', 'demo-eur-casino', passwords.viewer);
  if ((await searchRounds(s.db, { operatorIds: null, limit: 20 })).length < 20) await playDemoBets(app);
  return { email: DEMO_ADMIN_EMAIL, password, viewerEmail: DEMO_VIEWER_EMAIL, viewerPassword };
}

const BETS: { gameType: string; amount: number; params: Record<string, unknown> }[] = [
  { gameType: 'dice', amount: 1, params: { target: 50.5, direction: 'over' } },
  { gameType: 'limbo', amount: 0.5, params: { target: 2 } },
  { gameType: 'plinko', amount: 0.2, params: { rows: 16, risk: 'low' } },
  { gameType: 'keno', amount: 0.3, params: { picks: [3, 7, 11, 19, 28], risk: 'classic' } },
];

async function playDemoBets(app: AppInstance): Promise<void> {
  const players = ['alice', 'bob', 'carol', 'dave'];
  for (const operatorId of ['demo-usd', 'demo-eur']) {
    for (const playerRef of players) {
      const launch = await app.inject({ method: 'POST', url: '/sandbox/launch', payload: { operatorId, playerRef, gameType: 'dice', launchMode: 'lobby' } });
      if (launch.statusCode !== 200) continue;
      const session = await app.inject({
        method: 'POST',
        url: '/api/sessions',
        payload: { operatorId, launchToken: launch.json().launchToken, gameType: 'dice', launchMode: 'lobby' },
      });
      if (session.statusCode !== 200) continue;
      const sessionId = session.json().sessionId as string;
      for (let i = 0; i < 6; i++) {
        const bet = BETS[(i + players.indexOf(playerRef)) % BETS.length]!;
        await app.inject({ method: 'POST', url: '/api/bets', payload: { sessionId, ...bet, idempotencyKey: randomUUID() } });
      }
    }
  }
}

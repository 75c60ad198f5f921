/**
 * `npm run admin:create -- --email ops@casino.example [--password …] [--role admin --tenant casino-a]`:
 * creates a staff account of the admin console — by default the first platform admin. Without
 * `--password` a random one is generated and printed once. Reads DATABASE_URL / DATA_DIR like the
 * service and migrates first.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { recordChange } from './staff/config-audit.js';
import { generatePassword, PASSWORD_MIN } from './staff/passwords.js';
import { STAFF_ROLES, type StaffRole } from './staff/staff-store.js';
import { createAccount } from './staff/staff.js';
import { openDatabase } from './store/db.js';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { email: { type: 'string' }, password: { type: 'string' }, role: { type: 'string', default: 'platform_admin' }, tenant: { type: 'string' } },
    strict: true,
  });
  if (!values.email) {
    console.error(
      'usage: npm run admin:create -- --email <email> [--password <at least 12 characters>] [--role platform_admin|admin|viewer] [--tenant <tenantId>]',
    );
    return 2;
  }
  const role = values.role as StaffRole;
  if (!STAFF_ROLES.includes(role)) {
    console.error(`--role must be one of ${STAFF_ROLES.join(', ')}`);
    return 2;
  }
  if (values.password !== undefined && values.password.length < PASSWORD_MIN) {
    console.error(`--password must have at least ${PASSWORD_MIN} characters`);
    return 2;
  }
  const config = loadConfig();
  const handle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, migrate: config.migrateOnStart });
  try {
    const password = values.password ?? generatePassword();
    const account = await createAccount(handle.db, {
      email: values.email,
      password,
      role,
      tenantId: role === 'platform_admin' ? null : (values.tenant ?? null),
    });
    await recordChange(
      handle.db,
      { kind: 'cli', staffId: null, email: null, ip: null, userAgent: 'admin:create' },
      {
        action: 'staff.created',
        tenantId: account.tenantId,
        operatorId: null,
        targetType: 'staff',
        targetId: account.staffId,
        before: null,
        after: { email: account.email, role: account.role, tenantId: account.tenantId },
      },
    );
    console.log(`Created ${account.role} ${account.email}${account.tenantId ? ` (tenant ${account.tenantId})` : ''}.`);
    if (!values.password) console.log(`Password (shown once): ${password}`);
    console.log('Sign in at /admin/ of the provider.');
    return 0;
  } finally {
    await handle.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof ConfigError ? err.message : `admin:create failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);

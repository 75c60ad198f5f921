/** The server entry: configuration from the environment, the app, listen, graceful shutdown. */
import { randomBytes } from 'node:crypto';
import { seedAdminDemo } from './admin-demo.js';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  let generatedAdminToken: string | null = null;
  if (!config.adminToken && !config.production) {
    generatedAdminToken = randomBytes(24).toString('base64url');
    config = { ...config, adminToken: generatedAdminToken };
  }
  const { app, services } = await buildApp(config);
  const close = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void close('SIGINT'));
  process.once('SIGTERM', () => void close('SIGTERM'));
  const address = await app.listen({ port: config.port, host: config.host });
  const mode = `${services.dbHandle.mode === 'embedded' ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL'}, ${services.kv.mode === 'redis' ? 'Redis' : 'in-process replay cache and locks'}`;
  console.log(`Game provider listening on ${address} (${config.env}; ${mode})`);
  if (config.demoOperator) console.log(`Demo operator: demo-usd (sandbox://demo-casino). Try: curl -s -XPOST ${address}/sandbox/launch -H 'content-type: application/json' -d '{"operatorId":"demo-usd","playerRef":"alice","gameType":"dice"}'`);
  // Printed once to the terminal of a development start, never logged.
  if (generatedAdminToken) console.log(`Development admin token (ADMIN_TOKEN unset): ${generatedAdminToken}`);
  if (!config.production && config.demoOperator) {
    const demo = await seedAdminDemo(app, services);
    console.log(`Admin console: ${address}/admin/  (demo platform admin ${demo.email} / ${demo.password}; casino viewer ${demo.viewerEmail} / ${demo.viewerPassword}; new passwords at every start)`);
  }
}

main().catch((err: unknown) => {
  console.error('failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});

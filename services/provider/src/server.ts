/**
 * The server entry: configuration from the environment, tracing (when OTEL_* asks), the app,
 * the Prometheus listener, listen, and graceful shutdown:
 *
 *   SIGTERM/SIGINT → /ready answers 503 (gp_ready 0) while the API still serves for
 *   SHUTDOWN_DRAIN_MS (the load balancer takes the pod out) → the listener stops taking
 *   connections; requests in flight, money operations included, finish, for up to
 *   SHUTDOWN_GRACE_MS → the pools (PostgreSQL, Redis, the casino connections) close → exit 0.
 *   Past the grace period the open connections are cut: a money request stopped there left its
 *   round recorded in a state the retry job completes (debit_requested past its lease is rolled
 *   back, credit_pending is credited again with the same key).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { demoPasswords, seedAdminDemo } from './admin-demo.js';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { startTracing } from './infra/tracing.js';
import { startMetricsServer } from './metrics-server.js';

/**
 * A line before the app's logger exists (or instead of the friendly console text): one JSON object
 * as pino writes it in production (NODE_ENV=production), so a log pipeline parses every line;
 * plain text on a developer's terminal.
 */
const PRODUCTION = process.env.NODE_ENV === 'production';
function plainOrJson(level: 'info' | 'fatal', msg: string, fields: Record<string, unknown> = {}): void {
  if (!PRODUCTION) {
    (level === 'fatal' ? console.error : console.log)(msg);
    return;
  }
  const line = JSON.stringify({ level: level === 'fatal' ? 60 : 30, time: Date.now(), pid: process.pid, hostname: hostname(), ...fields, msg });
  (level === 'fatal' ? process.stderr : process.stdout).write(`${line}\n`);
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      plainOrJson('fatal', err.message, { event: 'config_error' });
      process.exit(2);
    }
    throw err;
  }
  let generatedAdminToken: string | null = null;
  if (!config.adminToken && !config.production) {
    generatedAdminToken = randomBytes(24).toString('base64url');
    config = { ...config, adminToken: generatedAdminToken };
  }
  // Before the app: the instrumentations patch pg and ioredis before the pools exist.
  const tracing = await startTracing();
  // The console's demo passwords (below) are hashed before the embedded database opens: see demoPasswords.
  const fresh = !config.production && config.demoOperator && !config.databaseUrl ? await demoPasswords() : undefined;
  const { app, services } = await buildApp(config);
  const metricsServer = config.metricsPort > 0 ? await startMetricsServer(services.metrics, config.metricsHost, config.metricsPort) : null;

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const { shutdownDrainMs: drainMs, shutdownGraceMs: graceMs } = config;
    // Whatever happens below, the process is gone shortly after the grace period.
    setTimeout(() => process.exit(1), drainMs + graceMs + 5_000).unref();
    services.lifecycle.shuttingDown = true;
    app.log.info({ signal, drainMs, graceMs }, 'shutting down: /ready answers 503, still serving while the load balancer lets go');
    await sleep(drainMs);
    app.log.info('shutting down: no new requests; waiting for the requests in flight');
    // Keep-alive connections that were busy when the listener closed: closed as soon as they are idle.
    const idle = setInterval(() => app.server.closeIdleConnections(), 100);
    const cut = setTimeout(() => {
      app.log.warn('shutting down: grace period over, closing the connections still open');
      app.server.closeAllConnections();
    }, graceMs);
    try {
      await app.close();
    } finally {
      clearTimeout(cut);
      clearInterval(idle);
    }
    await metricsServer?.close();
    await tracing?.shutdown().catch(() => undefined);
    app.log.info('shut down');
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  const address = await app.listen({ port: config.port, host: config.host });
  const mode = `${services.dbHandle.mode === 'embedded' ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL'}, ${services.kv.mode === 'redis' ? 'Redis' : 'in-process replay cache and locks'}`;
  if (config.production)
    app.log.info(
      { event: 'listening', address, env: config.env, mode, metrics: metricsServer?.url ?? null, tracing: Boolean(tracing) },
      'game provider listening',
    );
  else
    console.log(
      `Game provider listening on ${address} (${config.env}; ${mode})${metricsServer ? `; metrics on ${metricsServer.url}` : ''}${tracing ? '; tracing on' : ''}`,
    );
  if (config.demoOperator)
    console.log(
      `Demo operator: demo-usd (sandbox://demo-casino). Try: curl -s -XPOST ${address}/sandbox/launch -H 'content-type: application/json' -d '{"operatorId":"demo-usd","playerRef":"alice","gameType":"dice"}'`,
    );
  // Printed once to the terminal of a development start, never logged.
  if (generatedAdminToken) console.log(`Development admin token (ADMIN_TOKEN unset): ${generatedAdminToken}`);
  // The console's demo logins and data: only on the embedded default that `npm start` meets — a
  // real database (DATABASE_URL) gets no fake bets, and `npm run admin:create` makes the first admin.
  if (!config.production && config.demoOperator && services.dbHandle.mode === 'embedded' && !stopping) {
    try {
      const demo = await seedAdminDemo(app, services, fresh);
      console.log(
        `Admin console: ${address}/admin/  (demo platform admin ${demo.email} / ${demo.password}; casino viewer ${demo.viewerEmail} / ${demo.viewerPassword}; new passwords at every start)`,
      );
    } catch (err) {
      if (!stopping) app.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'admin console demo data not created');
    }
  }
}

main().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  if (PRODUCTION) plainOrJson('fatal', 'failed to start', { event: 'fatal', error: message });
  else console.error('failed to start:', message);
  process.exit(1);
});

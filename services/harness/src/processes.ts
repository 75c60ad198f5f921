/**
 * The real processes a harness runs: provider processes (`node services/provider/dist/server.js`
 * configured only by environment variables), the reference casino in its own process, and
 * redis-servers of our own. Every child is registered and killed when the harness exits, however
 * it exits. Each child's stdout and stderr go straight to a log file (no pipe through us).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** src/ or dist/ of services/harness → the repository root. */
export const REPO_ROOT = path.resolve(here, '../../..');
export const PROVIDER_ENTRY = path.join(REPO_ROOT, 'services/provider/dist/server.js');
export const CASINO_ENTRY = path.join(REPO_ROOT, 'services/reference-casino/dist/cli.js');
export const PIPELINE_ENTRY = path.join(REPO_ROOT, 'services/harness/dist/pipeline.js');

/**
 * The node flags of the API process (issue 25: V8's heap sizing is most of its peak RSS). As the
 * image runs it (the Dockerfile's `CMD ["node", <flags>, "services/provider/dist/server.js"]`; the
 * chart and k8s/ run the same, charts/test checks it): the bench's loaded providers.
 * GP_PROVIDER_NODE_ARGS (space-separated) replaces them for an A/B run.
 */
export function imageNodeArgs(dockerfile: string): string[] {
  const cmd = dockerfile
    .split('\n')
    .filter((l) => l.startsWith('CMD '))
    .at(-1);
  const argv = cmd ? (JSON.parse(cmd.slice(4)) as string[]) : [];
  if (argv[0] !== 'node' || argv.at(-1) !== 'services/provider/dist/server.js')
    throw new Error(`the Dockerfile's CMD does not run node … services/provider/dist/server.js: ${cmd}`);
  return argv.slice(1, -1);
}

/** As `npm start` runs it (the root package.json: `… && node <flags> services/provider/dist/server.js`): the first start on the embedded default. */
export function startScriptNodeArgs(startScript: string): string[] {
  const m = /(?:^|&&\s*)node((?:\s+--[^\s]+)*)\s+services\/provider\/dist\/server\.js\s*$/.exec(startScript);
  if (!m) throw new Error(`the start script does not run node … services/provider/dist/server.js: ${startScript}`);
  return m[1]!.trim().split(/\s+/).filter(Boolean);
}

export const PROVIDER_NODE_ARGS: string[] =
  process.env.GP_PROVIDER_NODE_ARGS !== undefined
    ? process.env.GP_PROVIDER_NODE_ARGS.split(/\s+/).filter(Boolean)
    : imageNodeArgs(readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8'));
export const NPM_START_NODE_ARGS: string[] = startScriptNodeArgs(
  (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start,
);

/* ------------------------------------------------------------------ the child registry */

const live = new Set<ChildProcess>();
let hooked = false;

function register(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!hooked) {
    hooked = true;
    // Synchronous: runs on every exit path (normal end, process.exit, uncaught error).
    process.on('exit', killAllChildren);
  }
}

/** SIGKILLs every child still running (also done automatically when the harness exits). */
export function killAllChildren(): void {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

/** For the CLIs: Ctrl-C or a SIGTERM stops the run and its children. */
export function exitOnSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping every child process`);
      killAllChildren();
      process.exit(130);
    });
  }
}

/* ------------------------------------------------------------------ helpers */

export async function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

async function assertPortFree(port: number, what: string): Promise<void> {
  if (!(await portIsFree(port))) throw new Error(`${what}: port ${port} is already in use (a leftover process of an earlier run?)`);
}

function openLog(logDir: string, name: string): number {
  mkdirSync(logDir, { recursive: true });
  return openSync(path.join(logDir, `${name}.log`), 'a');
}

export interface Spawned {
  child: ChildProcess;
  pid: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnLogged(command: string, args: string[], env: Record<string, string>, logDir: string, name: string): Spawned {
  const fd = openLog(logDir, name);
  const child = spawn(command, args, { cwd: REPO_ROOT, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  child.on('error', () => undefined); // reported below (no pid) or by the exit
  if (child.pid === undefined) throw new Error(`${name}: could not start ${command}`);
  register(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, pid: child.pid, exited };
}

/** Polls `probe` until it answers true; fails when the process exits first or after `timeoutMs`. */
async function waitUntil(what: string, probe: () => Promise<boolean>, exited: Promise<unknown>, timeoutMs: number, logHint: string): Promise<void> {
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (gone) throw new Error(`${what} exited before it was ready (see ${logHint})`);
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} not ready after ${timeoutMs} ms (see ${logHint})`);
    await sleep(50);
  }
}

async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await res.arrayBuffer();
  return res.status === 200;
}

/* ------------------------------------------------------------------ provider processes */

export interface ProviderOptions {
  name: string;
  port: number;
  /** Environment of the process (on top of PATH and HOME); PORT and HOST are set from `port`. */
  env: Record<string, string>;
  logDir: string;
  /** Node flags on top of those of `startedAs` (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** The flags it starts with: the image's (default), `npm start`'s, or none (a bare `node services/provider/dist/server.js`). */
  startedAs?: 'image' | 'npm-start' | 'plain';
  readyTimeoutMs?: number;
}

export interface ProviderProcess {
  name: string;
  url: string;
  port: number;
  /** pid of the current incarnation. */
  readonly pid: number;
  readonly running: boolean;
  /** How often it was started (1 + restarts). */
  readonly starts: number;
  /** Milliseconds from spawn to the first `/health` 200 of the current incarnation. */
  readonly readyAfterMs: number;
  /** Its Prometheus listener (METRICS_PORT), null when it has none. */
  metricsUrl: string | null;
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again (same port and environment) and waits for `/health`. */
  restart(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ']) if (process.env[k]) env[k] = process.env[k]!;
  // Node flags for the children only (e.g. GP_CHILD_NODE_OPTIONS=--trace-gc), not for the harness itself
  if (process.env.GP_CHILD_NODE_OPTIONS) env.NODE_OPTIONS = process.env.GP_CHILD_NODE_OPTIONS;
  return env;
}

const startFlags = (as: 'image' | 'npm-start' | 'plain') => (as === 'image' ? PROVIDER_NODE_ARGS : as === 'npm-start' ? NPM_START_NODE_ARGS : []);

export async function startProvider(opts: ProviderOptions): Promise<ProviderProcess> {
  const url = `http://127.0.0.1:${opts.port}`;
  let current: Spawned | null = null;
  let running = false;
  let starts = 0;
  let readyAfterMs = 0;

  const launch = async () => {
    await assertPortFree(opts.port, opts.name);
    const env = { ...baseEnv(), ...opts.env, PORT: String(opts.port), HOST: '127.0.0.1' };
    const started = Date.now();
    current = spawnLogged(process.execPath, [...startFlags(opts.startedAs ?? 'image'), ...(opts.nodeArgs ?? []), PROVIDER_ENTRY], env, opts.logDir, opts.name);
    starts += 1;
    running = true;
    const me = current;
    void me.exited.then(() => {
      if (current === me) running = false;
    });
    await waitUntil(opts.name, () => httpOk(`${url}/health`), me.exited, opts.readyTimeoutMs ?? 60_000, path.join(opts.logDir, `${opts.name}.log`));
    readyAfterMs = Date.now() - started;
  };

  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const c = current;
    if (!c || !running) return;
    c.child.kill(signal);
    await c.exited;
  };

  await launch();
  const metricsPort = Number(opts.env.METRICS_PORT ?? 0);
  return {
    name: opts.name,
    url,
    port: opts.port,
    metricsUrl: metricsPort > 0 ? `http://127.0.0.1:${metricsPort}/metrics` : null,
    get pid() {
      return current!.pid;
    },
    get running() {
      return running;
    },
    get starts() {
      return starts;
    },
    get readyAfterMs() {
      return readyAfterMs;
    },
    kill,
    async restart() {
      await kill('SIGKILL');
      await launch();
    },
    async stop(graceMs = 5000) {
      const c = current;
      if (!c || !running) return;
      c.child.kill('SIGTERM');
      const timer = setTimeout(() => c.child.kill('SIGKILL'), graceMs);
      await c.exited;
      clearTimeout(timer);
    },
  };
}

/* ------------------------------------------------------------------ other node servers */

export interface ServerProcess {
  url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** A node server of ours (`entry`) in its own process, ready once `healthPath` answers 200. */
export async function startNodeServer(o: {
  name: string;
  entry: string;
  port: number;
  env: Record<string, string>;
  logDir: string;
  healthPath: string;
}): Promise<ServerProcess> {
  await assertPortFree(o.port, o.name);
  const s = spawnLogged(process.execPath, [o.entry], { ...baseEnv(), ...o.env, PORT: String(o.port), HOST: '127.0.0.1' }, o.logDir, o.name);
  const url = `http://127.0.0.1:${o.port}`;
  await waitUntil(o.name, () => httpOk(`${url}${o.healthPath}`), s.exited, 30_000, path.join(o.logDir, `${o.name}.log`));
  return {
    url,
    pid: s.pid,
    async stop() {
      s.child.kill('SIGTERM');
      const timer = setTimeout(() => s.child.kill('SIGKILL'), 3000);
      await s.exited;
      clearTimeout(timer);
    },
  };
}

/* ------------------------------------------------------------------ the reference casino */

export interface CasinoOperator {
  secret: string;
  currency: string;
  decimals: number;
}

export type CasinoProcess = ServerProcess;

/** The reference casino (`services/reference-casino/dist/cli.js`) in its own process. */
export function startCasino(opts: { port: number; operators: Record<string, CasinoOperator>; logDir: string; name?: string }): Promise<CasinoProcess> {
  return startNodeServer({
    name: opts.name ?? 'casino',
    entry: CASINO_ENTRY,
    port: opts.port,
    env: { OPERATORS: JSON.stringify(opts.operators) },
    logDir: opts.logDir,
    healthPath: '/_control/faults',
  });
}

/* ------------------------------------------------------------------ redis-servers of our own */

export interface RedisProcess {
  url: string;
  port: number;
  readonly pid: number;
  /** How often it was started (1 + restarts). */
  readonly starts: number;
  /** SIGKILL (every key is lost: no persistence), then a new server on the same port. */
  restart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

async function redisPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let data = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      data += chunk.toString();
      if (data.includes('\r\n')) done(data.startsWith('+PONG'));
    });
  });
}

/**
 * A redis-server of our own in the foreground (so it is our child and dies with us), no
 * persistence: a restart loses every key, as a crashed cache would.
 */
export async function startRedis(opts: { port: number; logDir: string; name?: string }): Promise<RedisProcess> {
  const name = opts.name ?? `redis-${opts.port}`;
  let current: Spawned | null = null;
  let starts = 0;
  const launch = async () => {
    await assertPortFree(opts.port, name);
    const args = ['--port', String(opts.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--protected-mode', 'no'];
    current = spawnLogged('redis-server', args, baseEnv(), opts.logDir, name);
    starts += 1;
    await waitUntil(name, () => redisPing(opts.port), current.exited, 15_000, path.join(opts.logDir, `${name}.log`));
  };
  const kill = async () => {
    const c = current;
    if (!c) return;
    c.child.kill('SIGKILL');
    await c.exited;
    current = null;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${opts.port}`,
    port: opts.port,
    get pid() {
      return current?.pid ?? -1;
    },
    get starts() {
      return starts;
    },
    async restart(downMs = 500) {
      await kill();
      await sleep(downMs);
      await launch();
    },
    stop: kill,
  };
}

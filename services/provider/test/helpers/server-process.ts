/**
 * A real provider process (`node dist/server.js`) for the tests that kill one (SIGKILL) between two
 * writes, and plain HTTP calls to it. The caller keeps `children` and kills what is left after all.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN, CRON_SECRET, SECRET_KEY } from './app.js';
import { REDIS_URL } from './env.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Starts the server on a free port with the test database and Redis; answers its base URL once it listens. */
export async function startServerProcess(
  databaseUrl: string,
  env: Record<string, string>,
  children: ChildProcess[],
): Promise<{ base: string; child: ChildProcess }> {
  const server = path.join(root, 'dist', 'server.js');
  if (!existsSync(server)) throw new Error('dist/server.js is missing: run npm run build');
  const child = spawn(process.execPath, [server], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'development',
      PORT: '0',
      METRICS_PORT: '0',
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      ADMIN_TOKEN,
      CRON_SECRET,
      SECRET_KEY,
      LOG_LEVEL: 'warn',
      WALLET_RETRY_SCHEDULER: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const m = /listening on (http:\/\/[^\s]+)/.exec(output);
    if (m) return { base: m[1]!, child };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start: ${output}`);
    await sleep(50);
  }
}

/** One JSON request to `base`; answers the status, the parsed body and the raw text. */
export async function httpCall(base: string, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown>, text };
}

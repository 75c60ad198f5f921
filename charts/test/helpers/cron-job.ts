/**
 * Runs a wallet-retries CronJob's container the way its pod would (its command, its environment,
 * CRON_SECRET as the Secret would give it) with the API Service's address swapped for a test
 * server's, and a small HTTP server that records what the call sent.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IContainer } from 'kubernetes-models/v1';
import { REPO_ROOT, run, type Run } from './manifests.js';

export interface Recorded {
  method?: string;
  url?: string;
  authorization?: string;
}

export interface StubApi {
  origin: string;
  seen: Recorded[];
  answer: { status: number; body: string; headers?: Record<string, string> };
  close(): Promise<void>;
}

export async function startStubApi(): Promise<StubApi> {
  const stub: Partial<StubApi> = { seen: [], answer: { status: 200, body: '{}' } };
  const server: Server = createServer((req, res) => {
    stub.seen!.push({ method: req.method, url: req.url, authorization: req.headers.authorization });
    res.writeHead(stub.answer!.status, { 'content-type': 'application/json', ...stub.answer!.headers });
    res.end(stub.answer!.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  stub.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = () => new Promise((r) => server.close(() => r()));
  return stub as StubApi;
}

export function runCronContainer(c: IContainer, opts: { origin: string; secret: string; tmpDir: string }): Promise<Run> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', TMPDIR: opts.tmpDir, CRON_SECRET: opts.secret };
  for (const e of c.env ?? []) if (e.value !== undefined) env[e.name] = e.value;
  const url = new URL(env.CRON_URL!);
  env.CRON_URL = `${opts.origin}${url.pathname}${url.search}`;
  const [cmd, ...args] = c.command!;
  // The image's working directory is /app, the repository root here; `node` is this Node.
  return run(cmd === 'node' ? process.execPath : cmd!, args, { cwd: REPO_ROOT, env });
}

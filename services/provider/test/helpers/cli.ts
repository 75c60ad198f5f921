/**
 * Runs one of the provider's command entries as the image runs it, `node dist/<name>.js`, in a
 * child process with exactly the given environment; answers its exit code and output. It runs
 * the build (`npm test` builds first; after changing src/, `npm run build` before running these
 * tests alone), like the tests' use of @gp/reference-casino.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function entry(name: string): string {
  const file = path.join(root, 'dist', `${name}.js`);
  if (!existsSync(file)) throw new Error(`dist/${name}.js is missing: run npm run build (npm test does)`);
  return file;
}

export function runCli(name: 'migrate-cli' | 'cron-call' | 'server', env: Record<string, string>, timeoutMs = 60_000): Promise<CliRun> {
  const file = entry(name);
  return new Promise((resolve) => {
    execFile(process.execPath, [file], { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, timeout: timeoutMs }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

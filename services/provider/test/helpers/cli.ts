/**
 * Runs one of the provider's command entries (src/<name>.ts, as dist/<name>.js runs in the image)
 * in a child process with exactly the given environment; answers its exit code and output.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(name: 'migrate-cli' | 'cron-call' | 'server', env: Record<string, string>, timeoutMs = 60_000): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'src', `${name}.ts`)],
      { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, timeout: timeoutMs },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

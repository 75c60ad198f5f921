/**
 * The command line: `wallet-check --url <callbackBaseUrl> --operator <operatorId>
 * --secret-file <file> --token <launchToken> [--player …] [--json report.json] [--html report.html]
 * [--junit report.xml] [--pdf summary.pdf]`.
 * Exit code 0 when every check passed, 1 when one did not, 2 for a usage error.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { junitReport, pdfSummary } from './report-files.js';
import { htmlReport, jsonReport, textReport } from './report.js';
import { runWalletCheck, type CheckResult } from './runner.js';

export const USAGE = `Usage: wallet-check --url <callbackBaseUrl> --operator <operatorId> --secret-file <file> (--token <launchToken> | --token-file <file>) [options]

Plays the game provider's side against a casino's wallet interface (SPEC.md "Wallet interface",
CONTRACT.md §6 and §11) and reports, check by check, what passes. It moves only small amounts
of the test player's money and reverses every debit it makes.

Required:
  --url <url>              the wallet's callback base; /wallet/debit etc. are appended
  --operator <id>          the operator profile (X-Operator-Id)
  --secret-file <file>     file holding the shared operator secret (never passed on the command line)
  --token <launchToken>    a launch token of a test player, issued by the casino
  --token-file <file>      or a file holding it (npm prints its command line: this keeps the token off the terminal)

Options:
  --player <playerRef>     the test player validate-session must name
  --currency <code>        the operator profile's currency validate-session must name
  --decimals <n>           the currency's decimals when not SPEC.md's (USDT, USDC, ETH profiles)
  --game <gameType>        gameType sent in the requests (default dice)
  --amount <decimal>       amount of each test debit (default the currency's smallest unit)
  --timeout-ms <ms>        callback timeout the latencies are held against (default 3000)
  --samples <n>            requests measured per operation (default 5)
  --load-seconds <s>       length of the load test (default 10)
  --load-concurrency <n>   requests in flight during the load test (default 20)
  --only <prefix>          only checks whose id starts with it (repeatable; session.* and run.* always run)
  --json <file>            write the machine-readable report
  --html <file>            write a self-contained HTML report
  --junit <file>           write a JUnit XML report (one test case per check) for a CI server
  --pdf <file>             write a printable PDF summary (verdict, categories, failures, a sign-off line)
  --quiet                  no progress lines
  -h, --help               this text

Exit code: 0 every check passed, 1 a check failed or could not run, 2 usage error.`;

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

const processIo: Io = {
  out: (t) => process.stdout.write(`${t}\n`),
  err: (t) => process.stderr.write(`${t}\n`),
};

/** A file's content without its final newline. */
async function readSecret(file: string, option: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).replace(/\r?\n$/, '');
  } catch (err) {
    throw new Error(`cannot read ${option}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        url: { type: 'string' },
        operator: { type: 'string' },
        'secret-file': { type: 'string' },
        token: { type: 'string' },
        'token-file': { type: 'string' },
        player: { type: 'string' },
        currency: { type: 'string' },
        decimals: { type: 'string' },
        game: { type: 'string' },
        amount: { type: 'string' },
        'timeout-ms': { type: 'string' },
        samples: { type: 'string' },
        'load-seconds': { type: 'string' },
        'load-concurrency': { type: 'string' },
        only: { type: 'string', multiple: true },
        json: { type: 'string' },
        html: { type: 'string' },
        junit: { type: 'string' },
        pdf: { type: 'string' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  const missing: string[] = (['url', 'operator', 'secret-file'] as const).filter((k) => !values[k]);
  if (!values.token && !values['token-file']) missing.push('token');
  if (missing.length) {
    io.err(`missing ${missing.map((k) => `--${k}`).join(', ')}\n\n${USAGE}`);
    return 2;
  }
  let secret: string;
  let launchToken = values.token ?? '';
  try {
    secret = await readSecret(values['secret-file']!, '--secret-file');
    if (values['token-file']) launchToken = await readSecret(values['token-file'], '--token-file');
  } catch (err) {
    io.err((err as Error).message);
    return 2;
  }

  const progress = (r: CheckResult) => {
    if (!values.quiet) io.err(`${r.status === 'pass' ? 'pass' : r.status === 'fail' ? 'FAIL' : 'skip'}  ${r.id}`);
  };
  let report;
  try {
    report = await runWalletCheck({
      url: values.url!,
      operatorId: values.operator!,
      secret,
      launchToken,
      ...(values.player !== undefined ? { playerRef: values.player } : {}),
      ...(values.currency !== undefined ? { currency: values.currency } : {}),
      ...(values.decimals !== undefined ? { decimals: num(values.decimals)! } : {}),
      ...(values.game !== undefined ? { gameType: values.game } : {}),
      ...(values.amount !== undefined ? { amount: values.amount } : {}),
      ...(values['timeout-ms'] !== undefined ? { timeoutMs: num(values['timeout-ms'])! } : {}),
      ...(values.samples !== undefined ? { samples: num(values.samples)! } : {}),
      ...(values['load-seconds'] !== undefined ? { loadSeconds: num(values['load-seconds'])! } : {}),
      ...(values['load-concurrency'] !== undefined ? { loadConcurrency: num(values['load-concurrency'])! } : {}),
      ...(values.only ? { only: values.only.flatMap((o) => o.split(',')).filter(Boolean) } : {}),
      onResult: progress,
    });
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }

  io.out(textReport(report));
  if (values.json) {
    await writeFile(values.json, jsonReport(report));
    io.out(`\nJSON report: ${values.json}`);
  }
  if (values.html) {
    await writeFile(values.html, htmlReport(report));
    io.out(`HTML report: ${values.html}`);
  }
  if (values.junit) {
    await writeFile(values.junit, junitReport(report));
    io.out(`JUnit XML report: ${values.junit}`);
  }
  if (values.pdf) {
    await writeFile(values.pdf, pdfSummary(report));
    io.out(`PDF summary: ${values.pdf}`);
  }
  return report.ok ? 0 : 1;
}

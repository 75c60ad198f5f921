/**
 * The image's wallet-retries command, run by one CronJob per operator-currency profile
 * (OPS-CONTRACT.md): `node services/provider/dist/cron-call.js`. GET CRON_URL (for example
 * http://game-provider:3000/api/cron/wallet-retries?operatorId=op-usd) with the bearer CRON_SECRET,
 * print the JSON summary, exit 0 on a 2xx and 1 on anything else (non-2xx, redirect, network
 * error, CRON_TIMEOUT_MS passed) so that the Job fails; 2 when the configuration is missing.
 * The secret is never printed. Redirects are not followed (the bearer stays where it was sent).
 */

const DEFAULT_TIMEOUT_MS = 600_000;

async function main(): Promise<number> {
  const url = process.env.CRON_URL?.trim();
  const secret = process.env.CRON_SECRET?.trim();
  const timeoutMs = Number(process.env.CRON_TIMEOUT_MS || DEFAULT_TIMEOUT_MS);
  if (!url || !/^https?:\/\//.test(url)) {
    console.error('cron-call: CRON_URL must be an http(s) URL');
    return 2;
  }
  if (!secret) {
    console.error('cron-call: CRON_SECRET is not set');
    return 2;
  }
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    console.error('cron-call: CRON_TIMEOUT_MS must be a positive integer');
    return 2;
  }
  const hide = (text: string) => text.split(secret).join('[redacted]');
  const target = new URL(url);
  const where = `${target.origin}${target.pathname}${target.search}`;
  try {
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${secret}`, accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = hide(await res.text());
    if (res.status >= 200 && res.status < 300) {
      console.log(body);
      return 0;
    }
    console.error(hide(`cron-call: GET ${where} answered HTTP ${res.status}: ${body.slice(0, 2000)}`));
    return 1;
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const reason = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : `${e.message}${e.cause ? ` (${e.cause.code ?? e.cause.message})` : ''}`;
    console.error(hide(`cron-call: GET ${where} failed: ${reason}`));
    return 1;
  }
}

process.exitCode = await main();

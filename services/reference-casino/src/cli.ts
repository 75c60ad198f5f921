#!/usr/bin/env node
/**
 * Standalone reference casino.
 *   PORT       listen port (default 4000; 0 for a free one)
 *   HOST       listen address (default 127.0.0.1; the control API is unauthenticated)
 *   OPERATORS  JSON: {"op1":{"secret":"...","currency":"USD","decimals":2}}
 *   CLOCK_SKEW_S  allowed clock skew in seconds (default 300)
 */
import { startReferenceCasino } from './server.js';
import type { OperatorConfig } from './ledger.js';

const operators = JSON.parse(process.env['OPERATORS'] ?? '{"demo-usd":{"secret":"demo-secret","currency":"USD","decimals":2}}') as Record<
  string,
  OperatorConfig
>;
const casino = await startReferenceCasino({
  operators,
  port: Number(process.env['PORT'] ?? 4000),
  host: process.env['HOST'] ?? '127.0.0.1',
  clockSkewSeconds: Number(process.env['CLOCK_SKEW_S'] ?? 300),
});
console.log(`reference casino listening on ${casino.url} (operators: ${Object.keys(operators).join(', ')}; control API at ${casino.url}/_control)`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void casino.close().then(() => process.exit(0));
  });
}

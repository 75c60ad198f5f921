/**
 * The per-request logger (http/observability.ts requestLoggerFactory, issue 25): made without
 * passing the request id through pino's redaction, it writes the same bytes as pino's own
 * `child({ reqId })`, and what the request logs through it is still redacted.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { REDACTED_PATHS } from '../../src/app.js';
import { requestLoggerFactory } from '../../src/http/observability.js';

function rootLogger() {
  const lines: string[] = [];
  const app = Fastify({
    logger: { level: 'info', redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, stream: { write: (s: string) => void lines.push(s) } },
  });
  return { log: app.log, app, lines };
}

const withoutTime = (line: string) => line.replace(/"time":\d+,/, '');

describe('the per-request logger', () => {
  it("writes what pino's child({ reqId }) writes, secrets redacted", async () => {
    const { log, app, lines } = rootLogger();
    const factory = requestLoggerFactory();
    const ours = factory.call(app, log, { reqId: 'req-1:a.b' }, {}, {} as never);
    const pinos = log.child({ reqId: 'req-1:a.b' }, {});
    for (const l of [ours, pinos]) {
      l.info({ sessionId: 'the-session', body: { launchToken: 'tok', amount: 1 }, req: { headers: { authorization: 'Bearer x' } } }, 'a line');
      l.error({ err: new Error('boom'), secret: 's' }, 'an error');
      l.child({ operatorId: 'op-1' }).warn({ token: 't' }, 'nested');
    }
    expect(lines).toHaveLength(6);
    for (let i = 0; i < 3; i++) expect(withoutTime(lines[i]!)).toBe(withoutTime(lines[i + 3]!));
    const all = lines.join('');
    for (const secret of ['the-session', '"tok"', 'Bearer x', '"s"', '"t"']) expect(all).not.toContain(secret);
    expect(lines[0]).toContain('"reqId":"req-1:a.b"');
    await app.close();
  });

  it("takes pino's own path for other bindings or options", async () => {
    const { log, app, lines } = rootLogger();
    const factory = requestLoggerFactory();
    factory.call(app, log, { reqId: 'r2', token: 'secret-token' }, {}, {} as never).info('x');
    factory.call(app, log, { reqId: 'r3' }, { level: 'warn' }, {} as never).info('not written');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('secret-token');
    expect(lines[0]).toContain('"reqId":"r2"');
    await app.close();
  });
});

/**
 * The Prometheus listener: `GET /metrics` on METRICS_HOST:METRICS_PORT, apart from the API port
 * so that it is never exposed through the Ingress (the chart's Service names it `metrics`; the
 * NetworkPolicy opens it to Prometheus only). Anything else is a 404.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './infra/metrics.js';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(metrics: Metrics, host: string, port: number): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.render().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  return {
    url: `http://${a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

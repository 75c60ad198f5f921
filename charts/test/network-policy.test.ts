/**
 * What the NetworkPolicy lets through, evaluated the way Kubernetes does (rules OR-ed, peers
 * OR-ed, namespaceSelector AND podSelector within one peer, no rule for a direction that is in
 * policyTypes means nothing passes): allow-all by default, and the default-deny value set
 * (ci/default-deny-values.yaml) admitting only the Ingress controller, Prometheus and the
 * CronJobs, and reaching only DNS, PostgreSQL, Redis and the casinos' callback hosts.
 */
import { BlockList, isIPv4 } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { one, podTemplates, render, type K8sObject } from './helpers/manifests.js';

type Labels = Record<string, string>;
interface Selector {
  matchLabels?: Labels;
  matchExpressions?: unknown[];
}
interface Peer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface Rule {
  ports?: { port: number; protocol?: string }[];
  from?: Peer[];
  to?: Peer[];
}
interface Spec {
  policyTypes: string[];
  ingress?: Rule[];
  egress?: Rule[];
}

/** The other end of a connection: a pod (namespace and labels) or an address outside the cluster. */
type End = { pod: { namespace: string; nsLabels: Labels; labels: Labels } } | { ip: string };

const selects = (sel: Selector | undefined, labels: Labels) => {
  if (sel?.matchExpressions?.length) throw new Error('matchExpressions: not evaluated by this test');
  return Object.entries(sel?.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
};

function peerMatches(peer: Peer, end: End, policyNs: string): boolean {
  if (peer.ipBlock) {
    if (!('ip' in end)) return false;
    const inBlock = (cidr: string) => {
      const [net, bits] = cidr.split('/');
      const list = new BlockList();
      list.addSubnet(net!, Number(bits), isIPv4(net!) ? 'ipv4' : 'ipv6');
      return list.check(end.ip, isIPv4(end.ip) ? 'ipv4' : 'ipv6');
    };
    return inBlock(peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some(inBlock);
  }
  if (!('pod' in end)) return false;
  const nsOk = peer.namespaceSelector ? selects(peer.namespaceSelector, end.pod.nsLabels) : end.pod.namespace === policyNs;
  const podOk = peer.podSelector ? selects(peer.podSelector, end.pod.labels) : true;
  return nsOk && podOk;
}

function allows(np: K8sObject, direction: 'Ingress' | 'Egress', end: End, port: number, protocol = 'TCP'): boolean {
  const spec = np.spec as Spec;
  if (!spec.policyTypes.includes(direction)) return true;
  const rules = (direction === 'Ingress' ? spec.ingress : spec.egress) ?? [];
  return rules.some((r) => {
    const portOk = !r.ports?.length || r.ports.some((p) => p.port === port && (p.protocol ?? 'TCP') === protocol);
    const peers = direction === 'Ingress' ? r.from : r.to;
    return portOk && (!peers?.length || peers.some((p) => peerMatches(p, end, np.metadata.namespace!)));
  });
}

const NS = 'games';
const pod = (namespace: string, labels: Labels = {}): End => ({ pod: { namespace, nsLabels: { 'kubernetes.io/metadata.name': namespace }, labels } });
const ingressController = pod('ingress-nginx', { 'app.kubernetes.io/name': 'ingress-nginx' });
const prometheus = pod('monitoring', { 'app.kubernetes.io/name': 'prometheus' });
const stranger = pod(NS, { app: 'something-else' });
const kubeDns = pod('kube-system', { 'k8s-app': 'kube-dns' });

describe('the default values: a NetworkPolicy that lets everything through', () => {
  let np: K8sObject;
  beforeAll(async () => {
    np = one(await render({ valuesFiles: ['ci/minimal-values.yaml'], namespace: NS }), 'NetworkPolicy');
  });
  it('admits any pod on the API and metrics ports and allows any egress', () => {
    for (const end of [stranger, ingressController, pod('other', {})]) {
      expect(allows(np, 'Ingress', end, 3000)).toBe(true);
      expect(allows(np, 'Ingress', end, 9464)).toBe(true);
    }
    expect(allows(np, 'Ingress', stranger, 22)).toBe(false);
    expect(allows(np, 'Egress', { ip: '8.8.8.8' }, 443)).toBe(true);
  });
});

describe('ci/default-deny-values.yaml: default-deny with the Ingress controller, Prometheus, DNS, PostgreSQL, Redis and the casinos allowed', () => {
  let np: K8sObject;
  let cronJobPod: End;
  beforeAll(async () => {
    const objects = await render({ valuesFiles: ['ci/default-deny-values.yaml'], namespace: NS });
    np = one(objects, 'NetworkPolicy');
    cronJobPod = pod(NS, podTemplates(one(objects, 'CronJob'))[0]!.labels ?? {});
  });

  it('admits the Ingress controller and the wallet-retries CronJobs on the API port, nobody else', () => {
    expect(allows(np, 'Ingress', ingressController, 3000)).toBe(true);
    expect(allows(np, 'Ingress', cronJobPod, 3000)).toBe(true);
    expect(allows(np, 'Ingress', pod('ingress-nginx', { 'app.kubernetes.io/name': 'cert-manager-solver' }), 3000)).toBe(false);
    expect(allows(np, 'Ingress', pod('elsewhere', { 'app.kubernetes.io/name': 'ingress-nginx' }), 3000)).toBe(false);
    expect(allows(np, 'Ingress', stranger, 3000)).toBe(false);
    expect(allows(np, 'Ingress', prometheus, 3000)).toBe(false);
    expect(allows(np, 'Ingress', { ip: '198.51.100.20' }, 3000)).toBe(false);
  });

  it('admits Prometheus on the metrics port only', () => {
    expect(allows(np, 'Ingress', prometheus, 9464)).toBe(true);
    expect(allows(np, 'Ingress', ingressController, 9464)).toBe(false);
    expect(allows(np, 'Ingress', stranger, 9464)).toBe(false);
  });

  it('reaches DNS, PostgreSQL, Redis and the casinos, and nothing else', () => {
    expect(allows(np, 'Egress', kubeDns, 53, 'UDP')).toBe(true);
    expect(allows(np, 'Egress', kubeDns, 53, 'TCP')).toBe(true);
    expect(allows(np, 'Egress', { ip: '10.20.0.10' }, 5432)).toBe(true);
    expect(allows(np, 'Egress', { ip: '10.20.0.11' }, 5432)).toBe(false);
    expect(allows(np, 'Egress', { ip: '10.20.0.10' }, 22)).toBe(false);
    expect(allows(np, 'Egress', pod('redis', { 'app.kubernetes.io/name': 'redis' }), 6379)).toBe(true);
    expect(allows(np, 'Egress', pod('other', { 'app.kubernetes.io/name': 'redis' }), 6379)).toBe(false);
    expect(allows(np, 'Egress', { ip: '203.0.113.5' }, 443)).toBe(true);
    expect(allows(np, 'Egress', { ip: '198.51.100.7' }, 8443)).toBe(true);
    expect(allows(np, 'Egress', { ip: '203.0.113.5' }, 80)).toBe(false);
    expect(allows(np, 'Egress', { ip: '8.8.8.8' }, 443)).toBe(false);
    expect(allows(np, 'Egress', stranger, 3000)).toBe(false);
  });
});

import { BlockList, isIPv4 } from 'node:net';
import { isRecord, type Json } from './kustomize.ts';

// What a set of NetworkPolicies lets through, by the rules of Kubernetes' API reference
// (networking.k8s.io/v1), so that CI can ask "may this pod reach that one on this port?" of
// the example's policies instead of only reading them. Not covered: a pod's traffic with its
// own node (always allowed), SCTP, and ipBlock rules applied to pod addresses (left to each
// network plugin by the reference).

type Labels = Readonly<Record<string, string>>;

export interface Pod {
  namespace: string;
  labels: Labels;
  /** The containers' ports, for rules that name a port. */
  ports: readonly { name?: string; containerPort: number; protocol?: string }[];
}

/** A pod, or an address outside the cluster. */
export type Peer = Pod | { ip: string };

export interface Connection {
  port: number;
  protocol?: 'TCP' | 'UDP' | undefined;
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const labelsOf = (value: unknown): Labels =>
  isRecord(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)])) : {};

/** Kubernetes' label selector: matchLabels and matchExpressions; `{}` selects everything. */
export function selects(selector: unknown, labels: Labels): boolean {
  if (!isRecord(selector)) return false;
  const wanted = labelsOf(selector.matchLabels);
  if (Object.entries(wanted).some(([key, value]) => labels[key] !== value)) return false;
  return list(selector.matchExpressions).every((expression) => {
    if (!isRecord(expression)) return false;
    const value = labels[String(expression.key)];
    const values = list(expression.values).map(String);
    switch (expression.operator) {
      case 'In':
        return value !== undefined && values.includes(value);
      case 'NotIn':
        return value === undefined || !values.includes(value);
      case 'Exists':
        return value !== undefined;
      case 'DoesNotExist':
        return value === undefined;
      default:
        return false;
    }
  });
}

/** The labels Kubernetes gives every namespace by itself. */
const namespaceLabels = (namespace: string): Labels => ({
  'kubernetes.io/metadata.name': namespace,
});

function peerMatches(rulePeer: unknown, policyNamespace: string, peer: Peer): boolean {
  if (!isRecord(rulePeer)) return false;
  if ('ip' in peer) {
    const block = rulePeer.ipBlock;
    return isRecord(block) && inBlock(peer.ip, block);
  }
  if (rulePeer.ipBlock !== undefined) return false;
  const { namespaceSelector, podSelector } = rulePeer;
  const inNamespace =
    namespaceSelector === undefined
      ? peer.namespace === policyNamespace
      : selects(namespaceSelector, namespaceLabels(peer.namespace));
  return inNamespace && (podSelector === undefined || selects(podSelector, peer.labels));
}

function inBlock(ip: string, block: Json): boolean {
  const family = isIPv4(ip) ? 'ipv4' : 'ipv6';
  const contains = (cidr: unknown) => {
    const [network = '', bits = ''] = String(cidr).split('/');
    if ((isIPv4(network) ? 'ipv4' : 'ipv6') !== family) return false;
    const range = new BlockList();
    range.addSubnet(network, Number(bits), family);
    return range.check(ip, family);
  };
  return contains(block.cidr) && !list(block.except).some(contains);
}

/** Whether a rule's port entry covers the connection; a named port is the target pod's. */
function portMatches(rulePort: unknown, target: Peer, connection: Connection): boolean {
  if (!isRecord(rulePort)) return false;
  const protocol = connection.protocol ?? 'TCP';
  if ((rulePort.protocol ?? 'TCP') !== protocol) return false;
  if (rulePort.port === undefined) return true;
  if (typeof rulePort.port === 'number') {
    const end = typeof rulePort.endPort === 'number' ? rulePort.endPort : rulePort.port;
    return connection.port >= rulePort.port && connection.port <= end;
  }
  if ('ip' in target) return false;
  return target.ports.some(
    (p) =>
      p.name === rulePort.port &&
      p.containerPort === connection.port &&
      (p.protocol ?? 'TCP') === protocol,
  );
}

type Direction = 'Ingress' | 'Egress';

function policyTypes(spec: Json): Direction[] {
  if (Array.isArray(spec.policyTypes))
    return spec.policyTypes.map((t) => (t === 'Egress' ? t : 'Ingress'));
  return spec.egress === undefined ? ['Ingress'] : ['Ingress', 'Egress'];
}

/**
 * Whether `policies` let `from` open a connection to `to`: the sender's egress and the
 * receiver's ingress must each allow it, a pod that no policy of a direction selects being
 * open in that direction.
 */
export function allowed(
  policies: readonly Json[],
  from: Peer,
  to: Peer,
  connection: Connection,
): boolean {
  return (
    ('ip' in from || admits(policies, 'Egress', from, to, connection)) &&
    ('ip' in to || admits(policies, 'Ingress', to, from, connection))
  );
}

function admits(
  policies: readonly Json[],
  direction: Direction,
  pod: Pod,
  other: Peer,
  connection: Connection,
): boolean {
  const applying = policies.flatMap((policy) => {
    const spec = isRecord(policy.spec) ? policy.spec : {};
    const namespace = isRecord(policy.metadata) ? String(policy.metadata.namespace) : '';
    const applies =
      namespace === pod.namespace &&
      selects(spec.podSelector, pod.labels) &&
      policyTypes(spec).includes(direction);
    return applies ? [{ spec, namespace }] : [];
  });
  if (applying.length === 0) return true;
  const target = direction === 'Ingress' ? pod : other;
  return applying.some(({ spec, namespace }) =>
    list(direction === 'Ingress' ? spec.ingress : spec.egress).some((rule) => {
      if (!isRecord(rule)) return false;
      const peers = rule[direction === 'Ingress' ? 'from' : 'to'];
      const peerOk =
        peers === undefined ||
        list(peers).length === 0 ||
        list(peers).some((p) => peerMatches(p, namespace, other));
      const portOk =
        rule.ports === undefined ||
        list(rule.ports).length === 0 ||
        list(rule.ports).some((p) => portMatches(p, target, connection));
      return peerOk && portOk;
    }),
  );
}

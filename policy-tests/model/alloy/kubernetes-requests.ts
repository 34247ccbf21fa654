/**
 * What an Alloy configuration asks the API server, component by component (Alloy v1.18.1):
 * - `discovery.kubernetes` runs Prometheus' Kubernetes discovery (model/prometheus-operator/kubernetes-sd.ts): its
 *   `role`'s informers, and nodes' where `attach_metadata { node = true }`, in each namespace of its `namespaces` block
 *   (`names`, the pod's own with `own_namespace = true`), every namespace at once where it sets none.
 * - `loki.source.kubernetes_events`: an informer of core v1 Events in each of its `namespaces`, every one where unset.
 * - `loki.source.kubernetes` tails each target pod (kubetail: a get of the pod and of its `log`), in any namespace a
 *   discovery of the file reads (every one, `{any}` below, where one reads them all).
 * An argument the gate cannot read as a literal (an expression) leaves the component's requests unread, as does each
 * other component that calls the API server (the operator's monitors, the rules loaders, remote.kubernetes.*).
 */
import { attributeNamed, blocksNamed, parseAlloy, type AlloyStatement } from './parser.ts';
import { ANY_NAMESPACE, roleRequests, informer, isDiscoveryRole } from '../prometheus-operator/kubernetes-sd.ts';

type Block = AlloyStatement & { kind: 'block' };

/** The other components of v1.18.1 that call the API server (internal/component): what they ask is not read, and said. */
const API_CLIENTS_NOT_READ: ReadonlySet<string> = new Set([
  'loki.rules.kubernetes',
  'loki.source.podlogs',
  'mimir.alerts.kubernetes',
  'mimir.rules.kubernetes',
  'prometheus.operator.podmonitors',
  'prometheus.operator.probes',
  'prometheus.operator.scrapeconfigs',
  'prometheus.operator.servicemonitors',
  'remote.kubernetes.configmap',
  'remote.kubernetes.secret',
]);

/** A string, a bool or a list of strings written as a literal after an attribute's `=`; undefined for anything else. */
export function literalAt(text: string, offset: number): string | boolean | string[] | undefined {
  const rest = text.slice(offset).replace(/^[A-Za-z_][\w]*\s*=\s*/, '');
  const string = /^"(?:[^"\\\n]|\\.)*"/.exec(rest);
  const end = (n: number) => /^[ \t]*(\/\/[^\n]*)?(\n|,|\}|$)/.test(rest.slice(n));
  if (string && end(string[0].length)) return JSON.parse(string[0]) as string;
  const bool = /^(true|false)\b/.exec(rest);
  if (bool && end(bool[0].length)) return bool[1] === 'true';
  const list = /^\[\s*((?:"(?:[^"\\\n]|\\.)*"\s*,?\s*)*)\]/.exec(rest);
  if (list && end(list[0].length)) return [...list[1]!.matchAll(/"(?:[^"\\\n]|\\.)*"/g)].map((m) => JSON.parse(m[0]) as string);
  return undefined;
}

const attribute = attributeNamed;
const blockNamed = (body: readonly AlloyStatement[], name: string) => blocksNamed(body, name)[0];

interface Read {
  requests: string[];
  /** Components whose requests the gate could not read, with why. */
  unread: string[];
}

/** A discovery's namespaces: its `names`, the pod's own, or [''] for every one; undefined where they are no literal. */
function discoveryNamespaces(text: string, block: Block, own: string): string[] | undefined {
  const namespaces = blockNamed(block.body, 'namespaces');
  if (!namespaces) return [''];
  const names = attribute(namespaces.body, 'names');
  const ownAttr = attribute(namespaces.body, 'own_namespace');
  const listed = names ? literalAt(text, names.offset) : [];
  const ownValue = ownAttr ? literalAt(text, ownAttr.offset) : false;
  if (!Array.isArray(listed) || typeof ownValue !== 'boolean') return undefined;
  const all = [...listed, ...(ownValue ? [own] : [])];
  return all.length === 0 ? [''] : all;
}

/** What the walk gathers: the requests, the unread components, and the namespaces the discoveries read. */
type Walk = Read & { tailed: Set<string> };

function discoveryRequests(text: string, block: Block, own: string, read: Walk): void {
  const id = `discovery.kubernetes "${block.label}"`;
  const roleAttr = attribute(block.body, 'role');
  const role = roleAttr ? literalAt(text, roleAttr.offset) : undefined;
  const namespaces = discoveryNamespaces(text, block, own);
  const metadata = blockNamed(block.body, 'attach_metadata');
  const nodeAttr = metadata && attribute(metadata.body, 'node');
  const attachNode = nodeAttr ? literalAt(text, nodeAttr.offset) : false;
  if (!isDiscoveryRole(role) || !namespaces || typeof attachNode !== 'boolean') {
    read.unread.push(`${id} (its role, namespaces or attach_metadata are no literal the gate reads)`);
    return;
  }
  for (const namespace of namespaces) read.tailed.add(namespace || ANY_NAMESPACE);
  read.requests.push(...roleRequests(role, namespaces, attachNode));
}

/** The requests a configuration's components send, and the components whose requests could not be read. */
export function alloyApiRequests(text: string, ownNamespace: string): Read {
  const read: Walk = { requests: [], unread: [], tailed: new Set() };
  const { tailed } = read;
  const blocks = parseAlloy(text).body.filter((s): s is Block => s.kind === 'block');
  for (const block of blocks.filter((b) => b.name.join('.') === 'discovery.kubernetes')) discoveryRequests(text, block, ownNamespace, read);
  for (const block of blocks) {
    const name = block.name.join('.');
    if (API_CLIENTS_NOT_READ.has(name)) read.unread.push(`${name} "${block.label}" (what it asks the API server is not read)`);
    if (name === 'loki.source.kubernetes_events') {
      const namespacesAttr = attribute(block.body, 'namespaces');
      const namespaces = namespacesAttr ? literalAt(text, namespacesAttr.offset) : [];
      if (!Array.isArray(namespaces)) read.unread.push(`${name} "${block.label}" (its namespaces are no literal list)`);
      else for (const namespace of namespaces.length ? namespaces : ['']) read.requests.push(...informer('/api/v1|events', namespace));
    }
    if (name === 'loki.source.kubernetes' && tailed.size === 0)
      read.unread.push(`${name} "${block.label}" (no discovery of the file says which namespaces it tails)`);
    else if (name === 'loki.source.kubernetes')
      for (const namespace of tailed.has(ANY_NAMESPACE) ? [ANY_NAMESPACE] : [...tailed])
        read.requests.push(`GET /api/v1/namespaces/${namespace}/pods/{pod}`, `GET /api/v1/namespaces/${namespace}/pods/{pod}/log`);
  }
  return { requests: [...new Set(read.requests)], unread: read.unread };
}

/**
 * What an Alloy configuration asks the API server, component by component (Alloy v1.18.1):
 * - `discovery.kubernetes` runs Prometheus' Kubernetes discovery (model/prometheus-operator/kubernetes-sd.ts): its
 *   `role`'s informers, and nodes' where `attach_metadata { node = true }`, in each namespace of its `namespaces` block
 *   (`names`, the pod's own with `own_namespace = true`), every namespace at once where it sets none.
 * - `loki.source.kubernetes_events`: an informer of core v1 Events in each of its `namespaces`, every one where unset.
 * - `loki.source.kubernetes` tails each target pod (kubetail: a get of the pod and of its `log`), in the namespaces of
 *   the discovery its targets come from, straight or through discovery.relabel (every one, `{any}` below, where it
 *   reads them all).
 * - `remote.kubernetes.secret` and `remote.kubernetes.configmap` get the one object their `namespace` and `name`
 *   name, at each poll (remote/kubernetes/kubernetes.go's pollError).
 * A component whose client is pointed elsewhere (`api_server` or `kubeconfig_file`: common/kubernetes'
 * BuildRESTConfig, or the discovery's own) calls as that configuration says, not as the pod's service account: unread.
 * Each argument is worked out as Alloy evaluates it (evaluate.ts), with what the agent reads of its host where the
 * caller gives it (host.ts: its environment as the kubelet sets it); one the gate does not work out (a variable the
 * render does not give, a component's export) leaves the component's requests unread, with why, as does each other
 * component that calls the API server (the operator's monitors, the rules loaders, loki.source.podlogs).
 */
import { attributeNamed, blocksNamed, parseAlloy, type AlloyStatement } from './parser.ts';
import { evaluate, type EvalScope } from './evaluate.ts';
import { targetsPath } from './references.ts';
import { plainValue, readFrom, type Host } from './evaluated.ts';
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
]);

/** The objects remote.kubernetes.* gets, by its component's name (its ResourceType). */
const REMOTE_OBJECTS: Readonly<Record<string, string>> = { 'remote.kubernetes.secret': 'secrets', 'remote.kubernetes.configmap': 'configmaps' };

/**
 * Why a component's requests are not the pod's service account's: its client names a kubeconfig or an API server
 * (BuildRESTConfig takes the in-cluster configuration only where both are unset); undefined where they are.
 */
function foreignClient(client: readonly AlloyStatement[] | undefined): string | undefined {
  const named = ['kubeconfig_file', 'api_server'].find((n) => client && attributeNamed(client, n));
  return named && `its client sets ${named}: it calls as that configuration says, not as the pod's service account`;
}
/** foreignClient of a component's `client` block (common/kubernetes.ClientArguments). */
const clientElsewhere = (block: Block) => foreignClient(blockNamed(block.body, 'client')?.body);

const blockNamed = (body: readonly AlloyStatement[], name: string) => blocksNamed(body, name)[0];

interface Read {
  requests: string[];
  /** Components whose requests the gate could not read, with why. */
  unread: string[];
}

/** An argument's value as Alloy evaluates it (model/alloy/evaluate.ts), where it is one `is` accepts, else why it is not read. */
type Argument<T> = { value: T } | { why: string };

/** The type an argument takes, and its value where the block leaves it unset. */
interface Kind<T> {
  is: (v: unknown) => v is T;
  unset: T;
}
const isString = (v: unknown): v is string => typeof v === 'string';
const STRING: Kind<string> = { is: isString, unset: '' };
const BOOL: Kind<boolean> = { is: (v): v is boolean => typeof v === 'boolean', unset: false };
const STRINGS: Kind<string[]> = { is: (v): v is string[] => Array.isArray(v) && v.every(isString), unset: [] };

function argument<T>(body: readonly AlloyStatement[], name: string, scope: EvalScope, kind: Kind<T>): Argument<T> {
  const attr = attributeNamed(body, name);
  if (!attr) return { value: kind.unset };
  const evaluated = evaluate(attr.value, scope);
  const value = plainValue(evaluated);
  if (kind.is(value)) return { value };
  switch (evaluated.kind) {
    case 'typed':
      return { why: `its ${name} is ${evaluated.from}, a value known when Alloy runs` };
    case 'array':
    case 'object':
      if (value === undefined)
        return { why: `its ${name} holds ${readFrom(evaluated.members, 'a value the gate does not work out')}, a value known when Alloy runs` };
      break;
    case 'unread':
      return { why: `its ${name} is not worked out: ${evaluated.why}` };
    case 'failed':
      return { why: `its ${name} fails to evaluate: ${evaluated.message}` };
  }
  return { why: `its ${name} is not of the type Alloy takes: the file does not load` };
}

/** A discovery's namespaces: its `names`, the pod's own, or [''] for every one; else why they are not read. */
function discoveryNamespaces(block: Block, own: string, scope: EvalScope): Argument<string[]> {
  const namespaces = blockNamed(block.body, 'namespaces');
  if (!namespaces) return { value: [''] };
  const listed = argument(namespaces.body, 'names', scope, STRINGS);
  const ownValue = argument(namespaces.body, 'own_namespace', scope, BOOL);
  if ('why' in listed) return listed;
  if ('why' in ownValue) return ownValue;
  const all = [...listed.value, ...(ownValue.value ? [own] : [])];
  return { value: all.length === 0 ? [''] : all };
}

/**
 * A discovery's requests, added to `read`; what it returns is the namespaces of the pods its targets carry (none where
 * it runs no discovery, or its role's targets carry no pod), else why they are not read.
 */
function discoveryRequests(block: Block, own: string, scope: EvalScope, read: Read): Argument<string[]> {
  const id = `discovery.kubernetes "${block.label}"`;
  const role = argument(block.body, 'role', scope, STRING);
  const namespaces = discoveryNamespaces(block, own, scope);
  const metadata = blockNamed(block.body, 'attach_metadata');
  const attachNode = metadata ? argument(metadata.body, 'node', scope, BOOL) : { value: false };
  const unread = [role, namespaces, attachNode].find((a): a is { why: string } => 'why' in a);
  if (unread !== undefined) {
    read.unread.push(`${id} (${unread.why})`);
    return { why: `the namespaces of ${id} are not read` };
  }
  // A role Prometheus' discovery does not run (or none: the file does not load) discovers nothing and asks nothing.
  if (!('value' in role) || !isDiscoveryRole(role.value) || !('value' in namespaces) || !('value' in attachNode)) return { value: [] };
  // Its client settings are its own arguments (squashed): another server's lists are said, its namespaces still read.
  const foreign = foreignClient(block.body);
  if (foreign) read.unread.push(`${id} (${foreign})`);
  else read.requests.push(...roleRequests(role.value, namespaces.value, attachNode.value));
  // A node's, a Service's or an Ingress' target carries no pod: the tailer refuses each (PrepareLabels) and asks nothing.
  return ['pod', 'endpoints', 'endpointslice'].includes(role.value) ? namespaces : { value: [] };
}

/**
 * The pod tailer's gets, in the namespaces of the discovery its targets come from (references.ts' targetsPath:
 * straight or through discovery.relabel, which keeps or changes targets and adds no pod); unread where its targets
 * are not followed to one, or that discovery's namespaces are not read.
 */
function tailerRequests(block: Block, body: readonly AlloyStatement[], discovered: ReadonlyMap<Block, Argument<string[]>>, read: Read): void {
  const id = `loki.source.kubernetes "${block.label}"`;
  const path = targetsPath(body, attributeNamed(block.body, 'targets')?.value);
  const namespaces = path && discovered.get(path.discovery);
  if (!namespaces)
    return void read.unread.push(`${id} (its targets are not followed to a discovery.kubernetes of the file, which says which namespaces it tails)`);
  if ('why' in namespaces) return void read.unread.push(`${id} (${namespaces.why})`);
  const foreign = clientElsewhere(block);
  if (foreign) return void read.unread.push(`${id} (${foreign})`);
  const tailed = namespaces.value.some((n) => n === '') ? [ANY_NAMESPACE] : namespaces.value;
  for (const namespace of tailed) read.requests.push(`GET /api/v1/namespaces/${namespace}/pods/{pod}`, `GET /api/v1/namespaces/${namespace}/pods/{pod}/log`);
}

/** The events source's informer in each of its namespaces (every one where it names none); unread as the others are. */
function eventsRequests(block: Block, scope: EvalScope, read: Read): void {
  const namespaces = argument(block.body, 'namespaces', scope, STRINGS);
  const why = clientElsewhere(block) ?? ('why' in namespaces ? namespaces.why : undefined);
  if (why !== undefined) return void read.unread.push(`${block.name.join('.')} "${block.label}" (${why})`);
  if ('value' in namespaces)
    for (const namespace of namespaces.value.length ? namespaces.value : ['']) read.requests.push(...informer('/api/v1|events', namespace));
}

/** remote.kubernetes.*'s get of its one object; unread where its client is pointed elsewhere or its names not worked out. */
function remoteRequests(block: Block, objects: string, scope: EvalScope, read: Read): void {
  const namespace = argument(block.body, 'namespace', scope, STRING);
  const name = argument(block.body, 'name', scope, STRING);
  const why = clientElsewhere(block) ?? [namespace, name].find((a): a is { why: string } => 'why' in a)?.why;
  if (why) return void read.unread.push(`${block.name.join('.')} "${block.label}" (${why})`);
  // Both are required (the file does not load without them); client-go refuses an empty one before any request.
  if ('value' in namespace && 'value' in name && namespace.value && name.value)
    read.requests.push(`GET /api/v1/namespaces/${namespace.value}/${objects}/${name.value}`);
}

/** The requests a configuration's components send, and the components whose requests could not be read. */
export function alloyApiRequests(text: string, ownNamespace: string, host?: Host): Read {
  const read: Read = { requests: [], unread: [] };
  // A component's export is not worked out (stdlib.ts' stdlibMember says so): an argument that reads one is unread.
  const scope: EvalScope = { nodeValue: () => undefined, ...(host ? { host } : {}) };
  const { body } = parseAlloy(text);
  const discovered = new Map(blocksNamed(body, 'discovery.kubernetes').map((b) => [b, discoveryRequests(b, ownNamespace, scope, read)] as const));
  for (const block of body.filter((s): s is Block => s.kind === 'block')) {
    const name = block.name.join('.');
    if (API_CLIENTS_NOT_READ.has(name)) read.unread.push(`${name} "${block.label}" (what it asks the API server is not read)`);
    if (name === 'loki.source.kubernetes') tailerRequests(block, body, discovered, read);
    if (name === 'loki.source.kubernetes_events') eventsRequests(block, scope, read);
    if (Object.hasOwn(REMOTE_OBJECTS, name)) remoteRequests(block, REMOTE_OBJECTS[name]!, scope, read);
  }
  return { requests: [...new Set(read.requests)], unread: read.unread };
}

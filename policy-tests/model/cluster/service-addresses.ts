/**
 * The in-cluster addresses a resource names in its strings (an env value, a config file in a ConfigMap, a chart's
 * rendered settings): `<service>.<namespace>.svc[.cluster.local][:port]`, and the short `<service>.<namespace>`
 * when it is written as an address (after `scheme://` or before `:port`) and its namespace is one the cluster has.
 * Cluster DNS answers these names only for a Service of that name in that namespace, so each is a reference the
 * gate can close. A port comes from the address, else from its scheme (http 80, https 443), else from a `port` beside
 * the `hostname` or `host` that holds the address alone (a settings map's server), else it is not known.
 *
 * And the Services those names resolve to (serviceIndex): every reader of a Service by its namespace and name, or by
 * its labels, looks it up in one index of the view, each Service in the namespace Argo CD gives it.
 */
import type { Path } from '../core/positions.ts';
import { perObject } from '../core/per-object.ts';
import { dig, obj, objects, str, type Obj } from '../core/dig.ts';
import { scalarText } from '../core/text.ts';
import { selectorIndex } from '../core/label-selector.ts';
import type { Resource } from '../core/manifest.ts';
import { namespaceOrDestination } from '../argocd/argocd.ts';
import type { Repo } from '../repository/repo.ts';

/** Services by namespace and name (the first written wins, as the first applied holds the name), and by label. */
export interface ServiceIndex {
  /** Each Service with its namespace set (a manifest that leaves it to Argo CD gets the destination's). */
  services: readonly Resource[];
  named(namespace: string, name: string): Resource | undefined;
  /** The Services, in any namespace, whose labels a label selector (a monitor's) matches. */
  matching(selector: Obj | undefined): Resource[];
  /** The Services in these namespaces whose labels a label selector matches (its labels and its expressions), namespace by namespace. */
  select(namespaces: readonly string[], selector: Obj | undefined): Resource[];
}

/** An index of Services whose namespaces are set (`namespace` undefined is the empty namespace). */
export function indexServices(services: readonly Resource[]): ServiceIndex {
  // Each built on its first use: most readers ask by name only, and one view's index may only hand out its list.
  let byName: Map<string, Resource> | undefined;
  let byLabel: ((selector: Obj | undefined) => Resource[]) | undefined;
  const matching = (selector: Obj | undefined) => (byLabel ??= selectorIndex(services, (s) => obj(dig(s.object, ['metadata', 'labels']))))(selector);
  return {
    services,
    named: (namespace, name) => (byName ??= new Map(services.map((s) => [`${s.namespace ?? ''}/${s.name}`, s] as const).reverse())).get(`${namespace}/${name}`),
    matching,
    select(namespaces, selector) {
      const found = matching(selector);
      return namespaces.flatMap((ns) => found.filter((s) => (s.namespace ?? '') === ns));
    },
  };
}

const indexes = perObject<readonly Resource[], WeakMap<Repo, ServiceIndex>>(() => new WeakMap());

/** The index of a view's Services (its resources, or the repository's), built once per view. */
export function serviceIndex(repo: Repo, resources: readonly Resource[] = repo.resources): ServiceIndex {
  const byRepo = indexes(resources);
  let index = byRepo.get(repo);
  if (!index) {
    const services = resources.filter((r) => r.kind === 'Service').map((r) => ({ ...r, namespace: namespaceOrDestination(repo, r) }));
    byRepo.set(repo, (index = indexServices(services)));
  }
  return index;
}

/** Whether a host is a name under a namespace's Services (`<service>.<namespace>.svc`, with or without the cluster's domain). */
export const isServiceDomainHost = (host: string): boolean => /\.svc(\.|$)/.test(host);

/** The port an http(s) URL connects to: the one it names, else its scheme's (443 for https, 80 for any other). */
export const urlPort = (url: URL): number => Number(url.port || (url.protocol === 'https:' ? 443 : 80));

export interface ServiceAddress {
  service: string;
  namespace: string;
  port?: number;
  /** The address as written. */
  text: string;
  /** Where the string holding it sits in the resource. */
  path: Path;
}

const LABEL = '[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?';
const SCHEME = '(?:([a-z][a-z0-9+.-]*)://)?';
const PORT = '(?::(\\d{1,5}))?';
const END = '(?![-a-z0-9.])';
// A pod's name may come first (`<pod>.<service>.<namespace>.svc`, a StatefulSet's under its headless Service).
const LONG = new RegExp(`${SCHEME}(?<![-a-z0-9])(${LABEL})\\.(${LABEL})\\.svc(?:\\.cluster\\.local)?\\.?${PORT}${END}`, 'g');
const SHORT = new RegExp(`${SCHEME}(?<![-a-z0-9.])(${LABEL})\\.(${LABEL})${PORT}${END}`, 'g');
const SCHEME_PORTS: Readonly<Record<string, number>> = { http: 80, https: 443, ws: 80, wss: 443 };
/** What a short address needs to count (a port), where it has no scheme. */
const DIGIT_AFTER_COLON = /:\d/;

/** An address as found, before the namespaces are known: a short one counts only in a namespace the cluster has. */
interface Candidate extends ServiceAddress {
  short: boolean;
}

function addressesIn(text: string): Omit<Candidate, 'path'>[] {
  const out: Omit<Candidate, 'path'>[] = [];
  const port = (scheme: string | undefined, written: string | undefined) => (written ? Number(written) : scheme ? SCHEME_PORTS[scheme] : undefined);
  // Each pattern only where its literal part is: most strings (a dashboard's JSON, a rule's expression) hold neither,
  // and both patterns look behind at every position.
  if (text.includes('.svc'))
    for (const m of text.matchAll(LONG)) out.push({ service: m[2]!, namespace: m[3]!, port: port(m[1], m[4]), text: m[0], short: false });
  if (!text.includes('://') && !DIGIT_AFTER_COLON.test(text)) return out;
  for (const m of text.matchAll(SHORT)) {
    // Only an address: after a scheme or before a port (then only in a namespace of the cluster: `app.kubernetes.io` is not one).
    if (m[1] === undefined && m[4] === undefined) continue;
    out.push({ service: m[2]!, namespace: m[3]!, port: port(m[1], m[4]), text: m[0], short: true });
  }
  return out;
}

/** The keys a settings map names a server's host by, beside a `port` key (Jellyseerr's hostname, an arr's host). */
const HOST_KEYS = ['hostname', 'host'];

/**
 * A host written apart from its port (`hostname: radarr.media.svc` beside `port: 7878`), as the media apps' settings
 * and many charts' values write a server: the address is the host at that port, and a finding points at the port.
 */
function withSiblingPort(map: Record<string, unknown>, found: Candidate[], at: readonly (string | number)[]): void {
  const port = map.port;
  if (typeof port !== 'number' || !Number.isInteger(port)) return;
  for (const key of HOST_KEYS) {
    const host = map[key];
    if (typeof host !== 'string') continue;
    for (const a of found)
      if (a.port === undefined && a.path.length === at.length + 1 && a.path[at.length] === key && a.text === host) {
        a.port = port;
        a.text = `${host}:${port}`;
        a.path = [...at, 'port'];
      }
  }
}

/** Every candidate address in `value`'s strings, with where each string sits (one walk, the path copied only for a hit). */
function candidatesIn(value: unknown): Candidate[] {
  const out: Candidate[] = [];
  const path: (string | number)[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (v.includes('.')) for (const a of addressesIn(v)) out.push({ ...a, path: [...path] });
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        walk(v[i]);
        path.pop();
      }
    } else if (v && typeof v === 'object') {
      const found = out.length;
      for (const key in v) {
        path.push(key);
        walk((v as Record<string, unknown>)[key]);
        path.pop();
      }
      withSiblingPort(v as Record<string, unknown>, out.slice(found), path);
    }
  };
  walk(value);
  return out;
}

/**
 * A parsed object never changes, and an unchanged file's objects are shared by every later run in the process (the
 * warm gate, the mutation runs): its strings are read for addresses once.
 */
const candidatesOf = perObject(candidatesIn);

/** Every in-cluster address in `value`'s strings, with where each string sits. */
export function serviceAddresses(value: unknown, namespaces: ReadonlySet<string>): ServiceAddress[] {
  const candidates = value !== null && typeof value === 'object' ? candidatesOf(value) : candidatesIn(value);
  return candidates.filter((c) => !c.short || namespaces.has(c.namespace)).map(({ short: _short, ...address }) => address);
}

/**
 * The calls the API server makes to a Service: each webhook of a webhook configuration, a CRD's conversion webhook,
 * an APIService (on the Service's port 443 where unset). Each is a reference to a Service like an address, and a
 * path through the policies around its pods.
 */
const WEBHOOK_CONFIGURATIONS = ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'];

/** A call the API server makes to a Service: where it is declared, what it is, and what is lost when it times out. */
export interface WebhookCall {
  resource: Resource;
  at: Path;
  what: string;
  service: { namespace: string; name: string; port: number };
  lost: string;
}

/** The service reference at `at` in a resource, with the port the API server dials (443 where unset). */
function serviceAt(resource: Resource, at: Path): WebhookCall['service'] | undefined {
  const service = obj(dig(resource.object, at));
  const [namespace, name] = [str(service.namespace), str(service.name)];
  if (!namespace || !name) return undefined;
  const port = Number(scalarText(service.port ?? 443));
  return { namespace, name, port: Number.isInteger(port) ? port : 443 };
}

/** Every call the API server makes to a Service: each webhook of a webhook configuration, a CRD's conversion, an APIService. */
export function webhookCalls(resources: readonly Resource[]): WebhookCall[] {
  const calls: WebhookCall[] = [];
  const add = (resource: Resource, at: Path, what: string, lost: string) => {
    const service = serviceAt(resource, at);
    if (service) calls.push({ resource, at, what, service, lost });
  };
  for (const r of resources) {
    if (WEBHOOK_CONFIGURATIONS.includes(r.kind))
      objects(dig(r.object, ['webhooks'])).forEach((webhook, i) => {
        const ignore = str(webhook.failurePolicy) === 'Ignore';
        add(
          r,
          ['webhooks', i, 'clientConfig', 'service'],
          `${r.kind} ${r.name}'s webhook ${str(webhook.name) || i}`,
          ignore
            ? 'each request it intercepts goes through unchecked after its timeout (failurePolicy Ignore)'
            : 'each request it intercepts is refused (failurePolicy Fail)',
        );
      });
    else if (r.kind === 'CustomResourceDefinition' && str(dig(r.object, ['spec', 'conversion', 'strategy'])) === 'Webhook')
      add(
        r,
        ['spec', 'conversion', 'webhook', 'clientConfig', 'service'],
        `CustomResourceDefinition ${r.name}'s conversion webhook`,
        'its objects cannot be read or written in a version other than the stored one',
      );
    else if (r.kind === 'APIService')
      add(r, ['spec', 'service'], `APIService ${r.name}`, 'the aggregated API answers nothing, and discovery of its group fails');
  }
  return calls;
}

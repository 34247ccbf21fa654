/**
 * Where an image's own program listens (`listens`, model/programs/listens.ts), against what reaches it: the kubelet's
 * probes and a Service's traffic come to the pod's own address, at a port of the container. A program bound to
 * loopback answers neither; one told to listen on another port than the one a probe or a Service names is never
 * asked where it listens; two of its listeners on one port stop it at start (EADDRINUSE, exit 1). The API server
 * takes all three, and the pod is never ready.
 */
import { dig, isMap, list, obj, objects } from '../../model/core/dig.ts';
import { selectorMatches } from '../../model/core/label-selector.ts';
import { containerPort } from '../../model/core/workloads.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { ingressRoutes, type IngressRoute } from '../../model/cluster/ingress-routes.ts';
import { bindReach, nodeInspector, optionValues, portValue, type Listens, type ListenSwitch } from '../../model/programs/listens.ts';
import { probedPort, textOf, type Held } from './variables.ts';
import { fromSecret } from '../../model/cluster/environment.ts';
import { splitHostPort } from '../../model/go/net.ts';

const PROBES = ['startupProbe', 'livenessProbe', 'readinessProbe'] as const;

/** The Services of the container's namespace whose selector its pod template's labels match. */
export function servicesOfPod({ ctx, resource, pod }: Pick<Held, 'ctx' | 'resource' | 'pod'>): Resource[] {
  const labels = dig(resource.object, [...pod.at.slice(0, -1), 'metadata', 'labels']);
  const namespace = namespaceOrDestination(ctx.repo, resource);
  return ctx.resources.filter((service) => {
    if (service.kind !== 'Service' || namespaceOrDestination(ctx.repo, service) !== namespace) return false;
    const selector = dig(service.object, ['spec', 'selector']);
    return isMap(selector) && Object.keys(selector).length > 0 && selectorMatches({ matchLabels: selector }, obj(labels));
  });
}

/** Each Ingress route of the pod's namespace that sends to one of `services`, with the Ingress and that Service. */
export function routesToServices(
  held: Pick<Held, 'ctx' | 'resource'>,
  services: readonly Resource[],
): { ingress: Resource; route: IngressRoute; service: Resource }[] {
  const { ctx, resource } = held;
  const namespace = namespaceOrDestination(ctx.repo, resource);
  return ctx.resources
    .filter((r) => r.kind === 'Ingress' && namespaceOrDestination(ctx.repo, r) === namespace)
    .flatMap((ingress) =>
      ingressRoutes(ingress).flatMap((route) => {
        const service = route.service && services.find((s) => s.name === route.service!.name);
        return service ? [{ ingress, route, service }] : [];
      }),
    );
}

/** What reaches the container: each probe's port and each port a Service of the pod sends to it, with where it is named. */
function askedPorts(held: Held): { port: number; who: string; resource: Resource; path: (string | number)[] }[] {
  const { resource, c } = held;
  const out: { port: number; who: string; resource: Resource; path: (string | number)[] }[] = [];
  for (const probe of PROBES)
    for (const handler of ['httpGet', 'tcpSocket', 'grpc']) {
      const port = probedPort(held, dig(c.container, [probe, handler, 'port']));
      if (port !== undefined) out.push({ port, who: `its ${probe}`, resource, path: [...c.at, probe, handler, 'port'] });
    }
  for (const service of servicesOfPod(held))
    objects(dig(service.object, ['spec', 'ports'])).forEach((p, i) => {
      const port = containerPort(c, p.targetPort ?? p.port);
      if (port !== undefined)
        out.push({ port, who: `Service ${service.name}`, resource: service, path: ['spec', 'ports', i, p.targetPort === undefined ? 'port' : 'targetPort'] });
    });
  return out;
}

/** One listener of the program: what names it, its port and bind address (undefined where not read), and the variables that set them. */
interface Listener {
  name: string;
  /** The variable that sets its port (or starts it). */
  variable: string;
  port?: number;
  address?: string;
  addressVariable?: string;
  /** Where its port or its address is a Secret's text: a finding says so and never prints it. */
  secretPort?: boolean;
  secretAddress?: boolean;
}

/** A listener's port and address as a finding prints them: never a Secret's text. */
const portShown = (h: Listener): string => (h.secretPort ? `the port its Secret holds` : `port ${h.port}`);
/** Where the program listens, as a finding prints it: each port with the variable that sets it, the fixed ones together. */
function heardShown(heard: readonly Listener[]): string {
  const fixed = heard.filter((h) => h.name === 'fixed').map((h) => h.port);
  const set = heard.filter((h) => h.name !== 'fixed').map((h) => `${portShown(h)} (${h.name})`);
  return [...set, ...(fixed.length > 0 ? [`${fixed.length > 1 ? 'ports' : 'port'} ${fixed.join(', ')} (fixed)`] : [])].join(' and ');
}
const addressShown = (h: Listener): string => (h.secretAddress ? 'the address its Secret holds' : h.address!);

/**
 * A listener whose port and address one setting holds as `[host]:port` (Go's net.Listen: an empty host is every
 * address): a variable, or an option of the command line. `given` is its text, undefined where unset (the defaults
 * stand), null where it is not read.
 */
function hostPortListener(read: Listener, given: string | undefined | null, port: number, address: string | undefined): Listener {
  if (given === undefined || given === '') return { ...read, port, address };
  if (given === null) return read;
  const split = splitHostPort(given);
  return 'error' in split ? read : { ...read, port: portValue(split.port), address: split.host || '0.0.0.0' };
}

/** Whether a listener's switch is on: true, false, or undefined where its value comes from a source the gate does not read. */
function switchedOn(held: Held, when: ListenSwitch): boolean | undefined {
  for (const name of [...(when.aliases ?? []), when.variable]) {
    const setting = held.variable(name);
    const text = textOf(setting);
    if (setting === undefined || text?.trim() === '') continue;
    return text === undefined ? undefined : when.on.includes(text.trim().toLowerCase());
  }
  return when.on.includes((when.default ?? '').toLowerCase());
}

/** The listener an older variable holding the port alone makes (on every address), where one is set and not empty. */
function aliasListener(held: Held, names: readonly string[]): Listener | undefined {
  for (const name of names) {
    const setting = held.variable(name);
    const text = textOf(setting);
    if (setting === undefined || text === '') continue;
    return { name, variable: name, port: text === undefined ? undefined : portValue(text), address: '0.0.0.0', secretPort: fromSecret(setting) };
  }
  return undefined;
}

/** Each listener's port and bind address as the program reads them; undefined where a value comes from a source the gate does not read. */
function listeners(held: Held, listens: readonly Listens[]): Listener[] {
  return listens.flatMap((l): Listener[] => {
    if ('when' in l && l.when) {
      const on = switchedOn(held, l.when);
      if (on === false) return [];
      if (on === undefined) return [{ name: l.when.variable, variable: l.when.variable }];
    }
    if ('nodeInspector' in l) {
      const options = held.variable(l.nodeInspector);
      const text = textOf(options);
      if (options === undefined) return [];
      if (text === undefined) return [{ name: l.nodeInspector, variable: l.nodeInspector }];
      const inspector = nodeInspector(text);
      const secret = fromSecret(options);
      return inspector
        ? [
            {
              name: `${l.nodeInspector}'s inspector`,
              variable: l.nodeInspector,
              port: inspector.port,
              address: inspector.host,
              secretPort: secret,
              secretAddress: secret,
            },
          ]
        : [];
    }
    const alias = l.listen && l.portAliases ? aliasListener(held, l.portAliases) : undefined;
    if (alias) return [alias];
    if (l.listen) {
      const setting = held.variable(l.listen);
      const secret = fromSecret(setting);
      const read = { name: l.listen, variable: l.listen, addressVariable: l.listen, secretPort: secret, secretAddress: secret };
      return [hostPortListener(read, setting === undefined ? undefined : (textOf(setting) ?? null), l.default, l.addressDefault)];
    }
    if (l.option) {
      const read = { name: l.option, variable: l.option, addressVariable: l.option };
      const values = optionValues(list(held.c.container.args), l.option);
      // A list option listens at each address given; any other at the last.
      const given = values === null ? [null] : values.length === 0 ? [undefined] : l.every ? values : values.slice(-1);
      return given.map((value) => hostPortListener(read, value, l.default, l.addressDefault));
    }
    // A fixed port: the program takes no setting for it.
    const portSetting = l.port === undefined ? undefined : held.variable(l.port);
    const text = textOf(portSetting);
    const port = portSetting === undefined || text === '' ? l.default : text === undefined ? undefined : portValue(text);
    const name = l.port ?? l.when?.variable ?? 'fixed';
    const listener = { name, variable: name, port, secretPort: fromSecret(portSetting) };
    if (!l.address) return [listener];
    const set = held.variable(l.address);
    const written = textOf(set);
    const address = set === undefined ? l.addressDefault : written === '' ? l.emptyAddress : written;
    return [{ ...listener, address, addressVariable: l.address, secretAddress: fromSecret(set) }];
  });
}

/** What a listener bound to loopback or to one address means for what comes to the pod's own address. */
const BOUND = {
  loopback: "loopback alone, and what comes to the pod's own address finds nothing there",
  one: "an address the pod is not given (the pod's address is the network's to choose): the bind fails, or nothing reaches it",
} as const;

export function listensNeed(held: Held): void {
  const { ctx, resource, c, image, need } = held;
  // The image's own program: a container that gives a command runs another, and one that gives args too, but where
  // each listener is an option of the ENTRYPOINT's program, which the args are given to.
  const optionsAlone = need.listens?.every((l) => 'option' in l && l.option !== undefined);
  if (!need.listens || c.container.command !== undefined || (c.container.args !== undefined && !optionsAlone)) return;
  const heard = listeners(held, need.listens);
  // Where a setting is given: an option's argument, a variable's env entry, else the container.
  const variablePath = (name: string) => {
    const arg = list(c.container.args).findLastIndex((a) => typeof a === 'string' && (a === name || a.startsWith(`${name}=`)));
    if (name.startsWith('--')) return arg === -1 ? [...c.at, 'name'] : [...c.at, 'args', arg];
    const at = objects(c.container.env).findLastIndex((e) => e.name === name);
    return at === -1 ? [...c.at, 'name'] : [...c.at, 'env', at, 'value'];
  };
  const seen = new Map<number, string>();
  for (const h of heard) {
    const { name, variable, port } = h;
    if (port === undefined) continue;
    const first = seen.get(port);
    if (first)
      ctx.fail(
        { resource, path: variablePath(variable) },
        `container ${c.name} has ${image} listen on ${portShown(h)} twice (${first} and ${name}): its second listener fails to bind (EADDRINUSE), and the program exits at start (${need.source})`,
        `give ${name} a port of its own`,
      );
    seen.set(port, name);
  }
  // A listener whose port is not read leaves every asked port unjudged.
  if (heard.some((h) => h.port === undefined)) return;
  // One finding per address variable: HOST binds every listener it names.
  const said = new Set<string>();
  for (const a of askedPorts(held)) {
    const asker = a.who === `Service ${a.resource.name}` ? a.who : `container ${c.name}'s ${a.who.replace('its ', '')}`;
    const there = heard.filter((h) => h.port === a.port);
    if (there.length === 0) {
      ctx.fail(
        { resource: a.resource, path: a.path },
        `${asker} asks port ${a.port} of container ${c.name}, where ${image} does not listen: it listens on ${heardShown(heard)} (${need.source})`,
        'make the container port the one the program listens on, or set the variable that moves it',
      );
      continue;
    }
    const bound = there.find((h) => h.address !== undefined && ['loopback', 'one'].includes(bindReach(h.address)));
    if (
      !bound ||
      there.some((h) => h !== bound && (h.address === undefined || bindReach(h.address) === 'all')) ||
      said.has(bound.addressVariable ?? bound.name)
    )
      continue;
    said.add(bound.addressVariable ?? bound.name);
    ctx.fail(
      bound.addressVariable ? { resource, path: variablePath(bound.addressVariable) } : { resource: a.resource, path: a.path },
      `${asker} asks port ${a.port} of container ${c.name}, where ${image} listens on ${addressShown(bound)}${bound.addressVariable ? ` (${bound.addressVariable})` : ` (${bound.name})`}, ${BOUND[bindReach(bound.address!) as 'loopback' | 'one']} (${need.source})`,
      !bound.addressVariable ? 'listen on 0.0.0.0' : `set ${bound.addressVariable} to 0.0.0.0${bound.addressVariable === bound.variable ? `:${a.port}` : ''}`,
    );
  }
}

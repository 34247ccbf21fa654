/**
 * A container's environment as the kubelet makes it (pkg/kubelet/kubelet_pods.go, makeEnvironmentVariables): first
 * the keys of each `envFrom` source, its prefix put before each, a later source over an earlier one; then each `env`
 * entry in order over them, a value expanded by `$(NAME)` against what is set so far (expandVariables), a ConfigMap's
 * or Secret's key read from the object the repository writes, an optional key that is missing skipped. One reading
 * for every check that reads a program's settings, so that they cannot disagree on what a program is given.
 */
import { obj, objects, str, type Obj } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import type { Path } from '../core/positions.ts';
import { scalarText } from '../core/text.ts';
import type { Repo } from '../repository/repo.ts';
import { writtenObject, type Kind } from './provided-keys.ts';

type View = { repo: Repo; resources: readonly Resource[] };

/**
 * How a container's variable is set: its value, where the gate reads it; `held` where it is set from a value the gate
 * does not read (a Secret's text unasked for, a field of the pod, a key an ExternalSecret writes); `maybe` where an
 * envFrom source whose keys cannot be known may set it. Undefined where nothing sets it. A value read from a Secret's
 * text (or expanded from one) says so (`secret`): a finding may judge it, and never prints it (secretShown).
 */
export type VariableSetting = { value: string; secret?: true } | 'held' | 'maybe';

/** Whether a setting's value is a Secret's text (or holds one): a finding that would print it prints this instead. */
export const fromSecret = (setting: VariableSetting | undefined): boolean => typeof setting === 'object' && setting.secret === true;

/** A value as a finding prints it: quoted, or, where it is a Secret's text, only where it comes from. */
export const secretShown = (setting: VariableSetting | undefined, shown: string): string => (fromSecret(setting) ? 'a value its Secret holds' : shown);

/** A value read from an object's key: a Secret's marked as its text. */
const keyValue = (kind: Kind, value: string): VariableSetting => (kind === 'Secret' ? { value, secret: true } : { value });

/**
 * One variable a container is given, written as an env entry holds it (`value` its text where the gate reads it, else
 * a `valueFrom`), with where it is set under the container: an env entry, or the envFrom entry whose source sets it.
 * An env entry's `valueAt` is the field the kubelet read its value from (`valueFrom` for a ConfigMap's or Secret's key).
 */
export interface GivenVariable {
  name: string;
  value?: unknown;
  valueFrom?: unknown;
  at: ['env', number] | ['envFrom', number];
  valueAt?: 'value' | 'valueFrom';
}

export interface ContainerEnvironment {
  /** Each variable set, as entries: first those only envFrom sources set (the source that wins), then every env entry the kubelet reads, in order (the last of a name wins). */
  entries: readonly GivenVariable[];
  /** The envFrom entries whose keys the repository does not say (a `dataFrom`, a Secret made outside git): any variable that starts with the prefix may be set. */
  unread: readonly { source: number; prefix: string }[];
  setting: (name: string) => VariableSetting | undefined;
  /** A variable's text: undefined where nothing sets it, null where it is set, or may be, from somewhere the gate does not read. */
  text: (name: string) => string | undefined | null;
}

/** The Secret or ConfigMap an envFrom entry, or an env entry's key reference, names. */
const sourceRef = (source: Obj): { kind: Kind; ref: Obj } =>
  source.secretRef !== undefined || source.secretKeyRef !== undefined
    ? { kind: 'Secret', ref: obj(source.secretRef ?? source.secretKeyRef) }
    : { kind: 'ConfigMap', ref: obj(source.configMapRef ?? source.configMapKeyRef) };

/** The names the kubelet gives a Service's link variables (`<SERVICE>_SERVICE_HOST`, `<SERVICE>_PORT_…`), which a `$(NAME)` may read too. */
const SERVICE_LINK = /_(SERVICE_HOST|SERVICE_PORT(_.*)?|PORT(_.*)?)$/;

/**
 * The container's environment as the kubelet sets it. A Secret's text is read only where `secretText` asks for it
 * (the settings that turn a program's calls on, a program's own settings); a reader that asks for it prints a value
 * through secretShown, and one that does not never sees it, so that no finding prints a Secret's text.
 */
export function containerEnvironment(
  view: View,
  namespace: string | undefined,
  container: Obj,
  { secretText = false }: { secretText?: boolean } = {},
): ContainerEnvironment {
  // Asked by several checks and several times within one (a manager's variables for each client): made once per view.
  const byContainer = computed.get(view.resources) ?? new WeakMap<Obj, Map<string, ContainerEnvironment>>();
  computed.set(view.resources, byContainer);
  const made = byContainer.get(container) ?? new Map<string, ContainerEnvironment>();
  byContainer.set(container, made);
  const key = `${namespace ?? ''}|${secretText}`;
  if (!made.has(key)) made.set(key, environmentOf(view, namespace, container, secretText));
  return made.get(key)!;
}

const computed = new WeakMap<readonly Resource[], WeakMap<Obj, Map<string, ContainerEnvironment>>>();

function environmentOf(view: View, namespace: string | undefined, container: Obj, secretText: boolean): ContainerEnvironment {
  const env = objects(container.env);
  const sources = objects(container.envFrom);
  // What the repository writes of each source, read the first time a source is asked about.
  const sourceCache: ({ kind: Kind; prefix: string; object: ReturnType<typeof writtenObject> } | undefined)[] = [];
  const writtenAt = (i: number) => {
    if (!sourceCache[i]) {
      const { kind, ref } = sourceRef(sources[i]!);
      const object = typeof ref.name === 'string' ? writtenObject(view, { kind, namespace, name: ref.name }) : undefined;
      sourceCache[i] = { kind, prefix: str(sources[i]!.prefix), object };
    }
    return sourceCache[i];
  };
  /** What the envFrom sources set a name to: the last source whose prefix it has and that holds it; `maybe` where one whose keys are unknown comes first. */
  const fromSources = (name: string): { setting: VariableSetting; source: number } | undefined => {
    for (let i = sources.length - 1; i >= 0; i--) {
      if (!name.startsWith(str(sources[i]!.prefix))) continue;
      const { kind, prefix, object } = writtenAt(i);
      if (object?.keys === undefined) return { setting: 'maybe', source: i };
      const key = name.slice(prefix.length);
      if (!object.keys.has(key)) continue;
      const value = kind === 'Secret' && !secretText ? undefined : object.values?.get(key);
      return { setting: value === undefined ? 'held' : keyValue(kind, value), source: i };
    }
    return undefined;
  };
  // Each env entry read once, by what is set before it (the kubelet's order); a name asked is read back to its last setter.
  const read = new Map<number, VariableSetting | 'skipped'>();
  const entryAt = (i: number): VariableSetting | 'skipped' => {
    if (!read.has(i))
      read.set(
        i,
        envEntrySetting({ view, namespace, secretText }, env[i]!, (name) => settingBefore(name, i)),
      );
    return read.get(i)!;
  };
  const settingBefore = (name: string, limit: number): VariableSetting | undefined => {
    for (let j = limit - 1; j >= 0; j--) {
      if (env[j]!.name !== name) continue;
      const found = entryAt(j);
      if (found !== 'skipped') return found;
    }
    return fromSources(name)?.setting;
  };
  const setting = (name: string) => settingBefore(name, env.length);
  let whole: Pick<ContainerEnvironment, 'entries' | 'unread'> | undefined;
  // The whole list only for a reader of entries: a reader of a few settings by name never builds it.
  const listed = () => (whole ??= givenEntries({ env, written: sources.map((_, i) => writtenAt(i)), fromSources, entryAt }));
  return {
    get entries() {
      return listed().entries;
    },
    get unread() {
      return listed().unread;
    },
    setting,
    text: (name) => {
      const found = setting(name);
      return found === undefined ? undefined : typeof found === 'object' ? found.value : null;
    },
  };
}

/** Every variable set, as entries: those only the envFrom sources set (each by the source that sets it), then each env entry the kubelet reads. */
function givenEntries({
  env,
  written,
  fromSources,
  entryAt,
}: {
  env: readonly Obj[];
  written: readonly { prefix: string; object: { keys: Set<string> | undefined; values: Map<string, string> | undefined } | undefined }[];
  fromSources: (name: string) => { setting: VariableSetting; source: number } | undefined;
  entryAt: (i: number) => VariableSetting | 'skipped';
}): Pick<ContainerEnvironment, 'entries' | 'unread'> {
  const unread = written.flatMap((w, i) => (w.object?.keys === undefined ? [{ source: i, prefix: w.prefix }] : []));
  const fromSourceEntries = new Map<string, GivenVariable>();
  written.forEach((w) => {
    for (const key of w.object?.keys ?? []) {
      const name = `${w.prefix}${key}`;
      const found = fromSources(name);
      if (!found || fromSourceEntries.has(name)) continue;
      const at: ['envFrom', number] = ['envFrom', found.source];
      fromSourceEntries.set(
        name,
        typeof found.setting === 'object' ? { name, value: found.setting.value, at } : { name, valueFrom: { envFrom: found.source }, at },
      );
    }
  });
  const entries: GivenVariable[] = [];
  env.forEach((e, i) => {
    if (typeof e.name !== 'string') return;
    const found = entryAt(i);
    if (found === 'skipped') return;
    const { value, valueFrom, ...rest } = e;
    const valueAt = typeof value === 'string' && value !== '' ? ('value' as const) : valueFrom !== undefined ? ('valueFrom' as const) : ('value' as const);
    // A value the gate does not read is a `valueFrom` to every reader, an expansion of one among them.
    entries.push({
      ...rest,
      name: e.name,
      ...(typeof found === 'object' ? { value: found.value } : { valueFrom: valueFrom ?? { expands: value } }),
      at: ['env', i],
      valueAt,
    });
  });
  // A name an env entry the kubelet reads sets is its own; a skipped one leaves the source's standing.
  const setByEnv = new Set(entries.map((e) => e.name));
  return { entries: [...[...fromSourceEntries.values()].filter((e) => !setByEnv.has(e.name)), ...entries], unread };
}

/**
 * One env entry as the kubelet reads it: a non-empty value expanded against what is set so far; else its `valueFrom`:
 * a ConfigMap's key (or a Secret's, where its text is read) as the repository writes it, `skipped` where it is
 * optional and the object or key is missing, `held` where the gate does not read it (a field, a resource, a key of
 * an object outside git, or one missing that is not optional, which stops the container from starting at all).
 */
function envEntrySetting(
  { view, namespace, secretText }: { view: View; namespace: string | undefined; secretText: boolean },
  e: Obj,
  setting: (name: string) => VariableSetting | undefined,
): VariableSetting | 'skipped' {
  if (typeof e.value === 'string' && e.value !== '') return expandVariables(e.value, setting);
  if (e.valueFrom === undefined) return { value: scalarText(e.value ?? '') };
  const from = obj(e.valueFrom);
  if (from.configMapKeyRef === undefined && from.secretKeyRef === undefined) return 'held';
  const { kind, ref } = sourceRef(from);
  if (typeof ref.name !== 'string' || typeof ref.key !== 'string') return 'held';
  // A Secret's key whose text is not asked for is held whether or not it is there, unless a missing one would be skipped.
  if (kind === 'Secret' && !secretText && ref.optional !== true) return 'held';
  const written = writtenObject(view, { kind, namespace, name: ref.name });
  if (written?.keys === undefined) return 'held';
  if (!written.keys.has(ref.key)) return ref.optional === true ? 'skipped' : 'held';
  const value = kind === 'Secret' && !secretText ? undefined : written.values?.get(ref.key);
  return value === undefined ? 'held' : keyValue(kind, value);
}

/**
 * A value with its `$(NAME)` references expanded as the kubelet expands them (third_party/forked/golang/expansion):
 * a name set so far gives its text, `$$` is one `$`, and anything else stays as written, an undefined name among it.
 * `held` where a reference reads a value the gate does not read, or a Service's link variable, which the kubelet sets
 * from the namespace's Services.
 */
export function expandVariables(input: string, setting: (name: string) => VariableSetting | undefined): VariableSetting {
  let held = false;
  let secret = false;
  const value = expand(input, (name) => {
    const found = setting(name);
    if (typeof found === 'object') {
      secret ||= found.secret === true;
      return found.value;
    }
    if (found !== undefined || SERVICE_LINK.test(name)) held = true;
    return `$(${name})`;
  });
  return held ? 'held' : secret ? { value, secret: true } : { value };
}

/**
 * A container's command-line words as the kubelet runs them (kubecontainer.ExpandContainerCommandAndArgs): each
 * `$(NAME)` expanded by the container's environment (a name it does not set left as written); null for a word that
 * reads a value the gate does not read.
 */
export const expandedWords = (environment: Pick<ContainerEnvironment, 'setting'>, words: unknown): (string | null)[] =>
  (Array.isArray(words) ? words : []).map((word) => expandedWord(environment, word));

/** One command-line word as the kubelet runs it (expandedWords). */
export function expandedWord(environment: Pick<ContainerEnvironment, 'setting'>, word: unknown): string | null {
  const expanded = expandVariables(scalarText(word), environment.setting);
  return typeof expanded === 'object' ? expanded.value : null;
}

/** A container's command line as the kubelet runs it: its `command`, then its `args`, each word expanded (expandedWords). */
export const expandedCommandLine = (environment: Pick<ContainerEnvironment, 'setting'>, container: Obj): (string | null)[] => [
  ...expandedWords(environment, container.command),
  ...expandedWords(environment, container.args),
];

/** expansion.Expand: `$(NAME)` mapped, `$$` an escaped `$`, a `$` before anything else or an unclosed `$(` kept. */
export function expand(input: string, mapping: (name: string) => string): string {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const rest = input.slice(cursor + 1);
    const close = rest[0] === '(' ? rest.indexOf(')', 1) : -1;
    // Go reads the rune after `$` whole: one code point here, as utf8.DecodeRuneInString reads it.
    const next = String.fromCodePoint(rest.codePointAt(0)!);
    if (close > 0) out += mapping(rest.slice(1, close));
    else out += rest[0] === '$' ? '$' : rest[0] === '(' ? '$(' : `$${next}`;
    cursor += close > 0 ? close + 1 : rest[0] === '(' ? 1 : next.length;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}

/**
 * Where a given variable is set, under its container: an env entry's `field` (its name, or its value where the
 * kubelet read it, a `valueFrom` for a key it names), or the envFrom entry whose source sets it (a source's line is
 * where its key is given).
 */
export const givenVariablePath = (e: GivenVariable, field?: 'value' | 'name'): Path =>
  e.at[0] === 'envFrom' || field === undefined ? [...e.at] : [...e.at, field === 'value' ? (e.valueAt ?? 'value') : field];

/**
 * The Secret and key a given variable is read from: an env entry's secretKeyRef, or the Secret its envFrom entry
 * names, the key its name after the entry's prefix; undefined for any other source (a literal, a ConfigMap, a field).
 */
export function secretKeyOf(container: Obj, e: GivenVariable): { secret: string; key: string } | undefined {
  if (e.at[0] === 'envFrom') {
    const from = objects(container.envFrom)[e.at[1]]!;
    const name = from.secretRef === undefined ? undefined : obj(from.secretRef).name;
    return typeof name === 'string' ? { secret: name, key: e.name.slice(str(from.prefix).length) } : undefined;
  }
  const ref = obj(obj(objects(container.env)[e.at[1]]?.valueFrom).secretKeyRef);
  return typeof ref.name === 'string' && typeof ref.key === 'string' ? { secret: ref.name, key: ref.key } : undefined;
}

/** Whether a variable that starts with `prefix` may be one that starts with `start`. */
export const mayStartWith = (prefix: string, start: string): boolean => prefix.startsWith(start) || start.startsWith(prefix);

/** One variable of the kubelet's service links, and the Service that makes it (none for the API server's own, default/kubernetes). */
export interface ServiceLinkVariable {
  name: string;
  value: string;
  service?: Resource;
}

/** envvars.makeEnvVariableName: upper case, `.` and `-` as `_`, a `_` before a leading digit. */
const linkName = (name: string): string => {
  const upper = name.replaceAll('.', '_').replaceAll('-', '_').toUpperCase();
  return /^[0-9]/.test(upper) ? `_${upper}` : upper;
};

/** envvars.FromServices for one Service: its host and first port, each named port, and the Docker-style link variables of every port. */
function linkVariables(name: string, ip: string, ports: readonly Obj[]): { name: string; value: string }[] {
  const prefix = linkName(name);
  const out = [
    { name: `${prefix}_SERVICE_HOST`, value: ip },
    { name: `${prefix}_SERVICE_PORT`, value: scalarText(ports[0]!.port ?? '') },
  ];
  for (const p of ports) if (str(p.name)) out.push({ name: `${prefix}_SERVICE_PORT_${linkName(str(p.name))}`, value: scalarText(p.port ?? '') });
  ports.forEach((p, i) => {
    const [protocol, port] = [str(p.protocol) || 'TCP', scalarText(p.port ?? '')];
    const url = `${protocol.toLowerCase()}://${ip}:${port}`;
    if (i === 0) out.push({ name: `${prefix}_PORT`, value: url });
    const at = `${prefix}_PORT_${port}_${protocol.toUpperCase()}`;
    out.push(
      { name: at, value: url },
      { name: `${at}_PROTO`, value: protocol.toLowerCase() },
      { name: `${at}_PORT`, value: port },
      { name: `${at}_ADDR`, value: ip },
    );
  });
  return out;
}

/**
 * The variables the kubelet adds to every container of a pod for the Services it links (kubelet_pods.go's
 * getServiceEnvVarMap, envvars.FromServices): each Service of the pod's namespace that has a cluster IP (not
 * headless, not an ExternalName), unless the pod sets enableServiceLinks to false, and the API server's own Service
 * default/kubernetes always. A variable the container sets itself (env, envFrom) is its own; these fill the rest.
 * `allocated` stands for the cluster IP of a Service whose manifest leaves it to the API server (any address of the
 * Service network reads alike).
 */
export function serviceLinkVariables(o: { services: readonly Resource[]; namespace: string; pod: Obj; allocated: string }): ServiceLinkVariable[] {
  const out: ServiceLinkVariable[] = linkVariables('kubernetes', o.allocated, [{ name: 'https', port: 443 }]);
  if (o.pod.enableServiceLinks === false) return out;
  for (const service of o.services) {
    const spec = obj(service.object.spec);
    const ip = str(spec.clusterIP);
    const ports = objects(spec.ports);
    if ((service.namespace ?? '') !== o.namespace || spec.type === 'ExternalName' || ip === 'None' || ports.length === 0) continue;
    if (o.namespace === 'default' && service.name === 'kubernetes') continue;
    out.push(...linkVariables(service.name, ip || o.allocated, ports).map((v) => ({ ...v, service })));
  }
  return out;
}

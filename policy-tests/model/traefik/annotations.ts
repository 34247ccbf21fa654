/**
 * What Traefik's Kubernetes Ingress provider makes of the `traefik.ingress.kubernetes.io/` annotations of an Ingress
 * (its router: `parseRouterConfig`) and of a Service an Ingress sends to (its service: `parseServiceConfig`), read
 * from Traefik's source at v3.7.9 (pkg/provider/kubernetes/ingress/annotations.go; the chart runs v3.7.11) and
 * paerser's label decoder (parser/labels_decode.go, nodes_metadata.go, filler.go) it decodes them with:
 *
 * - the key loses `ingress.kubernetes.io/` (`traefik.router.middlewares`), and `a.b.0.c` becomes `a.b[0].c`;
 * - only keys under `traefik.router.` (on a Service, `traefik.service.`), case aside, are decoded: any other is
 *   ignored without a word;
 * - each is matched, case aside, against the fields of Traefik's Go structs; a name no field has, a value its type
 *   does not parse (`strconv.ParseBool`, `ParseInt`), a struct given a value where it wants fields, a field given
 *   fields where it wants a value, is an error, and Traefik drops the whole Ingress (`Failed to parse annotations`)
 *   or the Service's every route (`Cannot create service`): every request to it is a 404;
 * - a field tagged `label:"-"` is read and ignored; a struct tagged `allowEmpty` (`router.tls`) given a value other
 *   than `true` is switched off.
 */
import { dig, obj } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';

/** A field's Go type, as the decoder fills it. */
type Leaf = 'string' | 'bool' | 'int' | 'strings';
interface Struct {
  fields: Readonly<Record<string, Field>>;
  /** `label:"allowEmpty"`: a value alone switches it on (`true`) or off (anything else). */
  allowEmpty?: boolean;
}
/** A slice of structs: each element a node of its own, whatever its index is written as. */
interface Elements {
  each: Struct;
}
type Field = Leaf | Struct | Elements | 'ignored';

const ROUTER: Struct = {
  fields: {
    pathMatcher: 'string',
    entryPoints: 'strings',
    middlewares: 'strings',
    priority: 'int',
    ruleSyntax: 'string',
    tls: {
      allowEmpty: true,
      fields: {
        options: 'string',
        resolvedOptions: 'ignored',
        certResolver: 'string',
        domains: { each: { fields: { main: 'string', sans: 'strings' } } },
      },
    },
    observability: {
      allowEmpty: true,
      fields: { accessLogs: 'bool', metrics: 'bool', tracing: 'bool', traceVerbosity: 'string', metadata: 'ignored' },
    },
  },
};

const SERVICE: Struct = {
  fields: {
    serversScheme: 'string',
    serversTransport: 'string',
    passHostHeader: 'bool',
    middlewares: 'strings',
    sticky: {
      allowEmpty: true,
      fields: {
        cookie: {
          allowEmpty: true,
          fields: {
            name: 'string',
            secure: 'bool',
            httpOnly: 'bool',
            sameSite: 'string',
            maxAge: 'int',
            path: 'string',
            domain: 'string',
            expires: 'ignored',
          },
        },
      },
    },
    nativeLB: 'bool',
    nodePortLB: 'bool',
  },
};

export const TRAEFIK_ANNOTATION_PREFIX = 'traefik.ingress.kubernetes.io/';

/** An object's annotations, as the provider reads them (none where they are not a map). */
export const annotationsOf = (r: Pick<Resource, 'object'>): Record<string, unknown> => obj(dig(r.object, ['metadata', 'annotations']));

/** The object a Traefik annotation configures: an Ingress's router, or the service a Service becomes. */
export type TraefikTarget = 'router' | 'service';
const ROOTS: Record<TraefikTarget, Struct> = { router: ROUTER, service: SERVICE };
const PLACE: Record<TraefikTarget, string> = { router: 'an Ingress', service: 'the Service an Ingress sends to' };

/** What Traefik makes of one annotation: it drops the object, ignores the key, or switches a block off. */
export interface TraefikAnnotationReading {
  key: string;
  effect: 'drops' | 'ignored' | 'off';
  /** Why, in the decoder's terms. */
  why: string;
  /** A name Traefik does not know there: a slip, likely, of one of `traefikAnnotationKeys`. */
  misnamed?: true;
}

/** The key as the provider hands it to the decoder (`convertAnnotations`). */
function converted(key: string): string {
  const bare = key.replaceAll('ingress.kubernetes.io/', '');
  return bare.replace(/(.+)\.(\w+)\.(\d+)\.(.+)/, '$1.$2[$3].$4');
}

/** The path of names the decoder walks for a converted key (`DecodeToNode`), or why it refuses the key. */
function nodePath(key: string): string[] | string {
  const parts: string[] = [];
  for (const v of key.split('.')) {
    if (v === '') return `an empty element in ${key}`;
    if (v.startsWith('[')) return `a name led by '[' (${v})`;
    if (v.endsWith(']')) {
      const left = v.indexOf('[');
      // Go slices v[:-1] here and panics; the provider's run ends without the Ingress either way.
      if (left === -1) return `a name ending in ']' with no '[' (${v})`;
      parts.push(v.slice(0, left), v.slice(left));
    } else parts.push(v);
  }
  return parts;
}

/** Whether Go's strconv parses `value` as the leaf's type. */
function parses(type: Leaf, value: string): boolean {
  if (type === 'bool') return ['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value);
  if (type === 'int') {
    if (!/^[+-]?\d+$/.test(value)) return false;
    const n = BigInt(value);
    return n >= -(2n ** 63n) && n < 2n ** 63n;
  }
  return true;
}

const fieldNamed = (struct: Struct, name: string): [string, Field] | undefined =>
  Object.entries(struct.fields).find(([field]) => field.toLowerCase() === name.toLowerCase());

/** What the decoder makes of `names` under `struct`, the annotation's value `value` at their end. */
function walk(struct: Struct, names: string[], value: string, prefix: string): Omit<TraefikAnnotationReading, 'key'> | undefined {
  const [name, ...rest] = names;
  const found = fieldNamed(struct, name!);
  if (!found) {
    return { effect: 'drops', why: `field not found, node: ${name} (no field of ${prefix.slice(0, -1)} is named so)`, misnamed: true };
  }
  const [field, type] = found;
  if (type === 'ignored') return { effect: 'ignored', why: `${prefix}${field} is a field the decoder skips (label:"-")` };
  if (typeof type === 'string') {
    if (rest.length > 0) return { effect: 'drops', why: `invalid node ${name}: ${prefix}${field} takes a value, not fields` };
    return parses(type, value)
      ? undefined
      : { effect: 'drops', why: `${prefix}${field} is ${type === 'int' ? 'an integer' : 'a boolean'}, and ${JSON.stringify(value)} does not parse as one` };
  }
  if ('each' in type) {
    // The element's own name is any text: `domains.0.main`, `domains[0].main`, even `domains.x.main`.
    return rest.length > 1 ? walk(type.each, rest.slice(1), value, `${prefix}${field}.${rest[0]}.`) : undefined;
  }
  if (rest.length > 0) return walk(type, rest, value, `${prefix}${field}.`);
  if (!type.allowEmpty) return { effect: 'drops', why: `${name} cannot be a standalone element: ${prefix}${field} takes fields` };
  if (value !== '' && value.toLowerCase() !== 'true')
    return { effect: 'off', why: `${prefix}${field} given ${JSON.stringify(value)}, which is not true, is switched off` };
  return undefined;
}

/**
 * What Traefik makes of each `traefik.ingress.kubernetes.io/` annotation of an object read as `target`; nothing for
 * one it reads as written.
 */
export function readTraefikAnnotations(annotations: Readonly<Record<string, unknown>>, target: TraefikTarget): TraefikAnnotationReading[] {
  const readings: TraefikAnnotationReading[] = [];
  const filter = `traefik.${target}.`;
  for (const [key, raw] of Object.entries(annotations)) {
    if (!key.startsWith(TRAEFIK_ANNOTATION_PREFIX)) continue;
    const label = converted(key);
    if (!label.toLowerCase().startsWith(filter)) {
      const other: TraefikTarget = target === 'router' ? 'service' : 'router';
      readings.push(
        label.toLowerCase().startsWith(`traefik.${other}.`)
          ? { key, effect: 'ignored', why: `Traefik decodes ${other}.* on ${PLACE[other]}, not on ${PLACE[target]}` }
          : { key, effect: 'ignored', why: `on ${PLACE[target]} Traefik decodes only ${TRAEFIK_ANNOTATION_PREFIX}${target}.*`, misnamed: true },
      );
      continue;
    }
    const path = nodePath(label);
    if (typeof path === 'string') {
      readings.push({ key, effect: 'drops', why: `the decoder refuses ${path}` });
      continue;
    }
    const reading = walk(ROOTS[target], path.slice(2), typeof raw === 'string' ? raw : String(raw), `${target}.`);
    if (reading) readings.push({ key, ...reading });
  }
  return readings;
}

/** Every annotation key Traefik reads for `target` (an element of a list written `.0.`), to suggest from. */
export function traefikAnnotationKeys(target: TraefikTarget): string[] {
  const keys = (struct: Struct, prefix: string): string[] =>
    Object.entries(struct.fields).flatMap(([name, type]) => {
      if (type === 'ignored') return [];
      if (typeof type === 'string') return [`${prefix}${name}`];
      if ('each' in type) return keys(type.each, `${prefix}${name}.0.`);
      return [...(type.allowEmpty ? [`${prefix}${name}`] : []), ...keys(type, `${prefix}${name}.`)];
    });
  return keys(ROOTS[target], `${target}.`);
}

/** The annotation that sets `<target>.<field>` (a leaf of the struct, named case aside), and its value, if one does. */
export function traefikField(annotations: Readonly<Record<string, unknown>>, target: TraefikTarget, field: string): { key: string; value: string } | undefined {
  const wanted = `traefik.${target}.${field}`.toLowerCase();
  for (const [key, raw] of Object.entries(annotations))
    if (key.startsWith(TRAEFIK_ANNOTATION_PREFIX) && converted(key).toLowerCase() === wanted)
      return { key, value: typeof raw === 'string' ? raw : String(raw) };
  return undefined;
}

/** A `[]string` field's value as the decoder splits it: on commas, each name trimmed; none for an empty value. */
export const traefikList = (value: string): string[] => (value === '' ? [] : value.split(',').map((v) => v.trim()));

/** A Middleware as a reference names it through the CRD provider: `<namespace>-<name>`. */
export const middlewareName = (namespace: string, name: string): string => `${namespace}-${name}`;

/**
 * The middlewares an object names for its router or service (`router.middlewares`, its field's name case aside), each
 * split at its `@provider` (none: the object's own provider), with the annotation that names them; undefined for none.
 */
export function namedMiddlewares(
  owner: Pick<Resource, 'object'>,
  target: TraefikTarget,
): { key: string; refs: { ref: string; name: string; provider?: string }[] } | undefined {
  const named = traefikField(annotationsOf(owner), target, 'middlewares');
  if (!named) return undefined;
  const refs = traefikList(named.value)
    .filter(Boolean)
    .map((ref) => {
      const [name, provider] = ref.split('@') as [string, string | undefined];
      return { ref, name, ...(provider === undefined ? {} : { provider }) };
    });
  return { key: named.key, refs };
}

/**
 * The keys each Secret and ConfigMap has, where the repository writes them: an ExternalSecret's data[].secretKey (or
 * its template's data), a cert-manager Certificate's tls.crt, tls.key and ca.crt, the Secret a chart's
 * kube-webhook-certgen job creates (its ca, cert and key), a plain Secret's or ConfigMap's data. Unknown (undefined)
 * where they cannot be known: an ExternalSecret's dataFrom or templateFrom, a committed Secret without data (a
 * placeholder filled outside git).
 */
import { dig, list, obj, objects, str } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import type { Path } from '../core/positions.ts';
import { namespaceOrDestination } from '../argocd/argocd.ts';
import type { Repo } from '../repository/repo.ts';
import { commandLineFlag } from '../core/workloads.ts';
import { secretEntries } from '../core/secrets.ts';
import { constantTemplateText } from './external-secrets.ts';

export type Kind = 'Secret' | 'ConfigMap';

/** The kinds whose objects write a Secret's or ConfigMap's keys: a check that asks for keys reads these. */
export const KEY_PROVIDER_KINDS = ['Secret', 'ConfigMap', 'ExternalSecret', 'Certificate', 'Job'] as const;

/** A check's kinds with the key providers after them, each once: what a check that reads a container's variables declares. */
export const withKeyProviders = (...kinds: readonly string[]): string[] => [...new Set([...kinds, ...KEY_PROVIDER_KINDS])];

/**
 * The Secret a kube-webhook-certgen `create` writes, as its `create` command writes it (ingress-nginx's image, and
 * jkroepke's fork that kube-prometheus-stack runs): `--secret-name` in `--namespace`, holding the CA, the certificate
 * and the key under `--ca-name`, `--cert-name` and `--key-name` (ca, cert and key unless told).
 */
function certgenSecret(job: Resource): { namespace: string; name: string; keys: string[] } | undefined {
  const containers = list(dig(job.object, ['spec', 'template', 'spec', 'containers']));
  const certgen = containers.map(obj).find((c) => /(^|\/)kube-webhook-certgen(:|@|$)/.test(str(c.image)));
  const args = list(certgen?.args).map(str);
  if (args[0] !== 'create') return undefined;
  const flag = (name: string) => commandLineFlag(args, name);
  const [name, namespace] = [flag('secret-name'), flag('namespace')];
  if (!name || !namespace) return undefined;
  return { namespace, name, keys: [flag('ca-name') ?? 'ca', flag('cert-name') ?? 'cert', flag('key-name') ?? 'key'] };
}

/** A ConfigMap's text values by key: a value that is no text is left out. */
const textValues = (map: unknown): Map<string, string> =>
  new Map(Object.entries(obj(map)).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as const] : [])));

/** The values of an ExternalSecret template's entries that hold no action (constantTemplateText); the others are the store's. */
const constantTemplateValues = (data: unknown): Map<string, string> =>
  new Map(
    Object.entries(obj(data)).flatMap(([key, entry]) => {
      const text = constantTemplateText(entry);
      return text === undefined ? [] : [[key, text] as const];
    }),
  );

/** A Secret's values as the API server stores them (core/secrets.ts: `data` decoded, `stringData` written over it). */
const secretValues = (secret: Resource): Map<string, string> => new Map(secretEntries(secret.object).map((e) => [e.key, e.value]));

/** What the repository writes of one Secret or ConfigMap: its keys (undefined where they cannot be known), and its types. */
interface Written {
  keys: Set<string> | undefined;
  /** Each key's value, where one plain Secret or ConfigMap of the repository writes it alone; else undefined. */
  values: Map<string, string> | undefined;
  /** A Secret's type as each writer gives it (Opaque where it gives none). */
  types: Set<string>;
}

const byView = new WeakMap<readonly Resource[], Map<string, Written>>();

/** Every Secret and ConfigMap the repository writes, by `<kind>/<namespace>/<name>`: one walk per view of the resources. */
function writtenObjects(repo: Repo, resources: readonly Resource[]): Map<string, Written> {
  // Asked again and again within one check (per job, per mounted file): worked out once per view of the resources.
  const cached = byView.get(resources);
  if (cached) return cached;
  const out = new Map<string, Written>();
  byView.set(resources, out);
  const add = (
    kind: Kind,
    [ns, name]: [string | undefined, unknown],
    { keys, type, values }: { keys: Iterable<string> | undefined; type?: unknown; values?: Map<string, string> },
  ) => {
    if (typeof name !== 'string') return;
    const id = `${kind}/${ns ?? ''}/${name}`;
    const seen = out.get(id);
    // Two providers of one name write their keys together; one whose keys cannot be known makes them all unknown.
    const merged = keys === undefined || (seen && seen.keys === undefined) ? undefined : new Set([...(seen?.keys ?? []), ...keys]);
    const types = seen?.types ?? new Set<string>();
    if (kind === 'Secret') types.add(typeof type === 'string' && type !== '' ? type : 'Opaque');
    // Two writers of one name race for its values (the last sync wins): known only where one writes them.
    out.set(id, { keys: merged, types, values: seen ? undefined : values });
  };
  // A Secret or ConfigMap made by hand, whose keys the facts say (the secret store's credential, made at bootstrap).
  for (const e of repo.facts?.providedOutsideGit ?? [])
    if (e.keys && (e.kind === 'Secret' || e.kind === 'ConfigMap')) add(e.kind, [e.namespace, e.name], { keys: e.keys });
  for (const r of resources) {
    const ns = namespaceOrDestination(repo, r);
    const keysOf = (path: Path) => Object.keys((dig(r.object, path) ?? {}) as object);
    if (r.kind === 'ExternalSecret') {
      // A template replaces what the store hands over (mergePolicy Replace, the default): the Secret holds the template's keys alone.
      const template = dig(r.object, ['spec', 'target', 'template']);
      const replaces = dig(template, ['data']) !== undefined && dig(template, ['mergePolicy']) !== 'Merge';
      const data = (objects(dig(r.object, ['spec', 'data'])) as { secretKey?: string }[]).flatMap((d) => (d.secretKey ? [d.secretKey] : []));
      const unknown = dig(template, ['templateFrom']) !== undefined || (!replaces && (list(dig(r.object, ['spec', 'dataFrom'])) as unknown[]).length > 0);
      add('Secret', [ns, dig(r.object, ['spec', 'target', 'name']) ?? r.name], {
        keys: unknown ? undefined : replaces ? keysOf(['spec', 'target', 'template', 'data']) : data,
        type: dig(template, ['type']),
        ...(replaces && !unknown ? { values: constantTemplateValues(dig(template, ['data'])) } : {}),
      });
    } else if (r.kind === 'Certificate')
      add('Secret', [ns, dig(r.object, ['spec', 'secretName'])], { keys: ['tls.crt', 'tls.key', 'ca.crt'], type: 'kubernetes.io/tls' });
    else if (r.kind === 'Job') {
      const written = certgenSecret(r);
      if (written) add('Secret', [written.namespace, written.name], { keys: written.keys });
    } else if (r.kind === 'Secret') {
      // A committed Secret without data is a placeholder filled outside git (no-plain-secret forbids data here): its keys are not known.
      const keys = [...keysOf(['data']), ...keysOf(['stringData'])];
      add('Secret', [ns, r.name], { keys: keys.length > 0 ? keys : undefined, type: dig(r.object, ['type']), values: secretValues(r) });
    } else if (r.kind === 'ConfigMap')
      add('ConfigMap', [ns, r.name], { keys: [...keysOf(['data']), ...keysOf(['binaryData'])], values: textValues(dig(r.object, ['data'])) });
  }
  return out;
}

/**
 * What the repository writes of Secret or ConfigMap `name` in `namespace`: its keys (undefined where they cannot be
 * known) and each key's value (undefined where two writers race for them, or none gives them). Undefined where
 * nothing in the repository writes it.
 */
export function writtenObject(
  { repo, resources }: { repo: Repo; resources: readonly Resource[] },
  { kind, namespace, name }: { kind: Kind; namespace: string | undefined; name: string },
): Pick<Written, 'keys' | 'values'> | undefined {
  return writtenObjects(repo, resources).get(`${kind}/${namespace ?? ''}/${name}`);
}

/**
 * The keys Secret or ConfigMap `name` in `namespace` has, as what writes it gives them: undefined when nothing in the
 * repository writes it, or when what writes it gives no known keys.
 */
export function keysOf(
  { repo, resources }: { repo: Repo; resources: readonly Resource[] },
  { kind, namespace, name }: { kind: Kind; namespace: string | undefined; name: string | undefined },
): Set<string> | undefined {
  return name === undefined ? undefined : writtenObjects(repo, resources).get(`${kind}/${namespace ?? ''}/${name}`)?.keys;
}

/**
 * The type of Secret `name` in `namespace` as what writes it gives it: a plain Secret's `type`, an ExternalSecret's
 * template's (Opaque without one, as External Secrets writes it), a Certificate's kubernetes.io/tls, the Opaque Secret a
 * kube-webhook-certgen job writes. Undefined where nothing in the repository writes it, or two writers disagree.
 */
export function secretTypeOf(
  { repo, resources }: { repo: Repo; resources: readonly Resource[] },
  { namespace, name }: { namespace: string | undefined; name: string },
): string | undefined {
  const types = writtenObjects(repo, resources).get(`Secret/${namespace ?? ''}/${name}`)?.types;
  return types?.size === 1 ? [...types][0] : undefined;
}

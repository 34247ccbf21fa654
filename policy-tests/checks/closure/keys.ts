/**
 * closure-secret-key: the key a container reads from a Secret or a ConfigMap (env valueFrom secretKeyRef or
 * configMapKeyRef, and a volume's items) is one its provider writes. The kubelet refuses a missing key unless the
 * reference is optional: the container never starts (CreateContainerConfigError). A provider's keys are known when
 * the repository writes them: an ExternalSecret's data[].secretKey (or its template's data), a Certificate's
 * tls.crt, tls.key and ca.crt, a plain Secret's or ConfigMap's data; anything else (dataFrom, a chart not rendered,
 * a controller) is not judged here.
 */
import { dig } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { Path } from '../../model/core/positions.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { podRefs } from '../../model/cluster/references.ts';

type Kind = 'Secret' | 'ConfigMap';

/** The keys each provider writes, by kind, namespace and name; undefined where they cannot be known. */
function providedKeys(repo: Parameters<typeof namespaceOrDestination>[0], resources: readonly Resource[]): Map<string, Set<string> | undefined> {
  const out = new Map<string, Set<string> | undefined>();
  const add = (kind: Kind, ns: string | undefined, name: unknown, keys: Iterable<string> | undefined) => {
    if (typeof name !== 'string') return;
    const id = `${kind}/${ns ?? ''}/${name}`;
    // Two providers of one name write their keys together; one whose keys cannot be known makes them all unknown.
    if (keys === undefined || (out.has(id) && out.get(id) === undefined)) out.set(id, undefined);
    else out.set(id, new Set([...(out.get(id) ?? []), ...keys]));
  };
  for (const r of resources) {
    const ns = namespaceOrDestination(repo, r);
    const keysOf = (path: Path) => Object.keys((dig(r.object, path) ?? {}) as object);
    if (r.kind === 'ExternalSecret') {
      const template = dig(r.object, ['spec', 'target', 'template', 'data']);
      const data = ((dig(r.object, ['spec', 'data']) ?? []) as { secretKey?: string }[]).flatMap((d) => (d.secretKey ? [d.secretKey] : []));
      const unknown =
        ((dig(r.object, ['spec', 'dataFrom']) ?? []) as unknown[]).length > 0 || dig(r.object, ['spec', 'target', 'template', 'templateFrom']) !== undefined;
      add(
        'Secret',
        ns,
        dig(r.object, ['spec', 'target', 'name']) ?? r.name,
        unknown ? undefined : template ? keysOf(['spec', 'target', 'template', 'data']) : data,
      );
    } else if (r.kind === 'Certificate') add('Secret', ns, dig(r.object, ['spec', 'secretName']), ['tls.crt', 'tls.key', 'ca.crt']);
    else if (r.kind === 'Secret') add('Secret', ns, r.name, [...keysOf(['data']), ...keysOf(['stringData'])]);
    else if (r.kind === 'ConfigMap') add('ConfigMap', ns, r.name, [...keysOf(['data']), ...keysOf(['binaryData'])]);
  }
  return out;
}

export const keyClosureCheck: PolicyCheck = {
  id: 'closure-secret-key',
  description:
    'Every key a container reads from a Secret or ConfigMap (env secretKeyRef and configMapKeyRef, volume items), unless optional, is one its provider in the repository writes (an ExternalSecret, a Certificate, a plain object); otherwise the container never starts (invariants P1).',
  invariants: ['P1'],
  remediation: "read a key the Secret or ConfigMap has, or write the key (an ExternalSecret's data[].secretKey)",
  reads: {
    kinds: ['*'],
    everyKind: 'keys are read by pod templates of every workload kind, and written by ExternalSecrets, Certificates and plain objects',
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    const keys = providedKeys(ctx.repo, ctx.resources);
    // The references closure-secret and closure-config-map close, with the keys each reads by name.
    for (const ref of podRefs(ctx.repo, ctx.resources)) {
      if ((ref.kind !== 'Secret' && ref.kind !== 'ConfigMap') || ref.optional || !ref.keys) continue;
      // Not written here, or written with keys the gate cannot know: not this check's to judge (closure-secret speaks for a missing Secret).
      const known = keys.get(`${ref.kind}/${ref.namespace ?? ''}/${ref.name}`);
      if (!known) continue;
      for (const { key, path } of ref.keys.filter((k) => !known.has(k.key)))
        ctx.fail(
          { resource: ref.resource, path },
          `${ref.resource.kind} ${ref.resource.name} reads key ${key} of ${ref.kind} ${ref.name}, which writes only ${[...known].sort().join(', ') || 'no key'}: the container does not start`,
        );
    }
  },
};

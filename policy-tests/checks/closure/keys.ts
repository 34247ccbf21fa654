/**
 * closure-secret-key: the key a container reads from a Secret or a ConfigMap (env valueFrom secretKeyRef or
 * configMapKeyRef, and a volume's items) is one its provider writes. The kubelet refuses a missing key unless the
 * reference is optional: the container never starts (CreateContainerConfigError). A provider's keys are known when
 * the repository writes them: an ExternalSecret's data[].secretKey (or its template's data), a Certificate's
 * tls.crt, tls.key and ca.crt, a plain Secret's or ConfigMap's data; anything else (dataFrom, a chart not rendered,
 * a controller) is not judged here.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { podRefs } from '../../model/cluster/references.ts';
import { providedKeys } from '../../model/cluster/provided-keys.ts';

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

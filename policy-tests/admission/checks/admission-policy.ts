/**
 * The ValidatingAdmissionPolicies the repository renders, through their
 * bindings, judged on every object as on a create.
 */
import { withExactIntegers } from '../../model/yaml/exact-integers.ts';
import { builtinResourceName, matchedBindings, policyDecisions, type ParamLookup } from '../cel/admission-policies.ts';
import { crdPlurals } from '../crd-schemas.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { dig } from '../../model/core/dig.ts';
import { groupOf, type Resource } from '../../model/core/manifest.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import type { ScopeLookup } from '../../model/core/manifest.ts';

export function admissionPolicyCheck(isBuiltin: (r: Resource) => boolean, isClusterScoped: ScopeLookup): PolicyCheck {
  return {
    id: 'admission-policy',
    description:
      'Every object passes the ValidatingAdmissionPolicies the repository renders, through their bindings, as on a create, with the parameters a paramRef finds among the resources the repository applies: a Deny action is a finding, Warn and Audit are warnings; an object a MutatingAdmissionPolicy of the repository matches is said not judged, as the cluster mutates it first (invariants P1).',
    invariants: ['P1'],
    remediation: "change the object so the policy's validation holds; the message is the policy's own",
    reads: { kinds: ['*'], everyKind: 'a ValidatingAdmissionPolicy may match resources of any kind' },
    exemptible: false,
    run(ctx) {
      const { repo } = ctx;
      const ofKind = (kind: string) =>
        repo.resources.filter((r) => r.kind === kind && groupOf(r.apiVersion) === 'admissionregistration.k8s.io').map((r) => r.object);
      const [policies, bindings] = [ofKind('ValidatingAdmissionPolicy'), ofKind('ValidatingAdmissionPolicyBinding')];
      const [mutating, mutatingBindings] = [ofKind('MutatingAdmissionPolicy'), ofKind('MutatingAdmissionPolicyBinding')];
      if ((policies.length === 0 || bindings.length === 0) && (mutating.length === 0 || mutatingBindings.length === 0)) return;
      const plurals = crdPlurals(repo.resources);
      // The API server labels every namespace with its own name (kubernetes.io/metadata.name), which selectors often read.
      const namespaces = new Map(
        repo.resources
          .filter((r) => r.kind === 'Namespace')
          .map((r) => [
            r.name,
            {
              ...r.object,
              metadata: {
                ...(r.object.metadata as object),
                labels: { ...((dig(r.object, ['metadata', 'labels']) ?? {}) as object), 'kubernetes.io/metadata.name': r.name },
              },
            },
          ]),
      );
      // A policy's parameters are resources of its paramKind the repository applies or renders.
      const params: ParamLookup = (apiVersion, kind) =>
        repo.resources
          .filter((r) => r.apiVersion === apiVersion && r.kind === kind)
          .map((r) => ({
            object: withExactIntegers(r.object, r.exactIntegers),
            namespace: isClusterScoped(r.apiVersion, r.kind) ? undefined : namespaceOrDestination(repo, r),
          }));
      for (const r of ctx.resources) {
        const namespace = isClusterScoped(r.apiVersion, r.kind) ? undefined : namespaceOrDestination(repo, r);
        const resource = isBuiltin(r) ? builtinResourceName(r.kind) : (plurals.get(`${groupOf(r.apiVersion)}/${r.kind}`) ?? builtinResourceName(r.kind));
        const target = {
          apiVersion: r.apiVersion,
          kind: r.kind,
          resource,
          namespace,
          // CEL reads integers as int64: those a double rounds, exactly as written.
          object: withExactIntegers(r.object, r.exactIntegers),
          namespaceObject: namespace === undefined ? undefined : namespaces.get(namespace),
        };
        // A MutatingAdmissionPolicy changes the object before validation, in CEL the gate does not apply: what the
        // cluster stores, and what every later rule sees, is not what the repository writes.
        for (const m of matchedBindings(mutating, mutatingBindings, target))
          ctx.notJudged(
            { resource: r, path: ['metadata'] },
            `${r.kind} ${r.name}: MutatingAdmissionPolicy '${m.policy}' with binding '${m.binding}' changes it on admission, and the gate judges it as written, not as mutated`,
          );
        for (const d of policyDecisions(policies, bindings, target, params)) {
          const message = `${r.kind} ${r.name}: ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`;
          if (d.actions.includes('Deny')) ctx.fail({ resource: r, path: ['metadata'] }, message);
          else if (d.actions.includes('Warn') || d.actions.includes('Audit')) ctx.warn({ resource: r, path: ['metadata'] }, message);
        }
      }
    },
  };
}

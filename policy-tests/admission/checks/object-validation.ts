/**
 * What the API server validates on every create: its built-in validation,
 * rule by rule, and each CRD's validation rules (CEL with the Kubernetes
 * libraries).
 */
import { withExactIntegers } from '../../model/yaml/exact-integers.ts';
import { crdSchemas } from '../crd-schemas.ts';
import { rulesOf, ruleViolations } from '../cel/crd-rules.ts';
import { validateBuiltin } from '../validation/kinds.ts';
import { validateObjectMeta, type Invalid } from '../validation/metadata.ts';
import { objectMetaValueErrors } from '../validation/crd-default-meta.ts';
import { asDefaulted } from '../../schema/structural-defaults.ts';
import { listSetAndMapDuplicates } from '../validation/list-sets.ts';
import { type JsonSchemaNode } from '../cel/schema-node.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

const withRules = new WeakMap<JsonSchemaNode, boolean>();
/** Whether a CRD schema holds any validation rule, computed once per schema. */
function hasRules(schema: JsonSchemaNode): boolean {
  let has = withRules.get(schema);
  if (has === undefined) withRules.set(schema, (has = rulesOf(schema).length > 0));
  return has;
}

/**
 * objectmeta.Validate over a custom resource's embedded resources (`x-kubernetes-embedded-resource`): each one's
 * apiVersion and kind there and well formed, its metadata a valid ObjectMeta, on the object as the API server holds
 * it (defaulted). The root's metadata is validateObjectMeta's.
 */
function embeddedResourceProblems(schema: Record<string, unknown> | undefined, object: unknown): Invalid[] {
  if (!schema) return [];
  return objectMetaValueErrors(asDefaulted(object, schema), schema, false).map((e) => ({
    path: e.steps.map((s) => ('child' in s ? s.child : 'key' in s ? s.key : s.index)),
    message: `${e.steps
      .map((s) => ('child' in s ? `.${s.child}` : 'key' in s ? `[${s.key}]` : `[${s.index}]`))
      .join('')
      .slice(1)}: ${e.detail}`,
    fn: 'objectmeta.Validate',
  }));
}

export function apiValidationCheck(isBuiltin: (r: Resource) => boolean): PolicyCheck {
  return {
    id: 'api-validation',
    description:
      "The API server's built-in validation accepts the object: names by kind, labels and annotations, pod specs (unique names, mounts that name a volume, ports, probe handlers, quantities, requests within limits, environment names, DNS settings, scheduling, security profiles and sysctls), label selectors and the templates they match, Job specs, rollout strategies, Services, keys, claims, Ingresses, network policies, RBAC, budgets, autoscalers, classes, limit ranges, quotas and webhooks; a custom resource's lists its CRD makes sets or maps hold no duplicate, and its embedded resources have an apiVersion, a kind and valid metadata (invariants P1; docs/admission.md lists every rule).",
    invariants: ['P1'],
    remediation: 'fix the field the finding names; docs/admission.md gives the Kubernetes rule behind it',
    reads: { kinds: ['*'], everyKind: 'the API server validates every resource of a built-in kind' },
    exemptible: false,
    run(ctx) {
      // The cluster's version (the facts', or --kubernetes-version's): a rule behind a feature gate follows its defaults.
      const minor = ctx.repo.facts?.kubernetesMinor ?? Number.NaN;
      const schemas = crdSchemas(ctx.repo.resources);
      for (const r of ctx.resources) {
        const problems = isBuiltin(r)
          ? validateBuiltin(r.kind, r.object, minor)
          : [
              ...validateObjectMeta(r.kind, r.object.metadata, ['metadata']),
              // The schema as written: list and map types, keys and defaults are what OpenAPI's `nullable` moves none of.
              ...listSetAndMapDuplicates(schemas.get(`${r.apiVersion}/${r.kind}`)?.raw, r.object),
              ...embeddedResourceProblems(schemas.get(`${r.apiVersion}/${r.kind}`)?.raw, r.object),
            ];
        for (const p of problems)
          if (p.notJudged) ctx.notJudged({ resource: r, path: p.path }, `${r.kind} ${r.name}: ${p.message} [${p.fn}]`);
          else ctx.fail({ resource: r, path: p.path }, `${r.kind} ${r.name}: ${p.message} [${p.fn}]`);
      }
    },
  };
}

export function crdValidationRuleCheck(isBuiltin: (r: Resource) => boolean): PolicyCheck {
  return {
    id: 'crd-validation-rule',
    description:
      "Every custom resource passes its CRD's validation rules (x-kubernetes-validations, CEL with the Kubernetes libraries), with the CRD the repository renders or, failing that, the schema bundled with the gate; each evaluation within the API server's cost limits (a rule that walks past the per-call limit, or an object past the runtime budget, is refused with the API server's message); a rule whose text the evaluator cannot read is counted as not judged in the summary; data the schema does not describe is refused as the API server's conversion refuses it (invariants P1).",
    invariants: ['P1'],
    remediation: "change the resource so the rule holds; the message is the CRD's own",
    reads: { kinds: ['*'], everyKind: "every custom resource, of any CRD's kind, meets its CRD's rules" },
    exemptible: false,
    run(ctx) {
      const schemas = crdSchemas(ctx.repo.resources);
      for (const r of ctx.resources) {
        if (isBuiltin(r) || r.kind === 'CustomResourceDefinition') continue;
        const crd = schemas.get(`${r.apiVersion}/${r.kind}`);
        if (!crd || !hasRules(crd.schema)) continue;
        // The rules read integers as int64: those a double rounds are handed to them exactly as written.
        for (const v of ruleViolations(crd.schema, withExactIntegers(r.object, r.exactIntegers)))
          if (v.notJudged) ctx.notJudged({ resource: r, path: v.path }, `${r.kind} ${r.name}: rule ${v.rule} of ${crd.source}: ${v.message}`);
          else ctx.fail({ resource: r, path: v.path }, `${r.kind} ${r.name}: ${v.message} (rule of ${crd.source})`);
      }
    },
  };
}

/**
 * The Prometheus operator's mutating webhook on a PrometheusRule (v0.93, pkg/admission/jsonpatch.go): every label and
 * annotation of a rule whose value is not a string is replaced by the string Go's `%v` prints of it, before the API
 * server validates the object against the CRD's schema (which wants strings there).
 */
import { goPrint } from '../go/fmt.ts';
import type { Obj } from '../core/dig.ts';

export interface StringPatch {
  /** The JSON pointer the patch replaces, as the schema's errors name the field. */
  pointer: string;
  path: (string | number)[];
  /** The string the webhook writes. */
  value: string;
}

const escapePointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** patchIfNotString over every rule: the values the webhook turns into strings (a null it leaves, as Kubernetes does). */
export function nonStringPatches(spec: unknown): StringPatch[] {
  const out: StringPatch[] = [];
  const groups = (spec as Obj | undefined)?.groups;
  if (!Array.isArray(groups)) return out;
  groups.forEach((g: Obj, gi) => {
    const rules = g?.rules;
    if (!Array.isArray(rules)) return;
    rules.forEach((rule: Obj, ri) => {
      for (const field of ['annotations', 'labels'] as const) {
        const map = rule?.[field];
        if (!map || typeof map !== 'object') continue;
        for (const [key, value] of Object.entries(map as Obj)) {
          if (typeof value === 'string' || value === null || value === undefined) continue;
          out.push({
            pointer: `/spec/groups/${gi}/rules/${ri}/${field}/${escapePointer(key)}`,
            path: ['spec', 'groups', gi, 'rules', ri, field, key],
            value: goPrint(value),
          });
        }
      }
    });
  });
  return out;
}

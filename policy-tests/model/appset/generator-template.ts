/**
 * A top-level generator's own template (`spec.generators[i].<kind>.template`), as Argo CD's controller makes the
 * template its sets are rendered with (applicationset/generators/generator_spec_processor.go mergeGeneratorTemplate):
 * the ApplicationSet's template merged into a copy of the generator's by dario.cat/mergo's Merge, without override.
 * A field the generator's template leaves empty (absent, null, "", 0, false, an empty list) takes the ApplicationSet's;
 * objects (structs and maps alike) merge field by field; a list the generator's template sets stays whole. So a
 * generator's template cannot turn a setting off: `prune: false` there is empty, and the ApplicationSet's `true`
 * wins, as it does in Argo CD. A helm `valuesObject` is a runtime.RawExtension, whose bytes mergo keeps whole where
 * the generator's template holds any.
 */
import { isMap } from '../core/dig.ts';

/** Go's zero values, which mergo's isEmptyValue reads as empty (a pointer to one is not, but its value is merged in turn). */
export const isEmpty = (v: unknown): boolean => v === undefined || v === null || v === '' || v === 0 || v === false || (Array.isArray(v) && v.length === 0);

/** Fields mergo treats as opaque: their value is one Go value (runtime.RawExtension's bytes), not a struct to merge into. */
const OPAQUE = new Set(['valuesObject']);

/** mergo.Merge(dst, src) without override, on JSON: src fills what dst leaves empty. */
export function mergoMerge(dst: unknown, src: unknown, key?: string): unknown {
  if (src === undefined || src === null) return dst;
  if (dst === undefined || dst === null) return src;
  if (isMap(dst) && isMap(src)) {
    if (key !== undefined && OPAQUE.has(key)) return Object.keys(dst).length > 0 ? dst : src;
    const out: Record<string, unknown> = { ...dst };
    for (const [k, v] of Object.entries(src)) out[k] = mergoMerge(dst[k], v, k);
    return out;
  }
  return isEmpty(dst) && !isEmpty(src) ? src : dst;
}

/** The template a top-level generator's sets are rendered with: its own merged over the ApplicationSet's, or the ApplicationSet's. */
export function generatorTemplate(generatorBody: Record<string, unknown>, setTemplate: Record<string, unknown>): Record<string, unknown> {
  const own = generatorBody.template;
  if (!isMap(own) || Object.keys(own).length === 0) return setTemplate;
  return mergoMerge(structuredClone(own), setTemplate) as Record<string, unknown>;
}

/**
 * The fields of an object that changed, as a person reviews them: without render noise (chart-version labels,
 * checksum annotations, key order, the order of named lists), and a Secret's values masked as Argo CD masks them.
 */
import { isRecord } from '../lib/values.ts';

export interface FieldChange {
  path: string;
  from: unknown;
  to: unknown;
}

/** Labels and annotations that change with every chart release or render, and say nothing about the cluster. */
const NOISE_LABELS = ['helm.sh/chart', 'app.kubernetes.io/version', 'chart'];
const NOISE_ANNOTATION = /^checksum\//;

/** A key that says nothing about the cluster, by the key it sits under: chart-version labels, checksum annotations. */
const isNoise = (where: string | undefined, key: string) =>
  (where === 'labels' && NOISE_LABELS.includes(key)) || (where === 'annotations' && NOISE_ANNOTATION.test(key));

/** The API server stores a claim template with its apiVersion and kind, whether or not the manifest gave them. */
const asStored = (v: Record<string, unknown>, where: string | undefined) =>
  where === 'volumeClaimTemplates' ? { apiVersion: 'v1', kind: 'PersistentVolumeClaim', ...v } : v;

/**
 * Field-level differences, as dotted paths with their old and new values,
 * without render noise: keys compare in one order, lists of named items by
 * name, and noise keys not at all, so a pure reformat has none. One walk over
 * both trees, in place: equal subtrees cost their size, even in CRDs with
 * thousands of fields.
 */
export function fieldChanges(a: unknown, b: unknown, at: { path?: string; out?: FieldChange[]; where?: string } = {}): FieldChange[] {
  const { path = '', out = [], where } = at;
  if (a === b) return out;
  if (isRecord(a) && isRecord(b)) {
    const [x, y] = [asStored(a, where), asStored(b, where)];
    for (const k of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
      if (!isNoise(where, k)) fieldChanges(x[k], y[k], { path: path ? `${path}.${k}` : k, out, where: k });
    }
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    // Lists of named things (containers, ports, env) compare by name, so a reorder is no change.
    if ([...a, ...b].every((x) => isRecord(x) && typeof x.name === 'string')) {
      const byName = (l: unknown[]) => new Map(l.map((x) => [(x as { name: string }).name, x]));
      const [ma, mb] = [byName(a), byName(b)];
      for (const n of [...new Set([...ma.keys(), ...mb.keys()])].sort()) fieldChanges(ma.get(n), mb.get(n), { path: `${path}[${n}]`, out, where });
      return out;
    }
    if (a.length === b.length) {
      a.forEach((x, i) => fieldChanges(x, b[i], { path: `${path}[${i}]`, out, where }));
      return out;
    }
  }
  // A value new or gone on one side is reported without its noise, as the rest is.
  out.push({ path, from: withoutNoise(a, where), to: withoutNoise(b, where) });
  return out;
}

/** A value without its noise keys, for showing a whole added or removed subtree. */
function withoutNoise(v: unknown, where: string | undefined): unknown {
  if (Array.isArray(v)) return v.map((x) => withoutNoise(x, where));
  if (!isRecord(v)) return v;
  const out: Record<string, unknown> = {};
  const stored = asStored(v, where);
  for (const k of Object.keys(stored).sort()) if (!isNoise(where, k)) out[k] = withoutNoise(stored[k], k);
  return out;
}

/** What every report shows of a Secret's value: never the value, only whether it changed (as Argo CD masks them). */
export const MASK = '++++++++';
const CHANGED_MASK = '+++++++++';

/** A Secret with its values masked: equal values mask alike, a changed value masks differently. */
export function masked(object: Record<string, unknown>, other: Record<string, unknown> | undefined): Record<string, unknown> {
  if (object.kind !== 'Secret' || object.apiVersion !== 'v1') return object;
  const out: Record<string, unknown> = { ...object };
  for (const field of ['data', 'stringData']) {
    const values = object[field];
    if (!isRecord(values)) continue;
    const theirs = isRecord(other?.[field]) ? (other![field] as Record<string, unknown>) : {};
    out[field] = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, k in theirs && theirs[k] !== v ? CHANGED_MASK : MASK]));
  }
  return out;
}

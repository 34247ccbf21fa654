/** A Kubernetes LabelSelector against a set of labels (metav1.LabelSelectorAsSelector): matchLabels and matchExpressions must all hold. */
type Obj = Record<string, unknown>;

export function selectorMatches(selector: Obj | undefined, labels: Obj | undefined): boolean {
  const have = (labels ?? {}) as Record<string, string>;
  for (const [k, v] of Object.entries((selector?.matchLabels ?? {}) as Obj)) if (have[k] !== v) return false;
  for (const e of (Array.isArray(selector?.matchExpressions) ? selector.matchExpressions : []) as Obj[]) {
    const value = have[String(e.key)];
    const values: string[] = Array.isArray(e.values) ? e.values.map(String) : [];
    if (e.operator === 'In' && !(value !== undefined && values.includes(value))) return false;
    if (e.operator === 'NotIn' && value !== undefined && values.includes(value)) return false;
    if (e.operator === 'Exists' && value === undefined) return false;
    if (e.operator === 'DoesNotExist' && value !== undefined) return false;
  }
  return true;
}

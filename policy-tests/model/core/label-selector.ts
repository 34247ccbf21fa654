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

/**
 * The items a selector matches, found through its first matchLabels pair instead of by walking every item: on a
 * large repository (thousands of pod templates and Services), matching each selector against each item was
 * quadratic. A selector with no matchLabels walks them all. Indexed once per list.
 */
export function selectorIndex<T>(items: readonly T[], labelsOf: (item: T) => Obj | undefined): (selector: Obj | undefined) => T[] {
  const carrying = new Map<string, T[]>();
  for (const item of items)
    for (const [k, v] of Object.entries(labelsOf(item) ?? {})) {
      const key = `${k}=${String(v)}`;
      const bucket = carrying.get(key);
      if (bucket) bucket.push(item);
      else carrying.set(key, [item]);
    }
  return (selector) => {
    const first = Object.entries((selector?.matchLabels ?? {}) as Obj)[0];
    const candidates = first ? (carrying.get(`${first[0]}=${String(first[1])}`) ?? []) : items;
    return candidates.filter((item) => selectorMatches(selector, labelsOf(item)));
  };
}

/**
 * The readings MetalLB's configuration repeats for every kind (v0.16.1, internal/config/config.go): a value or a
 * selector written twice, a selector Kubernetes cannot build, each error with the field it is about and its text as
 * Go prints it (a selector printed as `%v`, `%q` or `LabelSelector.String()` prints it where each is used).
 */
import { labelSelectorError } from '../../model/scheduling/label-syntax.ts';
import type { Path } from '../../model/core/positions.ts';

type Obj = Record<string, any>;

/** One of MetalLB's objects as its webhooks decode it. */
export interface MetalLBObject {
  kind: 'IPAddressPool' | 'L2Advertisement' | 'BGPPeer' | 'BGPAdvertisement' | 'BFDProfile' | 'Community';
  name: string;
  namespace?: string;
  labels?: Readonly<Record<string, string>>;
  spec: Obj;
}

/** What MetalLB's parse refuses, at the field of the object it is about. */
export class Refused extends Error {
  readonly path: Path;
  /** The object the error is about, once a reading of one object has blamed it. */
  object?: MetalLBObject;
  constructor(path: Path, message: string) {
    super(message);
    this.path = path;
  }
}

/** What MetalLB's reading refuses: the first error, with the object and the field it is about. */
export interface ConfigError {
  object: MetalLBObject;
  path: Path;
  message: string;
}

/** Runs one object's reading, blaming it for what it refuses (an error already blamed keeps its object). */
export function blame(object: MetalLBObject, read: () => void): void {
  try {
    read();
  } catch (err) {
    if (err instanceof Refused) err.object ??= object;
    throw err;
  }
}

/** The error a reading refused with, as a ConfigError; any other error thrown on. */
export function refusal(err: unknown): ConfigError {
  if (err instanceof Refused && err.object) return { object: err.object, path: err.path, message: err.message };
  throw err;
}

export const list = (v: unknown): any[] => (Array.isArray(v) ? v : []);
export const strings = (v: unknown): string[] => list(v).map((s) => (typeof s === 'string' ? s : ''));

type Format = (s: string) => string;
export const plain: Format = (v) => v;
const quoted: Format = (v) => JSON.stringify(v);

/** A match expression as Go's `%v` (plain) or `%q` (quoted) prints the struct: `{key In [a b]}`. */
function requirementText(e: Obj, f: Format): string {
  return `{${f(String(e?.key ?? ''))} ${f(String(e?.operator ?? ''))} [${strings(e?.values).map(f).join(' ')}]}`;
}

/** A selector as Go's `%v` or `%q` prints the struct value: `{map[k:v] [{key In [a b]}]}`. */
export function selectorText(selector: Obj | undefined, f: Format): string {
  const labels = (selector?.matchLabels ?? {}) as Record<string, unknown>;
  const ml = Object.keys(labels)
    .sort()
    .map((k) => `${f(k)}:${f(String(labels[k]))}`)
    .join(' ');
  return `{map[${ml}] [${list(selector?.matchExpressions)
    .map((e: Obj) => requirementText(e, f))
    .join(' ')}]}`;
}

/** The API's `LabelSelector.String()`, which MetalLB compares selectors by, and `%v` prints a pointer to one with. */
export function selectorString(selector: Obj | undefined): string {
  const labels = (selector?.matchLabels ?? {}) as Record<string, unknown>;
  const ml = Object.keys(labels)
    .sort()
    .map((k) => `${k}: ${String(labels[k])},`)
    .join('');
  const me = list(selector?.matchExpressions)
    .map((e: Obj) => `${requirementText(e, plain)},`)
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${ml}},MatchExpressions:[]LabelSelectorRequirement{${me}},}`;
}

/** validateDuplicate: the first value written twice. */
export function duplicate(values: readonly string[], what: string, at: Path): void {
  values.forEach((v, i) => {
    if (values.indexOf(v) !== i) throw new Refused([...at, i], `duplicate definition of ${what} ${quoted(v)}`);
  });
}

/**
 * validateLabelSelectorDuplicate: each selector's match expressions (their values sorted first, as MetalLB sorts them
 * in place), each without a value twice and none written twice, then no selector written twice.
 */
export function duplicateSelectors(selectors: readonly Obj[], what: string, at: Path): void {
  const sorted = selectors.map((s) => ({
    ...s,
    matchExpressions: list(s?.matchExpressions).map((e: Obj) => ({ ...e, values: strings(e?.values).sort() })),
  }));
  const written = sorted.map(selectorString);
  sorted.forEach((s, i) => {
    const exprs = s.matchExpressions.map((e) => requirementText(e, plain));
    s.matchExpressions.forEach((e, j) => {
      duplicate(strings(list(selectors[i]?.matchExpressions)[j]?.values), 'match expression value in label selector', [
        ...at,
        i,
        'matchExpressions',
        j,
        'values',
      ]);
      const twin = exprs.indexOf(exprs[j]!, j + 1);
      if (twin !== -1) throw new Refused([...at, i, 'matchExpressions', twin], `duplicate definition of match expressions ${requirementText(e, quoted)}`);
    });
    const twin = written.indexOf(written[i]!, i + 1);
    if (twin !== -1) throw new Refused([...at, twin], `duplicate definition of ${what} ${selectorText(s, quoted)}`);
  });
}

/** A selector's LabelSelectorAsSelector error, with the texts MetalLB joins after it (errors.Join: one per line). */
export function parses(selector: Obj, at: Path, ...context: string[]): void {
  const error = labelSelectorError(selector);
  if (error) throw new Refused(at, [error, ...context].join('\n'));
}

/**
 * Helm's strvals (pkg/strvals/parser.go, Helm 4.2), as Argo CD hands it an Application's parameters: each
 * `--set name=value` (or `--set-string`, `--set-file`) with every comma of the value escaped but where the value is a
 * list, `{a,b}` (util/helm/cmd.go cleanSetParameters, v3.5.1). So a value is one value, its backslashes escapes
 * (`a\\b` is `ab`), typed unless forced to a string (`true`, `false`, `null`, an integer without a leading zero), or a
 * list of such values.
 */
import type { PathSegment } from '../core/positions.ts';

/** Helm's strvals key syntax: `a.b`, `a\.b` (one key holding a dot), `a[0].b`. */
export function strvalsPath(name: string): PathSegment[] {
  const path: PathSegment[] = [];
  let key = '';
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    if (c === '\\' && i + 1 < name.length) key += name[++i];
    else if (c === '.') {
      if (key !== '') path.push(key);
      key = '';
    } else if (c === '[') {
      const end = name.indexOf(']', i);
      if (key !== '') path.push(key);
      key = '';
      path.push(Number(name.slice(i + 1, end === -1 ? undefined : end)));
      i = end === -1 ? name.length : end;
    } else key += c;
  }
  if (key !== '') path.push(key);
  return path;
}

/** strvals' limits (MaxIndex, MaxNestedNameLevel): a name past them Helm refuses, and the render says so. */
const MAX_INDEX = 65536;
const MAX_NESTED_NAME_LEVEL = 30;

/** Whether Helm refuses a parameter's name: an index past MaxIndex, or more levels than MaxNestedNameLevel. */
export function helmRefusesName(path: readonly PathSegment[]): boolean {
  return path.length > MAX_NESTED_NAME_LEVEL + 1 || path.some((s) => typeof s === 'number' && !(Number.isInteger(s) && s >= 0 && s <= MAX_INDEX));
}

/** Argo CD's cleanSetParameters: a comma not after a backslash escaped, unless the value is a list (`{...}`). */
export function argoSetArgument(value: string): string {
  if (value.startsWith('{') && value.endsWith('}')) return value;
  let out = '';
  for (let i = 0; i < value.length; i++) out += value[i] === ',' && value[i - 1] !== '\\' ? '\\,' : value[i];
  return out;
}

/** strvals' typedVal: what `--set` makes of a value's text (`--set-string` keeps it a string). */
function typedValue(text: string, forceString: boolean): unknown {
  if (forceString) return text;
  const lower = text.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (lower === 'null') return null;
  if (text === '0') return 0;
  // ParseInt(val, 10, 64) where the text does not start with 0: a sign, then digits, within int64.
  if (/^[+-]?\d+$/.test(text) && !text.startsWith('0')) {
    const n = BigInt(text);
    if (n >= -(2n ** 63n) && n < 2n ** 63n) return Number(n);
  }
  return text;
}

/** A value's text up to a stop rune, its escapes read (strvals' runesUntil). */
function runesUntil(text: string, from: number, stops: string): { runes: string; stop: string | undefined; next: number } {
  let runes = '';
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (stops.includes(c)) return { runes, stop: c, next: i + 1 };
    if (c === '\\') {
      i++;
      if (i < text.length) runes += text[i];
    } else runes += c;
  }
  return { runes, stop: undefined, next: text.length };
}

/**
 * The value Helm sets for a parameter Argo CD hands it (`value` as written in the Application): a list for `{a,b}`,
 * else the value's one text; undefined where Helm refuses it or reads more than one value from it (a list with no
 * closing brace, or text after it), which the render reports.
 */
export function helmSetValue(value: string, forceString: boolean): unknown {
  const text = argoSetArgument(value);
  if (!text.startsWith('{')) return typedValue(runesUntil(text, 0, ',').runes, forceString);
  const list: unknown[] = [];
  for (let at = 1; ;) {
    const item = runesUntil(text, at, ',}');
    if (item.stop === undefined) return undefined;
    list.push(typedValue(item.runes, forceString));
    // Anything after the closing brace is read as another assignment, or refused: not this value.
    if (item.stop === '}') return item.next === text.length ? list : undefined;
    at = item.next;
  }
}

/**
 * Scalars that mean one thing to this gate and another to the file's
 * consumer. The gate reads YAML 1.2; Helm (values files) and the API server
 * behind kubectl and Argo CD (manifests) read YAML 1.1 through go-yaml v2,
 * where a plain yes, no, on, off, y or n is a boolean, a plain 0755 is
 * octal, and a number may hold underscores (1_000), be binary (0b101) or a
 * signed hex (-0x1F), where YAML 1.2 reads a string. Such a scalar is a finding; and the document is changed to the
 * consumer's reading, so every check judges what Helm or the API server sees.
 */
import { Scalar, type Document, type LineCounter } from 'yaml';
import { eachNode } from './nodes.ts';
import { plainValue } from './core-schema.ts';

const BOOLEAN_11 = /^(y|Y|yes|Yes|YES|on|On|ON|n|N|no|No|NO|off|Off|OFF)$/;
const TRUE_11 = /^(y|Y|yes|Yes|YES|on|On|ON)$/;
const OCTAL_11 = /^[-+]?0[0-7]+$/;

/** A YAML 1.1 boolean word (yes, off, y...) as the boolean it is, or undefined for any other text (none is over three letters). */
export const yaml11Bool = (text: string): boolean | undefined => (text.length <= 3 && BOOLEAN_11.test(text) ? TRUE_11.test(text) : undefined);

/** The remediation of every yaml-1.1-scalar finding. */
export const YAML11_FIX = 'quote it, or write the value YAML 1.1 and 1.2 agree on';

export interface Ambiguity {
  line: number;
  col: number;
  message: string;
}

/** go-yaml v2's float form (resolve.go `yamlStyleFloat`). */
const GO_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** strconv.ParseInt's base 0: a sign, then 0x, 0o, 0b, a leading 0 (octal) or decimal digits. */
const GO_INT = /^([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|(0[0-7]*)|([1-9][0-9]*))$/;

/**
 * The number go-yaml v2 reads a plain scalar that starts with a digit or a sign as (resolve.go, hint D or S): its
 * underscores dropped, then strconv.ParseInt or ParseUint with base 0, else its float form; undefined for a string.
 */
function goYamlNumber(source: string): number | undefined {
  const plain = source.replaceAll('_', '');
  const int = GO_INT.exec(plain);
  if (int) {
    const [, sign, hex, oct, bin, octal, dec] = int;
    const n =
      hex !== undefined
        ? Number.parseInt(hex, 16)
        : oct !== undefined
          ? Number.parseInt(oct, 8)
          : bin !== undefined
            ? Number.parseInt(bin, 2)
            : octal !== undefined
              ? Number.parseInt(octal, 8)
              : Number(dec);
    // Past uint64, both parsers fail, and only the float form is left.
    if (n < 2 ** 64) return sign === '-' ? -n : n;
  }
  return GO_FLOAT.test(plain) ? Number.parseFloat(plain) : undefined;
}

/**
 * The number YAML 1.1 (go-yaml v2) reads a plain scalar as, where YAML 1.2's core schema reads it otherwise: an octal
 * (0755), a number with underscores (1_000), a binary (0b101), a signed hex (-0x1F); undefined for any other.
 */
export function yaml11Number(source: string): number | undefined {
  // Neither reading differs for most scalars: such a number starts with 0 after its sign, or with a digit or a sign
  // and holds an underscore. Asked of every plain scalar of every chart's output: characters, not expressions.
  const first = source.charCodeAt(0);
  const digit = first >= 48 && first <= 57;
  const sign = first === 43 || first === 45;
  if (!(first === 48 || (sign && source.charCodeAt(1) === 48) || ((digit || sign) && source.includes('_')))) return undefined;
  const go = goYamlNumber(source);
  return go === undefined || plainValue(source) === go ? undefined : go;
}

/** What YAML 1.1 (go-yaml v2) reads a plain scalar YAML 1.2 reads otherwise as (a boolean, or a number); undefined for any other. */
export function yaml11Value(source: string): boolean | number | undefined {
  return yaml11Bool(source) ?? yaml11Number(source);
}

/** Whether YAML 1.1 reads this plain scalar otherwise than YAML 1.2: a boolean of yes/no/on/off/y/n, or a number yaml11Number reads. */
export const isYaml11Ambiguous = (source: string): boolean => yaml11Value(source) !== undefined;

/** Sets each plain scalar (key or value) of `doc` YAML 1.1 reads otherwise to its YAML 1.1 value: `doc` as go-yaml v2 reads it; `found` hears of each. */
export function asYaml11(doc: Document, found?: (node: Scalar, source: string, value: boolean | number) => void): void {
  eachNode(doc, {
    scalar(node) {
      const source = node.type === Scalar.PLAIN ? node.source : undefined;
      const value = source ? yaml11Value(source) : undefined;
      if (source === undefined || value === undefined) return;
      node.value = value;
      found?.(node, source, value);
    },
  });
}

/** Every plain scalar (key or value) of `doc` that YAML 1.1 and 1.2 read differently; each is set to its YAML 1.1 value. */
export function yaml11Ambiguities(doc: Document, lineCounter: LineCounter): Ambiguity[] {
  const out: Ambiguity[] = [];
  asYaml11(doc, (node, source, value) => {
    const core = plainValue(source);
    const message =
      typeof value === 'boolean'
        ? `plain ${source} is the boolean ${value} to Helm and Kubernetes (YAML 1.1) but the string "${source}" in YAML 1.2; write ${value} or "${source}"`
        : OCTAL_11.test(source)
          ? `plain ${source} is octal (${value}) to Helm and Kubernetes (YAML 1.1) but decimal ${Number(source)} in YAML 1.2; write 0o${source.replace(/^([-+]?)0/, '$1')} or ${value}`
          : `plain ${source} is the number ${value} to Helm and Kubernetes (YAML 1.1) but ${typeof core === 'number' ? `the number ${core}` : `the string "${source}"`} in YAML 1.2; write ${value} or "${source}"`;
    // Placed only when it is one: most plain scalars are not.
    out.push({ ...lineCounter.linePos(node.range?.[0] ?? 0), message });
  });
  return out;
}

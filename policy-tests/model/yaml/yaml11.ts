/**
 * Scalars that mean one thing to this gate and another to the file's
 * consumer. The gate reads YAML 1.2; Helm (values files) and the API server
 * behind kubectl and Argo CD (manifests) read YAML 1.1 through go-yaml v2,
 * where a plain yes, no, on, off, y or n is a boolean and a plain 0755 is
 * octal. Such a scalar is a finding; and the document is changed to the
 * consumer's reading, so every check judges what Helm or the API server sees.
 */
import { Scalar, type Document, type LineCounter } from 'yaml';
import { eachNode } from './nodes.ts';

const BOOLEAN_11 = /^(y|Y|yes|Yes|YES|on|On|ON|n|N|no|No|NO|off|Off|OFF)$/;
const TRUE_11 = /^(y|Y|yes|Yes|YES|on|On|ON)$/;
const OCTAL_11 = /^[-+]?0[0-7]+$/;
const OCTAL_START = /^[-+]?0/;

/** A YAML 1.1 boolean word (yes, off, y...) as the boolean it is, or undefined for any other text. */
export const yaml11Bool = (text: string): boolean | undefined => (BOOLEAN_11.test(text) ? TRUE_11.test(text) : undefined);

/** The remediation of every yaml-1.1-scalar finding. */
export const YAML11_FIX = 'quote it, or write the value YAML 1.1 and 1.2 agree on';

export interface Ambiguity {
  line: number;
  col: number;
  message: string;
}

/** Whether YAML 1.1 reads this plain scalar otherwise than YAML 1.2: a boolean of yes/no/on/off/y/n, or an octal. */
export function isYaml11Ambiguous(source: string): boolean {
  // Neither reading differs for most scalars: a boolean of YAML 1.1 has at most three letters, an octal starts with 0 after its sign.
  if (source.length > 3 && !OCTAL_START.test(source)) return false;
  return BOOLEAN_11.test(source) || OCTAL_11.test(source);
}

/**
 * The plain scalars YAML 1.1 reads otherwise, as forms of the core schema's tags (model/yaml/core-schema.ts): a reader
 * that tries them before a tag's own forms reads as go-yaml v2 does.
 */
export const YAML11_FORMS: Readonly<Record<string, readonly [RegExp, (source: string) => unknown][]>> = {
  'tag:yaml.org,2002:bool': [[BOOLEAN_11, (source) => TRUE_11.test(source)]],
  'tag:yaml.org,2002:int': [[OCTAL_11, (source) => Number.parseInt(source, 8)]],
};

/** What YAML 1.1 (go-yaml v2) reads a plain scalar YAML 1.2 reads otherwise as (a boolean, or an octal's number); undefined for any other. */
export function yaml11Value(source: string): boolean | number | undefined {
  if (!isYaml11Ambiguous(source)) return undefined;
  return BOOLEAN_11.test(source) ? TRUE_11.test(source) : Number.parseInt(source, 8);
}

/** Sets each plain scalar (key or value) of `doc` YAML 1.1 reads otherwise to its YAML 1.1 value: `doc` as go-yaml v2 reads it, where nothing is said of it. */
export function asYaml11(doc: Document): void {
  eachNode(doc, {
    scalar(node) {
      const value = node.type === Scalar.PLAIN && node.source ? yaml11Value(node.source) : undefined;
      if (value !== undefined) node.value = value;
    },
  });
}

/** Every plain scalar (key or value) of `doc` that YAML 1.1 and 1.2 read differently; each is set to its YAML 1.1 value. */
export function yaml11Ambiguities(doc: Document, lineCounter: LineCounter): Ambiguity[] {
  const out: Ambiguity[] = [];
  eachNode(doc, {
    scalar(node) {
      if (node.type !== Scalar.PLAIN || !node.source || !isYaml11Ambiguous(node.source)) return;
      const source = node.source;
      // Placed only when it is one: most plain scalars are not.
      const at = () => lineCounter.linePos(node.range?.[0] ?? 0);
      if (BOOLEAN_11.test(source)) {
        node.value = TRUE_11.test(source);
        out.push({
          ...at(),
          message: `plain ${source} is the boolean ${TRUE_11.test(source)} to Helm and Kubernetes (YAML 1.1) but the string "${source}" in YAML 1.2; write ${TRUE_11.test(source)} or "${source}"`,
        });
      } else if (OCTAL_11.test(source)) {
        node.value = Number.parseInt(source, 8);
        out.push({
          ...at(),
          message: `plain ${source} is octal (${Number.parseInt(source, 8)}) to Helm and Kubernetes (YAML 1.1) but decimal ${Number(source)} in YAML 1.2; write 0o${source.replace(/^([-+]?)0/, '$1')} or ${Number.parseInt(source, 8)}`,
        });
      }
    },
  });
  return out;
}

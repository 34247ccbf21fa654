/**
 * What Alloy v1.18.1's decoder refuses of a constant value given to an argument (syntax/internal/value/decode.go's
 * decode and convertValue, with vm/error.go's makeDiagnostic for the words): the value converted to the argument's
 * type as the vm converts it (a number to text, text to a number where it reads whole as one, nothing else), a
 * duration's text through time.ParseDuration, each member of a list to the list's type. The type is the one the
 * reference keeps for the argument (scripts/monitoring/alloy-arguments.ts attrType); an `opaque` type, a secret
 * (a capsule whose conversions are its own), a text unmarshaler's own parse, a map's values and any value an
 * expression works out from other values are not judged.
 */
import { goParseDuration } from '../core/time.ts';
import { goParseFloat } from '../go/strconv.ts';
import type { AlloyConstant, AlloyValue } from './parser.ts';

/** The reference's schemas by id, each field's kind and type (arguments.ts reads them the same). */
type Schemas = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** A problem of a value, on the line of the expression at fault (a list's member, an object's field). */
export interface ValueProblem {
  line: number;
  message: string;
}

/** The vm's name of a value's type (value.Type's String). */
function typeName(value: AlloyValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/** convertValue's text to number: a sign, a float's characters, else an unsigned integer, each read whole in base 10. */
function readsAsNumber(text: string): boolean {
  if (text === '') return false;
  if (text.startsWith('-')) return /^-[0-9]+$/.test(text) && BigInt(text) >= -(1n << 63n);
  if (/[.eE]/.test(text)) return goParseFloat(text) !== undefined && !/[_xXpP]/.test(text);
  return /^[0-9]+$/.test(text) && BigInt(text) <= 0xffffffffffffffffn;
}

/** The first member's problems, the others unread, as the decoder returns at its first error. */
function firstOf(members: readonly (() => ValueProblem[])[]): ValueProblem[] {
  for (const m of members) {
    const found = m();
    if (found.length > 0) return found;
  }
  return [];
}

/** One problem, as makeDiagnostic words it: the expression as written, then what the decoder says of it. */
const problem = (c: AlloyConstant, message: string): ValueProblem => ({ line: c.line, message: `${c.text} ${message}` });
const typeError = (c: AlloyConstant, expected: string): ValueProblem => problem(c, `should be ${expected}, got ${typeName(c.value)}`);

/** The value as text, as the decoder reads one into a Go string (a number converted), or the problem. */
function asText(c: AlloyConstant): { text: string } | { problem: ValueProblem } {
  if (typeof c.value === 'string') return { text: c.value };
  // A number's text as value.Number's ToString writes it: an integer plainly, a float in Go's shortest form.
  if (typeof c.value === 'number') return { text: String(c.value) };
  return { problem: typeError(c, 'string') };
}

/**
 * The problems the decoder finds in a constant given to an argument of `type` (attrType's words), against the
 * reference's `schemas` for a struct's fields: none where it decodes, or where the gate does not judge the type. A
 * null decodes into anything, as its zero value. The decoder stops at its first problem; so does a list's or an
 * object's reading here.
 */
export function constantProblems(c: AlloyConstant, type: string, schemas: Schemas): ValueProblem[] {
  if (c.value === null) return [];
  const list = /^list\((.*)\)$/.exec(type);
  if (list) {
    if (!Array.isArray(c.value)) return [typeError(c, 'array')];
    return firstOf((c.members ?? []).map((m) => () => constantProblems(m, list[1]!, schemas)));
  }
  const struct = /^object\((.*)\)$/.exec(type);
  if (struct) {
    if (typeof c.value !== 'object' || Array.isArray(c.value)) return [typeError(c, 'object')];
    const schema = schemas[struct[1]!];
    if (!schema || schema['(open)'] !== undefined) return [];
    return firstOf(
      (c.keys ?? []).map((key, i) => () => {
        const member = c.members![i]!;
        const field = schema[key]?.split(' ') ?? [];
        // decodeObjectToStruct: a key the struct has no field for is MissingKeyError; a block's field is not judged here.
        if (field.length === 0) return [problem(member, `does not have field named ${JSON.stringify(key)}`)];
        return field[0] === 'attr' ? constantProblems(member, field.filter((w) => w !== 'required')[1] ?? 'opaque', schemas) : [];
      }),
    );
  }
  switch (type) {
    case 'string':
    case 'text': {
      // A text unmarshaler's own parse of the text is not judged.
      const read = asText(c);
      return 'problem' in read ? [read.problem] : [];
    }
    case 'number':
      if (typeof c.value === 'number') return [];
      return typeof c.value === 'string' && readsAsNumber(c.value) ? [] : [typeError(c, 'number')];
    case 'bool':
      return typeof c.value === 'boolean' ? [] : [typeError(c, 'bool')];
    case 'duration': {
      const read = asText(c);
      if ('problem' in read) return [read.problem];
      const parsed = goParseDuration(read.text);
      return parsed.ok ? [] : [problem(c, parsed.error)];
    }
    case 'map':
      return typeof c.value === 'object' && !Array.isArray(c.value) ? [] : [typeError(c, 'object')];
    case 'any':
      return [];
    default:
      return [];
  }
}

/**
 * What Alloy v1.18.1's decoder refuses of a value given to an argument (syntax/internal/value/decode.go's decode and
 * convertValue, with vm/error.go's makeDiagnostic for the words), the value as evaluate.ts works it out: a value
 * converted to the argument's type as the vm converts it (a number to text, text to a number where it reads whole as
 * one, nothing else), a duration's text through time.ParseDuration, each member of a list to the list's type, each
 * field of an object to a struct's; a value known only by its type is held to what that type converts to (a string
 * read at run time is text, never a bool), an export of a Go type to an argument of that type. What the gate cannot
 * tell is said unjudged, with why: a value it does not work out, a string read at run time given to a number or a
 * duration, a text unmarshaler's own parse, a value given to a type whose decoding is its own (`opaque`).
 */
import { prometheusRegexProblem } from '../core/re2.ts';
import { goParseDuration } from '../core/time.ts';
import { goParseFloat } from '../go/strconv.ts';
import { parseURL } from '../go/url.ts';
import { fromValue, plainValue, typeError, vmType, type Evaluated } from './evaluated.ts';
import type { AlloyConstant } from './parser.ts';
import { RELABEL_ACTIONS } from './validators.ts';

/** A schema's fields by name: `attr <type>`, `attr required <type>`, `block <schema>`, `blocks <schema>`, `enum <schema>` (required after the kind); `(runs)`, `(open)`, `(label)` its marks. */
export type AlloySchema = Readonly<Record<string, string>>;
/** The reference's schemas by id (arguments.ts decodes a body by them, this module a value). */
export type AlloySchemas = Readonly<Record<string, AlloySchema>>;

/** A problem of a value, on the line of the expression at fault (a list's member, an object's field). */
export interface ValueProblem {
  line: number;
  message: string;
}
/** A value whose decoding the gate cannot tell, on its line, with why. */
export interface Unjudged {
  line: number;
  why: string;
}
export interface Decoded {
  problems: ValueProblem[];
  unjudged: Unjudged[];
}

const ok: Decoded = { problems: [], unjudged: [] };
const refused = (e: Evaluated, expected: string): Decoded => ({ problems: [failure(typeError(e, expected))], unjudged: [] });
const failure = (f: { line: number; message: string }): ValueProblem => ({ line: f.line, message: f.message });
const unjudged = (e: Evaluated, why: string): Decoded => ({ problems: [], unjudged: [{ line: e.line, why }] });

/** convertValue's text to number: a sign, a float's characters, else an unsigned integer, each read whole in base 10. */
function readsAsNumber(text: string): boolean {
  if (text === '') return false;
  if (text.startsWith('-')) return /^-[0-9]+$/.test(text) && BigInt(text) >= -(1n << 63n);
  if (/[.eE]/.test(text)) return goParseFloat(text) !== undefined && !/[_xXpP]/.test(text);
  return /^[0-9]+$/.test(text) && BigInt(text) <= 0xffffffffffffffffn;
}

/** The members' decoding in order, up to the first problem (the decoder returns at its first error). */
function firstOf(members: readonly (() => Decoded)[]): Decoded {
  const found: Unjudged[] = [];
  for (const m of members) {
    const d = m();
    found.push(...d.unjudged);
    if (d.problems.length > 0) return { problems: d.problems, unjudged: found };
  }
  return { problems: [], unjudged: found };
}

/** A constant as evaluated, each member at its own line. */
export function fromConstant(c: AlloyConstant): Evaluated {
  const place = { line: c.line, text: c.text };
  if (!c.members) return fromValue(c.value, place);
  const members = c.members.map(fromConstant);
  return c.keys ? { kind: 'object', ...place, keys: c.keys, members } : { kind: 'array', ...place, members };
}

/** The problems the decoder finds in a constant given to an argument of `type` (decodeProblems' problems). */
export const constantProblems = (c: AlloyConstant, type: string, schemas: AlloySchemas): ValueProblem[] =>
  decodeProblems(fromConstant(c), type, schemas).problems;

/** A known list or object as built of members (a known value's members at its place). */
const built = (e: Evaluated): Evaluated => (e.kind === 'known' && e.value !== null && typeof e.value === 'object' ? fromValue(e.value, e) : e);

/**
 * What the decoder finds in a value given to an argument of `type` (attrType's words), against the reference's
 * `schemas` for a struct's fields: its problems, and what the gate cannot tell. A null decodes into anything, as its
 * zero value.
 */
export function decodeProblems(value: Evaluated, type: string, schemas: AlloySchemas): Decoded {
  const e = built(value);
  if (e.kind === 'failed') return { problems: [failure(e)], unjudged: [] };
  if (e.kind === 'unread') return unjudged(e, e.why);
  if (e.kind === 'known' && e.value === null) return ok;
  const got = vmType(e)!;
  if (type === 'any') return ok;
  const list = /^list\((.*)\)$/.exec(type);
  if (list) return listProblems(e, list[1]!, schemas);
  const struct = /^object\((.*)\)$/.exec(type);
  if (struct) return structProblems(e, struct[1]!, schemas);
  if (type.startsWith('opaque')) {
    if (e.kind === 'typed' && e.type === type) return ok;
    return unjudged(e, `${e.text} given to ${type === 'opaque' ? 'a type' : type.slice('opaque('.length, -1)} whose decoding is its own`);
  }
  if (got === 'capsule' || got === 'function') return unjudged(e, `${e.text}, a ${got} the gate does not convert`);
  return scalarProblems(e, type, got);
}

function listProblems(e: Evaluated, member: string, schemas: AlloySchemas): Decoded {
  if (e.kind === 'array') return firstOf(e.members.map((m) => () => decodeProblems(m, member, schemas)));
  if (e.kind === 'typed' && /^list\(/.test(e.type)) return decodeProblems({ ...e, type: e.type.slice(5, -1) }, member, schemas);
  return refused(e, 'array');
}

function structProblems(e: Evaluated, id: string, schemas: AlloySchemas): Decoded {
  if (e.kind === 'typed') return vmType(e) === 'object' ? (e.type === `object(${id})` ? ok : unjudged(e, `the fields of ${e.text}`)) : refused(e, 'object');
  if (e.kind !== 'object') return refused(e, 'object');
  const schema = schemas[id];
  if (!schema || schema['(open)'] !== undefined) return ok;
  return firstOf(
    e.keys!.map((key, i) => () => {
      const member = e.members[i]!;
      const field = schema[key]?.split(' ') ?? [];
      // decodeObjectToStruct: a key the struct has no field for is MissingKeyError; a block's field is not judged here.
      if (field.length === 0)
        return { problems: [{ line: member.line, message: `${member.text} does not have field named ${JSON.stringify(key)}` }], unjudged: [] };
      return field[0] === 'attr' ? decodeProblems(member, field.filter((w) => w !== 'required')[1] ?? 'opaque', schemas) : ok;
    }),
  );
}

/** The text unmarshalers the gate ports, by Go type: each the error its UnmarshalText returns, or undefined. */
const TEXT_PARSERS: Readonly<Record<string, (text: string) => string | undefined>> = {
  // relabel.Action: one of its eleven names, in their case (relabel.go's actions).
  'internal/component/common/relabel.Action': (text) => (RELABEL_ACTIONS.has(text) ? undefined : `unrecognized action type ${JSON.stringify(text)}`),
  // relabel.Regexp: Grafana's fork of Go's regexp (its syntax package Go's own) compiles the text anchored as
  // `^(?s:` + text + `)$` (relabel.go's newRegexp); the error is Go's, the anchored pattern quoted in it.
  'internal/component/common/relabel.Regexp': prometheusRegexProblem,
  // config.URL: url.Parse, its *url.Error as Go prints it.
  'internal/component/common/config.URL': (text) => {
    try {
      parseURL(text);
      return undefined;
    } catch (err) {
      return `parse ${JSON.stringify(text)}: ${(err as Error).message}`;
    }
  },
};

/** A string, number, bool, duration, text, secret or map argument given a scalar, list or object. */
function scalarProblems(e: Evaluated, written: string, got: string): Decoded {
  // text(<Go type>): the type its own parse is read by.
  const [type, goType] = /^text\((.+)\)$/.test(written) ? ['text', written.slice(5, -1)] : [written, undefined];
  const known = plainValue(e);
  const text = typeof known === 'string' ? known : typeof known === 'number' ? String(known) : undefined;
  const textual = got === 'string' || got === 'number';
  switch (type) {
    case 'string':
      return textual ? ok : refused(e, 'string');
    case 'text': {
      // A text unmarshaler's own parse of the text: ported for the types the gate knows, else its own.
      if (!textual) return refused(e, 'string');
      const parse = TEXT_PARSERS[goType ?? ''];
      if (!parse) return unjudged(e, `${e.text} parsed by ${goType ?? 'the argument type'}'s own UnmarshalText`);
      if (text === undefined) return unjudged(e, `${e.text}, read at run time, parsed by ${goType}'s UnmarshalText`);
      const error = parse(text);
      return error ? { problems: [{ line: e.line, message: `${e.text} ${error}` }], unjudged: [] } : ok;
    }
    case 'secret':
      return textual ? ok : unjudged(e, `${e.text} given to a secret`);
    case 'number':
      if (got === 'number') return ok;
      if (got !== 'string') return refused(e, 'number');
      if (text === undefined) return unjudged(e, `${e.text}, a string read at run time, given to a number`);
      return readsAsNumber(text) ? ok : refused(e, 'number');
    case 'bool':
      return got === 'bool' ? ok : refused(e, 'bool');
    case 'duration': {
      if (!textual) return refused(e, 'string');
      if (text === undefined) return unjudged(e, `${e.text}, read at run time, given to a duration`);
      const parsed = goParseDuration(text);
      return parsed.ok ? ok : { problems: [{ line: e.line, message: `${e.text} ${parsed.error}` }], unjudged: [] };
    }
    case 'map':
      return got === 'object' ? ok : refused(e, 'object');
    default:
      return unjudged(e, `${e.text} given to a type the gate has no rule for (${type})`);
  }
}

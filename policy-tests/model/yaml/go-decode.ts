/**
 * What Go's yaml.v3 refuses when it decodes a document into a program's configuration structs with
 * `KnownFields(true)`, as a program that loads its file strictly does (blackbox_exporter's `ReloadConfig`), ported from
 * go.yaml.in/yaml/v3's decode.go:
 *   - a null leaves the field as it was (its default), and calls no unmarshaler;
 *   - any scalar decodes into a string (its text), and into a type that parses text (a regexp, a URL, a TLS version)
 *     whose parser then has its say; a map or a list does not;
 *   - a bool takes YAML's booleans and YAML 1.1's words (`yes`, `off`...); an int takes an integer or a float it
 *     truncates, never a string; a `time.Duration` only a string `time.ParseDuration` reads (v3 refuses a number);
 *   - a struct takes a map of its own fields only (KnownFields): another key is refused by name;
 *   - type errors are gathered and decoding goes on; a struct's own check (its UnmarshalYAML's validation) runs only
 *     once its fields decoded cleanly, and the program's load stops at the first such refusal. The gate reports them all:
 *     each one is a load that fails.
 * The value decoded is the `yaml` library's reading of the document (the YAML 1.2 core schema v3 resolves alike).
 */
import { isMap } from '../core/dig.ts';
import { goParseDuration } from '../core/time.ts';
import { yaml11Bool } from './yaml11.ts';

export type DecodePath = readonly (string | number)[];

export interface DecodeProblem {
  path: DecodePath;
  /** The program's words, as Go's error says it. */
  message: string;
}

/** A Go type as yaml.v3 decodes into it. */
export type GoType =
  | { go: 'string' | 'bool' | 'int' | 'duration' | 'any' }
  /** A type whose unmarshaler reads a scalar's text and parses it: the parser's error, or undefined. */
  | { go: 'parsed'; type: string; parse: (text: string) => string | undefined }
  | { go: 'list'; of: GoType }
  | { go: 'map'; of: GoType }
  | GoStruct;

export interface GoStruct {
  go: 'struct';
  /** The name Go's errors print (`config.plain` for a struct decoded through a `type plain` alias). */
  type: string;
  fields: Readonly<Record<string, GoType>>;
  /** An inline map (`yaml:",inline"`): every key that is no field lands in it. */
  rest?: GoType;
  /** The struct's UnmarshalYAML check after its fields decoded: the error it returns, or undefined. */
  validate?: (value: Readonly<Record<string, unknown>>) => string | undefined;
}

const isScalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** v3's `!!tag` of a node, as its type errors print it. */
function tagOf(value: unknown): string {
  if (Array.isArray(value)) return '!!seq';
  if (isMap(value)) return '!!map';
  if (typeof value === 'boolean') return '!!bool';
  if (typeof value === 'number') return Number.isInteger(value) ? '!!int' : '!!float';
  return '!!str';
}

/** v3 quotes a scalar's text in a type error, cut after seven characters where longer than ten. */
function shown(value: unknown): string {
  if (!isScalar(value)) return '';
  const text = String(value);
  return text.length > 10 ? ` \`${text.slice(0, 7)}...\`` : ` \`${text}\``;
}

function goName(type: GoType): string {
  switch (type.go) {
    case 'duration':
      return 'time.Duration';
    case 'any':
      return 'interface {}';
    case 'parsed':
    case 'struct':
      return type.type;
    case 'list':
      return `[]${goName(type.of)}`;
    case 'map':
      return `map[string]${goName(type.of)}`;
    default:
      return type.go;
  }
}

/** Whether a scalar decodes into a Go scalar kind, as v3's `scalar` takes it. */
function scalarFits(value: string | number | boolean, go: 'string' | 'bool' | 'int' | 'duration'): boolean {
  switch (go) {
    case 'string':
      return true;
    case 'bool':
      // YAML 1.1's words too: v3 still takes them into a Go bool ("some compatibility with the 1.1 spec").
      return typeof value === 'boolean' || (typeof value === 'string' && yaml11Bool(value) !== undefined);
    case 'int':
      return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) < 2 ** 63;
    case 'duration':
      return typeof value === 'string' && goParseDuration(value).ok;
  }
}

function decodeInto(value: unknown, type: GoType, path: DecodePath, out: DecodeProblem[]): void {
  if (value === null || value === undefined || type.go === 'any') return;
  const refuse = () => out.push({ path, message: `cannot unmarshal ${tagOf(value)}${shown(value)} into ${goName(type)}` });
  switch (type.go) {
    case 'string':
    case 'bool':
    case 'int':
    case 'duration':
      if (!isScalar(value) || !scalarFits(value, type.go)) refuse();
      return;
    case 'parsed': {
      if (!isScalar(value)) return void refuse();
      const problem = type.parse(String(value));
      if (problem !== undefined) out.push({ path, message: problem });
      return;
    }
    case 'list':
      if (!Array.isArray(value)) return void refuse();
      value.forEach((item, i) => decodeInto(item, type.of, [...path, i], out));
      return;
    case 'map':
      if (!isMap(value)) return void refuse();
      for (const [key, item] of Object.entries(value)) decodeInto(item, type.of, [...path, key], out);
      return;
    case 'struct':
      return decodeStruct(value, type, path, out);
  }
}

function decodeStruct(value: unknown, type: GoStruct, path: DecodePath, out: DecodeProblem[]): void {
  if (!isMap(value)) return void out.push({ path, message: `cannot unmarshal ${tagOf(value)}${shown(value)} into ${type.type}` });
  const before = out.length;
  for (const [key, item] of Object.entries(value)) {
    const field = Object.hasOwn(type.fields, key) ? type.fields[key] : type.rest;
    if (field) decodeInto(item, field, [...path, key], out);
    else out.push({ path: [...path, key], message: `field ${key} not found in type ${type.type}` });
  }
  // UnmarshalYAML returns the type errors of its fields before it validates anything.
  if (out.length > before || !type.validate) return;
  const problem = type.validate(value);
  if (problem !== undefined) out.push({ path, message: problem });
}

/** Every refusal decoding `value` into `type` meets, each at the path of the node it is about. */
export function goDecodeProblems(value: unknown, type: GoType): DecodeProblem[] {
  const out: DecodeProblem[] = [];
  decodeInto(value, type, [], out);
  return out;
}

/**
 * Kubernetes' format library (1.31): format.<name>() for each named format,
 * format.named(name) as an optional, and validate(value), which gives
 * optional.none() for a valid value or optional.of(the errors). The errors
 * are the API server's own words (k8s.io/apimachinery's validation, strfmt
 * for the CRD formats), so a rule's messageExpression reads as it would
 * there. A format is carried as its name behind a private-use marker.
 */
import type { CelFunc } from '@bufbuild/cel';
import { STRING_FORMATS } from '../../model/go/strfmt.ts';
import { GoURLError, parseRequestURI } from '../../model/go/url.ts';
import { optionalNone, optionalOf } from './optional.ts';

type Cel = typeof import('@bufbuild/cel');

const MARK = '\uE002format:';

/** apimachinery's RegexError: the message, the examples each quoted, and the pattern. */
const regexError = (message: string, pattern: string, ...examples: string[]): string =>
  `${message} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${pattern}')`;
const maxLen = (n: number) => `must be no more than ${n} characters`;
const whole = (pattern: string) => new RegExp(`^(?:${pattern})$`);

const LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const SUBDOMAIN = `${LABEL}(\\.${LABEL})*`;
const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035 = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_MESSAGE =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const QUALIFIED = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_MESSAGE = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?';
const LABEL_VALUE_MESSAGE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const dns1123Label = (s: string): string[] => [
  ...(s.length > 63 ? [maxLen(63)] : []),
  ...(whole(LABEL).test(s) ? [] : [regexError(LABEL_MESSAGE, LABEL, 'my-name', '123-abc')]),
];
/** apimachinery's IsDNS1123Subdomain, in its words: the length, then the pattern with its example. */
export const dns1123SubdomainErrors = (s: string): string[] => [
  ...(s.length > 253 ? [maxLen(253)] : []),
  ...(whole(SUBDOMAIN).test(s) ? [] : [regexError(SUBDOMAIN_MESSAGE, SUBDOMAIN, 'example.com')]),
];
const dns1035Label = (s: string): string[] => [
  ...(s.length > 63 ? [maxLen(63)] : []),
  ...(whole(DNS1035).test(s) ? [] : [regexError(DNS1035_MESSAGE, DNS1035, 'my-name', 'abc-123')]),
];
/** A name that may end in a dash, as generateName gives it: apimachinery masks the dash before it judges. */
const prefix = (judge: (s: string) => string[]) => (s: string) => judge(s.length > 1 && s.endsWith('-') ? `${s.slice(0, -1)}a` : s);

/** apimachinery's IsQualifiedName: an optional DNS subdomain prefix and '/', then a name of at most 63 characters. */
function qualifiedName(value: string): string[] {
  const parts = value.split('/');
  const errors: string[] = [];
  let name = parts[0]!;
  if (parts.length === 2) {
    name = parts[1]!;
    if (parts[0] === '') errors.push('prefix part must be non-empty');
    else errors.push(...dns1123SubdomainErrors(parts[0]!).map((m) => `prefix part ${m}`));
  } else if (parts.length > 2)
    return [
      `a qualified name ${regexError(QUALIFIED_MESSAGE, QUALIFIED, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  if (name.length === 0) errors.push('name part must be non-empty');
  else if (name.length > 63) errors.push(`name part ${maxLen(63)}`);
  if (!whole(QUALIFIED).test(name)) errors.push(`name part ${regexError(QUALIFIED_MESSAGE, QUALIFIED, 'MyName', 'my.name', '123-abc')}`);
  return errors;
}

const labelValue = (s: string): string[] => [
  ...(s.length > 63 ? [maxLen(63)] : []),
  ...(whole(LABEL_VALUE).test(s) ? [] : [regexError(LABEL_VALUE_MESSAGE, LABEL_VALUE, 'MyValue', 'my_value', '12345')]),
];

/** Go's url.ParseRequestURI (model/go/url.ts), with Go's error as apimachinery's uri format reports it. */
function uri(s: string): string[] {
  try {
    parseRequestURI(s);
    return [];
  } catch (err) {
    if (!(err instanceof GoURLError)) throw err;
    return [`parse "${s}": ${err.message}`];
  }
}

/** Every named format, with its validation (library.ConstantFormats). */
const FORMATS: Readonly<Record<string, (s: string) => string[]>> = {
  dns1123Label,
  dns1123Subdomain: dns1123SubdomainErrors,
  dns1035Label,
  qualifiedName,
  dns1123LabelPrefix: prefix(dns1123Label),
  dns1123SubdomainPrefix: prefix(dns1123SubdomainErrors),
  dns1035LabelPrefix: prefix(dns1035Label),
  labelValue,
  uri,
  // strfmt.Default.Validates, as library/format.go asks it (model/go/strfmt.ts).
  uuid: (s) => (STRING_FORMATS.uuid!(s) ? [] : ['does not match the UUID format']),
  byte: (s) => (STRING_FORMATS.byte!(s) ? [] : ['invalid base64']),
  date: (s) => (STRING_FORMATS.date!(s) ? [] : ['invalid date']),
  datetime: (s) => (STRING_FORMATS.datetime!(s) ? [] : ['invalid datetime']),
};

export function formatFunctions(cel: Cel): CelFunc[] {
  const { celFunc, celMethod, CelScalar, mapType, listType } = cel;
  const S = CelScalar.STRING;
  const OPT = mapType(S, listType(CelScalar.DYN));
  return [
    ...Object.keys(FORMATS).map((name) => celFunc(`format.${name}`, [], S, () => MARK + name)),
    celFunc('format.named', [S], OPT, (name) => (Object.hasOwn(FORMATS, name) ? optionalOf(MARK + name) : optionalNone())),
    celMethod('validate', S, [S], OPT, function (value) {
      const judge = this.startsWith(MARK) ? FORMATS[this.slice(MARK.length)] : undefined;
      if (!judge) throw new Error('no such overload: validate needs a format');
      const errors = judge(value);
      return errors.length ? optionalOf(errors) : optionalNone();
    }),
  ];
}

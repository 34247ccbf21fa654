/**
 * The formats the API server holds a custom resource's values to, as it holds them: apiextensions-apiserver keeps a
 * schema's `format` only where it supports it (pkg/apiserver/validation/formats.go,
 * `StripUnsupportedFormatsPostProcessorForVersion`: the string formats below, `int32` and `int64` on an integer,
 * `float` and `double` on a number; any other is dropped and checks nothing), and kube-openapi validates a string
 * with its registry's own function (pkg/validation/strfmt, `strfmt.Default`: Go's url, mail, net and time parsers and
 * govalidator's patterns, ported here), and every number against its type's range (validate `numberValidator`,
 * `IsValueValidAgainstRange`: an integer within int64, or int32 where it says so; a `float` within float32).
 * JSON Schema's own meanings of the same names (ajv-formats: `uri` needs a scheme, `duration` is ISO 8601's,
 * `cidr` and `mac` unknown) are not the cluster's. Held to kube-openapi's own cases: `npm run conformance --
 * --kube-openapi`.
 */
import { re2 } from '../core/re2.ts';
import { goDurationMs } from '../core/time.ts';
import { parseMailAddress } from './mail.ts';
import { cidrSloppy, isIPSloppy, isIPv6 } from './net.ts';
import { parseRequestURI } from './url.ts';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** A Go regular expression (RE2: linear time, so a hostile value cannot hold the gate). */
const goRegexp = (pattern: string) => {
  const compiled = re2(pattern);
  return (s: string) => compiled.matches(s);
};

const HOSTNAME = goRegexp(
  String.raw`^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$`,
);
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const CREDIT_CARD =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;
const HEXCOLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGB_PART = String.raw`\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*`;
// Through RE2: the spaces around each part would let a backtracking engine try them quadratically often.
const RGBCOLOR = goRegexp(String.raw`^rgb\(${RGB_PART},${RGB_PART},${RGB_PART}\)$`);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const SHORT_NAME = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DATE_TIME_TAIL = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;

/** Go's time.Parse("2006-01-02"): four, two and two digits, a month of the year and a day that month has. */
export function isGoDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day >= 1 && day <= days;
}

/**
 * Go's time.Parse(time.RFC3339), as metav1.Time reads a timestamp: a date as above, `T`, a time of day (seconds
 * below 60, a fraction after them allowed), and `Z` or an offset; nothing before or after.
 */
export function isGoRFC3339(s: string): boolean {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,]\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/.exec(s);
  if (!m || !isGoDate(m[1]!)) return false;
  const [h, min, sec] = [Number(m[2]), Number(m[3]), Number(m[4])];
  const zoneOk = m[5] === undefined || (Number(m[5]) <= 23 && Number(m[6]) <= 59);
  return h <= 23 && min <= 59 && sec <= 59 && zoneOk;
}

/** strfmt's IsDateTime: a date, `t` (any case), and a time whose hour, minute and second read as at most 23, 59, 59. */
export function isStrfmtDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isGoDate(parts[0]!)) return false;
  const m = DATE_TIME_TAIL.exec(parts[1]!);
  return m !== null && m[1]! <= '23' && m[2]! <= '59' && m[3]! <= '59';
}

const DURATION_UNITS = [
  ['ns', 'nano'],
  ['us', 'µs', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];

/** strfmt's ParseDuration: Go's time.ParseDuration, else any `<digits> <unit>` it names loosely (`3 days`, `1 week`). */
function isStrfmtDuration(s: string): boolean {
  if (goDurationMs(s) !== undefined) return true;
  let ok = false;
  for (const [, digits, unitText] of s.matchAll(/(\d+)[\t\n\f\r ]*([A-Za-zµ]+)/g)) {
    // strconv.Atoi fails past int64, and so does the parse (leading zeros count for nothing; a long run is read no further).
    const significant = digits!.replace(/^0+/, '');
    if (significant.length > 19 || BigInt(significant || '0') > 2n ** 63n - 1n) return false;
    const unit = unitText!.toLowerCase();
    for (const variants of DURATION_UNITS)
      variants.forEach((variant, i) => {
        if ((i === variants.length - 1 && unit.startsWith(variant)) || variant === unit) ok = true;
      });
  }
  return ok;
}

/** Go's net.ParseMAC: 6, 8 or 20 bytes, as pairs of hex digits split by one `:` or `-` throughout, or quads by `.`. */
function isMAC(s: string): boolean {
  const hex2 = '[0-9a-fA-F]{2}';
  return [6, 8, 20].some(
    (n) => new RegExp(`^${hex2}([:-])${hex2}(?:\\1${hex2}){${n - 2}}$`).test(s) || new RegExp(`^[0-9a-fA-F]{4}(?:\\.[0-9a-fA-F]{4}){${n / 2 - 1}}$`).test(s),
  );
}

function isISBN(s: string, version: 10 | 13): boolean {
  const digits = s.replace(/[\t\n\f\r -]+/g, '');
  if (version === 10) {
    if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(digits)) return false;
    let sum = 0;
    for (let i = 0; i < 9; i++) sum += (i + 1) * Number(digits[i]);
    sum += digits[9] === 'X' ? 100 : 10 * Number(digits[9]);
    return sum % 11 === 0;
  }
  if (!/^[0-9]{13}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * Number(digits[i]);
  return Number(digits[12]) - ((10 - (sum % 10)) % 10) === 0;
}

/** govalidator's IsCreditCard: its issuers' pattern over the digits, and Luhn's checksum. */
function isCreditCard(s: string): boolean {
  const digits = s.replace(/[^0-9]+/g, '');
  if (!CREDIT_CARD.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = Number(digits[i]);
    if (double) d = d * 2 >= 10 ? ((d * 2) % 10) + 1 : d * 2;
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

function isRequestURI(s: string): boolean {
  try {
    parseRequestURI(s);
    return true;
  } catch {
    return false;
  }
}

function isHostname(s: string): boolean {
  return HOSTNAME(s) && bytes(s) <= 255 && s.split('.').every((p) => bytes(p) <= 63);
}

/** strfmt.Default's validators, by the name the registry knows each by (its dashes removed). */
export const STRING_FORMATS: Readonly<Record<string, (s: string) => boolean>> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isRequestURI,
  email: (s) => parseMailAddress(s) !== undefined,
  hostname: isHostname,
  ipv4: (s) => isIPSloppy(s) && s.includes('.'),
  ipv6: isIPv6,
  cidr: (s) => !('problem' in cidrSloppy(s)),
  mac: isMAC,
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  isbn: (s) => isISBN(s, 10) || isISBN(s, 13),
  isbn10: (s) => isISBN(s, 10),
  isbn13: (s) => isISBN(s, 13),
  creditcard: isCreditCard,
  ssn: (s) => bytes(s) === 11 && /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => HEXCOLOR.test(s),
  rgbcolor: RGBCOLOR,
  byte: (s) => BASE64.test(s),
  password: () => true,
  date: isGoDate,
  duration: isStrfmtDuration,
  datetime: isStrfmtDateTime,
  k8sshortname: (s) => s.length <= 63 && new RegExp(`^${SHORT_NAME}$`).test(s),
  k8slongname: (s) => s.length <= 253 && new RegExp(`^${SHORT_NAME}(\\.${SHORT_NAME})*$`).test(s),
};

/** The numeric formats the range check knows: an integer's default is int64's range. */
export const NUMBER_FORMATS: Readonly<Record<string, (n: number) => boolean>> = {
  int32: (n) => Number.isInteger(n) && n >= -(2 ** 31) && n <= 2 ** 31 - 1,
  // 2^63 is the nearest double to int64's largest value as well: the value as read cannot tell the two apart.
  int64: (n) => Number.isInteger(n) && n >= -(2 ** 63) && n <= 2 ** 63,
  float: (n) => Number.isFinite(Math.fround(n)),
};

/**
 * The format kube-openapi checks a schema node's values against, after the API server strips what it does not
 * support (the string formats normalized as the registry names them), or undefined where it checks none.
 */
export function validatedFormat(type: unknown, format: unknown): string | undefined {
  const written = typeof format === 'string' ? format : '';
  if (type === undefined || type === '' || type === 'string') {
    const name = written.replaceAll('-', '');
    return Object.hasOwn(STRING_FORMATS, name) ? name : undefined;
  }
  if (type === 'integer') return written === 'int32' ? 'int32' : 'int64';
  if (type === 'number') return written === 'float' ? 'float' : undefined;
  return undefined;
}

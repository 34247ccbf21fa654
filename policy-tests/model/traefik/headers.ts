/**
 * The Content-Security-Policy a Traefik headers Middleware sends, as a browser reads it. Traefik sends the text as
 * written (`contentSecurityPolicy`, `contentSecurityPolicyReportOnly`, or a `customResponseHeaders` entry of either
 * name; an empty one sends nothing), and neither Traefik nor the API server reads it. The browser parses it as CSP
 * Level 3 does (directives apart by `;`, each a name and its source expressions apart by spaces, names without
 * case), and what it cannot read it skips with a console warning, so the protection the directive meant is gone:
 *   - a directive it does not know (`farme-ancestors`, or `frame-ancestors:` with a colon) is ignored;
 *   - a directive name written as a value (a missing `;`) is read as a host source of the directive before it;
 *   - a keyword without its quotes (`none`, `self`) is read as a host of that name, and a quoted word that is no
 *     keyword, nonce or hash (`'slef'`) is ignored;
 *   - a directive given again is ignored: the first one is the policy's.
 * The first three are read by Google's CSP Evaluator (`csp_evaluator`, its parser and parser checks, the syntax
 * checks Lighthouse reports); the parser keeps the first of a repeated directive and drops the rest without a word,
 * so the repeat is read here from the same split.
 */
import { CspParser } from 'csp_evaluator/dist/parser.js';
import { Directive } from 'csp_evaluator/dist/csp.js';
import { checkInvalidKeyword, checkMissingSemicolon, checkUnknownDirective } from 'csp_evaluator/dist/checks/parser_checks.js';
import { Type, type Finding } from 'csp_evaluator/dist/finding.js';
import { didYouMean } from '../core/did-you-mean.ts';
import { dig, isMap } from '../core/dig.ts';
import { scalarText } from '../core/text.ts';
import type { Path } from '../core/positions.ts';

/** The response headers a browser reads a policy from, lower-cased as HTTP compares them. */
const POLICY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': 'Content-Security-Policy',
  'content-security-policy-report-only': 'Content-Security-Policy-Report-Only',
};

/** Where a headers Middleware writes a policy: the two fields of their own, then its custom response headers. */
const POLICY_FIELDS: Readonly<Record<string, string>> = {
  contentSecurityPolicy: 'Content-Security-Policy',
  contentSecurityPolicyReportOnly: 'Content-Security-Policy-Report-Only',
};

/** A policy a Middleware sends: its header, its text, and the path of the field that writes it. */
export interface WrittenPolicy {
  header: string;
  text: string;
  path: Path;
}

/** Every policy a Middleware's `spec.headers` sends (an empty value sends none). */
export function middlewarePolicies(middleware: unknown): WrittenPolicy[] {
  const headers = dig(middleware, ['spec', 'headers']);
  if (!isMap(headers)) return [];
  const out: WrittenPolicy[] = [];
  for (const [field, header] of Object.entries(POLICY_FIELDS)) {
    const text = headers[field];
    if (text !== undefined && text !== null && scalarText(text) !== '') out.push({ header, text: scalarText(text), path: ['spec', 'headers', field] });
  }
  const custom = headers.customResponseHeaders;
  for (const [name, text] of Object.entries(isMap(custom) ? custom : {})) {
    const header = POLICY_HEADERS[name.toLowerCase()];
    if (header && text !== null && scalarText(text) !== '')
      out.push({ header, text: scalarText(text), path: ['spec', 'headers', 'customResponseHeaders', name] });
  }
  return out;
}

const DIRECTIVES: readonly string[] = Object.values(Directive);

/** What the browser makes of one evaluator finding, said in the policy's own words. */
function misreading(finding: Finding): string {
  const { directive, value } = finding;
  switch (finding.type) {
    case Type.UNKNOWN_DIRECTIVE:
      return directive.endsWith(':')
        ? `${JSON.stringify(directive)} ends with a colon, so it names no directive and the browser ignores it${didYouMean(directive.slice(0, -1), DIRECTIVES)}`
        : `${JSON.stringify(directive)} is no directive a browser knows, and it ignores it${didYouMean(directive, DIRECTIVES)}`;
    case Type.MISSING_SEMICOLON:
      return `${JSON.stringify(value)} is read as a source of ${directive}, not a directive of its own (no ";" before it), so the browser never applies it`;
    default:
      return value?.startsWith("'")
        ? `${value} in ${directive} is no keyword, nonce or hash a browser knows, and it ignores it`
        : `${JSON.stringify(value)} in ${directive} is read as a host of that name, not the keyword '${value}' (a keyword is quoted)`;
  }
}

/** The directives the browser reads past: each one given again after its first (names compared without case). */
function repeated(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const token of text.split(';')) {
    const name = token
      .trim()
      .split(/[ \t\n\f\r]+/)[0]!
      .toLowerCase();
    if (name === '') continue;
    if (seen.has(name)) out.push(`${name} is given twice, and the browser applies the first and ignores the second`);
    seen.add(name);
  }
  return out;
}

/**
 * What a browser does not read of a header as written, each in a sentence; empty where it reads all of it. A header
 * may carry several policies apart by commas (CSP3's serialized CSP list), each read and enforced on its own.
 */
export function policyMisreadings(text: string): string[] {
  return text.split(',').flatMap((policy) => {
    const csp = new CspParser(policy).csp;
    const findings = [...checkUnknownDirective(csp), ...checkMissingSemicolon(csp), ...checkInvalidKeyword(csp)];
    return [...findings.map(misreading), ...repeated(policy)];
  });
}

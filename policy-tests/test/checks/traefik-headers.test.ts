/**
 * traefik-headers-read: the public API's Middleware, its Content-Security-Policy rewritten, held to what a browser
 * reads of it (Google's CSP Evaluator's parser checks, and a directive given twice).
 */
import { describe, expect, it } from 'vitest';
import { traefikHeadersCheck } from '../../checks/closure/traefik-headers.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { middlewarePolicies, policyMisreadings } from '../../model/traefik/headers.ts';

const repo = await loadRepo(REPO_ROOT);
const middleware = repo.resources.find((r) => r.kind === 'Middleware' && r.name === 'portfolio-headers')!;

/** The check's messages where the Middleware's headers are `headers`. */
const judged = (headers: Record<string, unknown>) => {
  const object = structuredClone(middleware.object) as { spec: { headers: Record<string, unknown> } };
  object.spec.headers = { ...object.spec.headers, ...headers };
  const changed = { ...middleware, object } as Resource;
  return runPolicy({ ...repo, resources: repo.resources.map((r) => (r === middleware ? changed : r)) }, [traefikHeadersCheck]).map((f) => f.message);
};

describe('traefik-headers-read', () => {
  it("passes the repository's policy, and one of every kind of source a browser reads", () => {
    expect(judged({})).toEqual([]);
    expect(
      policyMisreadings(
        "script-src 'nonce-r4nd0m' 'strict-dynamic' https: 'unsafe-inline'; object-src 'none'; base-uri 'self'; img-src data: *.example.net; report-to csp; upgrade-insecure-requests",
      ),
    ).toEqual([]);
    // Names are read without case, as the browser reads them; a header of two policies is two policies, each whole.
    expect(policyMisreadings("DEFAULT-SRC 'none'; Frame-Ancestors 'none'")).toEqual([]);
    expect(policyMisreadings("default-src 'self', frame-ancestors 'none'; default-src 'none'")).toEqual([]);
  });

  it('says a misspelt directive, and one ended by a colon, with the directive meant', () => {
    expect(judged({ contentSecurityPolicy: "default-src 'none'; farme-ancestors 'none'" })).toEqual([
      'Middleware portfolio-headers sends Content-Security-Policy: "farme-ancestors" is no directive a browser knows, and it ignores it (did you mean "frame-ancestors"?)',
    ]);
    expect(policyMisreadings("frame-ancestors: 'none'")).toEqual([
      '"frame-ancestors:" ends with a colon, so it names no directive and the browser ignores it (did you mean "frame-ancestors"?)',
    ]);
  });

  it('says a missing semicolon, an unquoted keyword, an unknown one and a repeated directive', () => {
    expect(policyMisreadings("default-src 'none' frame-ancestors 'none'")).toEqual([
      '"frame-ancestors" is read as a source of default-src, not a directive of its own (no ";" before it), so the browser never applies it',
    ]);
    expect(policyMisreadings("default-src self; script-src 'slef'")).toEqual([
      `"self" in default-src is read as a host of that name, not the keyword 'self' (a keyword is quoted)`,
      "'slef' in script-src is no keyword, nonce or hash a browser knows, and it ignores it",
    ]);
    expect(policyMisreadings("default-src 'none'; Default-Src *")).toEqual([
      'default-src is given twice, and the browser applies the first and ignores the second',
    ]);
  });

  it('reads the report-only policy and a custom response header of either name, and not an empty one', () => {
    expect(
      judged({
        contentSecurityPolicyReportOnly: "default-src 'none'; frame-ancestor 'none'",
        customResponseHeaders: { 'content-security-policy': 'default-src none', 'Cross-Origin-Resource-Policy': 'cross-origin' },
      }),
    ).toEqual([
      'Middleware portfolio-headers sends Content-Security-Policy-Report-Only: "frame-ancestor" is no directive a browser knows, and it ignores it (did you mean "frame-ancestors"?)',
      `Middleware portfolio-headers sends Content-Security-Policy: "none" in default-src is read as a host of that name, not the keyword 'none' (a keyword is quoted)`,
    ]);
    // An empty value removes the header (Traefik's custom headers), and sends no policy.
    expect(middlewarePolicies({ spec: { headers: { contentSecurityPolicy: '', customResponseHeaders: { 'Content-Security-Policy': '' } } } })).toEqual([]);
  });
});

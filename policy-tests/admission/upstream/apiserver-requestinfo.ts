/**
 * k8s.io/apiserver's request-info tests (pkg/endpoints/request/requestinfo_test.go), read as data: TestGetAPIRequestInfo's
 * resource paths (verb, prefix, group, version, namespace, resource, subresource, name and parts) and its paths that
 * are no resource request, TestGetNonAPIRequestInfo's, and TestSelectorParsing's verbs, names and selectors, each held
 * to the gate's port (authorization/request-info.ts), which tells the RBAC authorizer what a program's request asks.
 */
import { requestInfo } from '../authorization/request-info.ts';
import { textAgreement, type Agreement, type TextCase, type UpstreamTable } from './agreement.ts';

const METHODS: Readonly<Record<string, string>> = {
  MethodGet: 'GET',
  MethodHead: 'HEAD',
  MethodPost: 'POST',
  MethodPut: 'PUT',
  MethodPatch: 'PATCH',
  MethodDelete: 'DELETE',
};

/** One Go value of a row: a string literal, a method constant, `namespaceAll` (""), a `[]string{...}` or a bool. */
function goValue(token: string): unknown {
  if (token.startsWith('"')) return JSON.parse(token) as string;
  if (token in METHODS) return METHODS[token];
  if (token === 'namespaceAll') return '';
  if (token === 'true' || token === 'false') return token === 'true';
  const list = /^\[\]string\{(.*)\}$/s.exec(token);
  if (list) return [...list[1]!.matchAll(/"(?:[^"\\]|\\.)*"/g)].map((m) => JSON.parse(m[0]) as string);
  throw new Error(`not read: ${token}`);
}

const TOKENS = /"(?:[^"\\]|\\.)*"|\[\]string\{[^}]*\}|\b(?:Method\w+|namespaceAll|true|false)\b/g;
const valuesOf = (row: string): unknown[] => [...row.matchAll(TOKENS)].map((m) => goValue(m[0]));

/** The source between a test function's name and the next `func `. */
const testBody = (source: string, name: string): string => new RegExp(`func ${name}\\(t \\*testing\\.T\\) \\{([\\s\\S]*?)\\n\\}\\n`).exec(source)?.[1] ?? '';

/** A row's expectations in order; the test asserts all but the prefix and the group (whose rows it never checks, and some of which are wrong). */
const ROW_FIELDS = ['verb', 'apiPrefix', 'apiGroup', 'apiVersion', 'namespace', 'resource', 'subresource', 'name', 'parts'] as const;
const ASSERTED: ReadonlySet<string> = new Set(['verb', 'apiVersion', 'namespace', 'resource', 'subresource', 'name', 'parts']);
const RESOURCE_FIELDS = ROW_FIELDS.filter((f) => ASSERTED.has(f));

function resourceCases(source: string, unread: { name: string; why: string }[]): TextCase[] {
  const body = testBody(source, 'TestGetAPIRequestInfo');
  const cases: TextCase[] = [];
  for (const m of body.matchAll(/^\t\t\{(Method\w+,.*)\},$/gm)) {
    const values = valuesOf(m[1]!);
    if (values.length !== 11) {
      unread.push({ name: m[1]!, why: `a row of ${values.length} values, not 11` });
      continue;
    }
    const [method, url, ...expected] = values as [string, string, ...unknown[]];
    cases.push({
      test: 'TestGetAPIRequestInfo',
      name: `${method} ${url}`,
      want: JSON.stringify({ resource: true, ...Object.fromEntries(ROW_FIELDS.map((f, i) => [f, expected[i]]).filter(([f]) => ASSERTED.has(f as string))) }),
      judge: () => {
        const info = requestInfo(method, url);
        return JSON.stringify({ resource: info.isResourceRequest, ...Object.fromEntries(RESOURCE_FIELDS.map((f) => [f, (info as never)[f]])) });
      },
    });
  }
  const errors = /errorCases := map\[string\]string\{([\s\S]*?)\n\t\}/.exec(body)?.[1] ?? '';
  for (const m of errors.matchAll(/"([^"]+)":\s*("(?:[^"\\]|\\.)*"),/g))
    cases.push(nonResourceCase('TestGetAPIRequestInfo', m[1]!, JSON.parse(m[2]!) as string, false));
  const nonApi = testBody(source, 'TestGetNonAPIRequestInfo');
  for (const m of nonApi.matchAll(/"([^"]+)":\s*\{("(?:[^"\\]|\\.)*"),\s*(true|false)\},/g))
    cases.push(nonResourceCase('TestGetNonAPIRequestInfo', m[1]!, JSON.parse(m[2]!) as string, m[3] === 'true'));
  return cases;
}

const nonResourceCase = (test: string, name: string, url: string, resource: boolean): TextCase => ({
  test,
  name,
  want: String(resource),
  judge: () => String(requestInfo('GET', url).isResourceRequest),
});

const SELECTOR_FIELDS = ['expectedName', 'expectedVerb', 'expectedFieldSelector', 'expectedLabelSelector'] as const;

function selectorCases(source: string, unread: { name: string; why: string }[]): TextCase[] {
  const body = testBody(source, 'TestSelectorParsing');
  const cases: TextCase[] = [];
  for (const m of body.matchAll(/^\t\t\{\n([\s\S]*?)\n\t\t\},$/gm)) {
    const fields = new Map<string, unknown>();
    for (const f of m[1]!.matchAll(/^\t\t\t(\w+):\s*(.*),$/gm)) if (f[1] !== 'expectedErr') fields.set(f[1]!, valuesOf(f[2]!)[0]);
    const [name, method, url] = ['name', 'method', 'url'].map((k) => fields.get(k));
    if (typeof name !== 'string' || typeof method !== 'string' || typeof url !== 'string') {
      unread.push({ name: m[1]!.slice(0, 60), why: 'a row without its name, method or url' });
      continue;
    }
    cases.push({
      test: 'TestSelectorParsing',
      name,
      want: JSON.stringify(SELECTOR_FIELDS.map((f) => fields.get(f) ?? '')),
      judge: () => {
        const info = requestInfo(method, url);
        const resource = info.isResourceRequest ? info : undefined;
        return JSON.stringify([resource?.name ?? '', info.verb, resource?.fieldSelector ?? '', resource?.labelSelector ?? '']);
      },
    });
  }
  return cases;
}

/** Every case of the three tests, and the rows this reader could not read. */
export function requestInfoCases(source: string): UpstreamTable<TextCase> {
  const unread: { name: string; why: string }[] = [];
  return { cases: [...resourceCases(source, unread), ...selectorCases(source, unread)], unread };
}

export const requestInfoAgreement = (table: UpstreamTable<TextCase>): Agreement => textAgreement(table, 'the apiserver');

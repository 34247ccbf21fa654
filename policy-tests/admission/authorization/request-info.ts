/**
 * What the API server makes of a request before it authorizes it: k8s.io/apiserver's RequestInfoFactory.NewRequestInfo
 * (pkg/endpoints/request/requestinfo.go, v0.36), with the prefixes the API server configures (`api` without a group,
 * `apis` with one). A path under them with a version and a resource is a resource request (its verb from the HTTP
 * method and the path: a GET without a name is a list or a watch, a DELETE without one a deletecollection, a list or
 * watch of `metadata.name=<x>` names x); anything else is a non-resource request, its verb the method in lower case.
 */
export interface ResourceRequestInfo {
  isResourceRequest: true;
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  parts: string[];
  fieldSelector: string;
  labelSelector: string;
}

export interface NonResourceRequestInfo {
  isResourceRequest: false;
  verb: string;
  path: string;
}

export type RequestInfo = ResourceRequestInfo | NonResourceRequestInfo;

const API_PREFIXES: ReadonlySet<string> = new Set(['api', 'apis']);
const GROUPLESS_PREFIXES: ReadonlySet<string> = new Set(['api']);
// Verbs written into the path (`/api/v1/watch/pods`), and of them the one after which no part is a subresource.
const SPECIAL_VERBS: ReadonlySet<string> = new Set(['proxy', 'watch']);
const SPECIAL_VERBS_NO_SUBRESOURCES: ReadonlySet<string> = new Set(['proxy']);
// A namespace's own subresources, which are not a namespaced resource's name.
const NAMESPACE_SUBRESOURCES: ReadonlySet<string> = new Set(['status', 'finalize']);
const VERBS_WITH_SELECTORS: ReadonlySet<string> = new Set(['list', 'watch', 'deletecollection']);
const METHOD_VERBS: Readonly<Record<string, string>> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** splitPath: the path's segments, its outer slashes trimmed. */
const splitPath = (path: string): string[] => {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? [] : trimmed.split('/');
};

/** fields.UnescapeValue: `\\`, `\,` and `\=` unescaped; any other escape, or a bare `,` or `=`, refused (undefined). */
function unescapeValue(text: string): string | undefined {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === ',' || c === '=') return undefined;
    if (c !== '\\') out += c;
    else if (['\\', ',', '='].includes(text[i + 1] ?? '')) out += text[++i];
    else return undefined;
  }
  return out;
}

/**
 * fields.ParseSelector's terms (`a=b,c!=d`, split at each unescaped comma, each at its first operator), or undefined
 * where it refuses the text: a term without an operator, a value that does not unescape.
 */
function selectorTerms(text: string): { field: string; op: string; value: string }[] | undefined {
  const terms: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) current += c + text[++i];
    else if (c !== ',') current += c;
    else {
      terms.push(current);
      current = '';
    }
  }
  terms.push(current);
  const out: { field: string; op: string; value: string }[] = [];
  for (const term of terms) {
    if (term === '') continue;
    const m = /^(.*?)(!=|==|=)(.*)$/s.exec(term);
    const value = m && unescapeValue(m[3]!);
    if (value === undefined || value === null) return undefined;
    out.push({ field: m![1]!, op: m![2]!, value });
  }
  return out;
}

/** Selector.RequiresExactMatch("metadata.name"): the name a field selector pins with = or ==, if it parses. */
function exactName(fieldSelector: string): string | undefined {
  const terms = selectorTerms(fieldSelector);
  return terms?.find((t) => t.field === 'metadata.name' && (t.op === '=' || t.op === '=='))?.value;
}

/** path.IsValidPathSegmentName: a name that can stand in a URL path. */
const isPathSegmentName = (name: string): boolean => name !== '.' && name !== '..' && !/[/%]/.test(name);

/** The query's values by key, as Go's url.Query reads them. */
function queryOf(url: string): Map<string, string[]> {
  const query = new Map<string, string[]>();
  const at = url.indexOf('?');
  if (at < 0) return query;
  for (const [key, value] of new URLSearchParams(url.slice(at + 1))) query.set(key, [...(query.get(key) ?? []), value]);
  return query;
}

/** NewRequestInfo for a method and a URL (a path, with its query if any). */
export function requestInfo(method: string, url: string): RequestInfo {
  const path = url.split('?')[0]!;
  const nonResource: NonResourceRequestInfo = { isResourceRequest: false, verb: method.toLowerCase(), path };
  let parts = splitPath(path);
  if (parts.length < 3 || !API_PREFIXES.has(parts[0]!)) return nonResource;
  const apiPrefix = parts[0]!;
  parts = parts.slice(1);
  let apiGroup = '';
  if (!GROUPLESS_PREFIXES.has(apiPrefix)) {
    // One part (the prefix) is taken: this asks for four.
    if (parts.length < 3) return nonResource;
    apiGroup = parts[0]!;
    parts = parts.slice(1);
  }
  const apiVersion = parts[0]!;
  parts = parts.slice(1);
  const info: ResourceRequestInfo = {
    isResourceRequest: true,
    verb: METHOD_VERBS[method] ?? '',
    apiPrefix,
    apiGroup,
    apiVersion,
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
    fieldSelector: '',
    labelSelector: '',
  };
  const verbInPath = SPECIAL_VERBS.has(parts[0]!);
  if (verbInPath) {
    // Upstream returns what it has with an error here; the request goes no further.
    if (parts.length < 2) return { ...info, verb: parts[0]! };
    info.verb = parts[0]!;
    parts = parts.slice(1);
  }
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1]!;
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2]!)) parts = parts.slice(2);
    }
  }
  info.parts = parts;
  if (parts.length >= 3 && !SPECIAL_VERBS_NO_SUBRESOURCES.has(info.verb)) info.subresource = parts[2]!;
  if (parts.length >= 2) info.name = parts[1]!;
  if (parts.length >= 1) info.resource = parts[0]!;
  const query = queryOf(url);
  if (info.name === '' && info.verb === 'get') listOrWatch(info, query);
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  // A verb written into the path takes no selector (its single-object watch has none).
  if (!verbInPath && VERBS_WITH_SELECTORS.has(info.verb)) {
    info.fieldSelector = query.get('fieldSelector')?.[0] ?? '';
    info.labelSelector = query.get('labelSelector')?.[0] ?? '';
  }
  return info;
}

/**
 * A GET without a name: a watch where `watch` is set to anything but false or 0, else a list; its name the one a
 * field selector pins, where the list options decode (a selector that does not parse names nothing).
 */
function listOrWatch(info: ResourceRequestInfo, query: Map<string, string[]>): void {
  const watch = query.get('watch')?.[0];
  info.verb = watch !== undefined && !['false', '0'].includes(watch.toLowerCase()) ? 'watch' : 'list';
  const selector = query.get('fieldSelector')?.[0];
  const name = selector === undefined ? undefined : exactName(selector);
  if (name !== undefined && isPathSegmentName(name)) info.name = name;
}

/**
 * What the API server refuses of a CustomResourceDefinition beyond its schema's structure, rules and list types
 * (k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go, as on a create of an
 * apiextensions.k8s.io/v1 object after its defaults: a singular name of the kind in lower case, a list kind of the
 * kind and "List", conversion None): the group, the scope, the versions (names, one storage version, a schema each,
 * deprecation warnings, the scale subresource's paths, printer columns, selectable fields), the names, conversion,
 * `preserveUnknownFields`, and the approval a protected group needs. Each in field.Error's words, at the path of the
 * v1 field it names (the API server spells a few of them by its internal names: `spec.conversion.webhookClientConfig`).
 */
import { isMap, list, obj, str } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import { forbidden, invalid, required, unsupported, type SchemaProblem } from './crd-list-types.ts';
import { dns1035Label, dns1123Subdomain, tooMany } from './syntax.ts';

type Node = Record<string, unknown>;

const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];
/** MaxSelectableFields. */
const MAX_SELECTABLE_FIELDS = 8;
const APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';
const APPROVAL_PR = 'see https://github.com/kubernetes/enhancements/pull/1111';

/** validateSimpleJSONPath, then the prefix the field needs. */
function jsonPathProblems(at: PathSegment[], path: string, prefixes: readonly string[], under: string): SchemaProblem[] {
  if (path === '') return [invalid(at, path, 'must not be empty')];
  if (!path.startsWith('.')) return [invalid(at, path, 'must be a simple json path starting with .')];
  return prefixes.length && !prefixes.some((p) => path.startsWith(p)) ? [invalid(at, path, `should be a json path under ${under}`)] : [];
}

/** ValidateCustomResourceDefinitionSubresources: the scale subresource's replica and selector paths. */
function scaleProblems(scale: unknown, at: PathSegment[]): SchemaProblem[] {
  if (!isMap(scale)) return [];
  const out: SchemaProblem[] = [];
  const pathOf = (key: string, prefixes: string[], under: string, optional = false) => {
    const value = str(scale[key]);
    if (value === '') {
      if (!optional) out.push(required([...at, key], ''));
    } else out.push(...jsonPathProblems([...at, key], value, prefixes, under));
  };
  pathOf('specReplicasPath', ['.spec.'], '.spec');
  pathOf('statusReplicasPath', ['.status.'], '.status');
  pathOf('labelSelectorPath', ['.spec.', '.status.'], 'either .spec or .status', true);
  return out;
}

/** ValidateCustomResourceColumnDefinition. */
function columnProblems(column: Node, at: PathSegment[]): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  if (str(column.name) === '') out.push(required([...at, 'name'], ''));
  const types = `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`;
  if (str(column.type) === '') out.push(required([...at, 'type'], types));
  else if (!PRINTER_COLUMN_TYPES.includes(str(column.type))) out.push(invalid([...at, 'type'], column.type, types));
  if (str(column.format) !== '' && !PRINTER_COLUMN_FORMATS.includes(str(column.format)))
    out.push(invalid([...at, 'format'], column.format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`));
  if (str(column.jsonPath) === '') out.push(required([...at, 'jsonPath'], ''));
  else out.push(...jsonPathProblems([...at, 'jsonPath'], str(column.jsonPath), [], ''));
  return out;
}

/**
 * ValidateCustomResourceSelectableFields: each a path to a string, boolean or integer field outside metadata, once,
 * at most eight. A path in bracket notation is not read here: said not judged.
 */
function selectableFieldProblems(fields: unknown[], schema: unknown, at: PathSegment[]): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const where = [...at, i, 'jsonPath'];
    const path = str(obj(f).jsonPath);
    if (path === '') return void out.push(required(where, ''));
    if (!/^(\.[A-Za-z_][A-Za-z0-9_-]*)+$/.test(path))
      return void out.push({ at: where, detail: `${JSON.stringify(path)}: a path this gate does not read (only .a.b)`, notJudged: true });
    const names = path.slice(1).split('.');
    let node: unknown = schema;
    for (const name of names) node = isMap(node) && isMap(node.properties) ? node.properties[name] : undefined;
    if (node === undefined) out.push(invalid(where, path, `is an invalid path: does not refer to a valid field`));
    else {
      if (names[0] === 'metadata') out.push(invalid(where, path, 'must not point to fields in metadata'));
      if (!['string', 'boolean', 'integer'].includes(str(obj(node).type)))
        out.push(invalid(where, path, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    if (seen.has(path)) out.push({ at: where, detail: `Duplicate value: ${JSON.stringify(path)}` });
    seen.add(path);
  });
  if (seen.size > MAX_SELECTABLE_FIELDS) out.push({ at, detail: tooMany(seen.size, MAX_SELECTABLE_FIELDS) });
  return out;
}

/** validateDeprecationWarning. */
function deprecationProblems(version: Node, at: PathSegment[]): SchemaProblem[] {
  const warning = version.deprecationWarning;
  if (warning === undefined || warning === null) return [];
  const where = [...at, 'deprecationWarning'];
  if (version.deprecated !== true) return [invalid(where, warning, 'can only be set for deprecated versions')];
  const text = String(warning as string);
  const out: SchemaProblem[] = [];
  // Go's len counts bytes.
  if (Buffer.byteLength(text) > 256) out.push(invalid(where, text, 'must be <= 256 characters long'));
  if (text.length === 0) out.push(invalid(where, text, 'must not be an empty string'));
  // unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space; Go counts the index in bytes.
  const bad = /[^\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.exec(text);
  if (bad)
    out.push(
      invalid(
        where,
        text,
        `must only contain printable UTF-8 characters; non-printable character found at index ${Buffer.byteLength(text.slice(0, bad.index))}`,
      ),
    );
  return out;
}

/** The versions: names, one storage version, a schema each, and what each version's subresources and columns hold. */
function versionProblems(spec: Node): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const versions = list(spec.versions) as unknown[];
  const names: string[] = [];
  let storage = 0;
  versions.forEach((v, i) => {
    const version = obj(v);
    const at: PathSegment[] = ['spec', 'versions', i];
    const name = str(version.name);
    names.push(name);
    if (version.storage === true) storage++;
    const bad = dns1035Label(name);
    if (bad) out.push(invalid([...at, 'name'], name, bad));
    const schema = obj(version.schema).openAPIV3Schema;
    if (!isMap(schema)) out.push(required([...at, 'schema', 'openAPIV3Schema'], ''));
    out.push(...deprecationProblems(version, at));
    out.push(...scaleProblems(obj(version.subresources).scale, [...at, 'subresources', 'scale']));
    (list(version.additionalPrinterColumns) as unknown[]).forEach((c, j) => out.push(...columnProblems(obj(c), [...at, 'additionalPrinterColumns', j])));
    const selectable = list(version.selectableFields) as unknown[];
    if (selectable.length > 0 && !isMap(schema))
      out.push(invalid([...at, 'selectableFields'], '', 'selectableFields may only be set when version.schema.openAPIV3Schema is not included'));
    else if (selectable.length > 0) out.push(...selectableFieldProblems(selectable, schema, [...at, 'selectableFields']));
  });
  if (new Set(names).size !== names.length)
    out.push({ at: ['spec', 'versions'], detail: `Invalid value: [${names.join(' ')}]: must contain unique version names` });
  if (storage !== 1) out.push({ at: ['spec', 'versions'], detail: 'Invalid value: must have exactly one version marked as storage version' });
  return out;
}

/** ValidateCustomResourceDefinitionNames, after the v1 defaults, with plural and kind required. */
function nameProblems(spec: Node): SchemaProblem[] {
  const names = obj(spec.names);
  const at: PathSegment[] = ['spec', 'names'];
  const [plural, kind] = [str(names.plural), str(names.kind)];
  const singular = str(names.singular) || kind.toLowerCase();
  const listKind = str(names.listKind) || (kind ? `${kind}List` : '');
  const out: SchemaProblem[] = [];
  if (plural === '') out.push(required([...at, 'plural'], ''));
  if (kind === '') out.push(required([...at, 'kind'], ''));
  const label = (key: string, value: string, lowered = false, prefix = '') => {
    const bad = value === '' ? undefined : dns1035Label(lowered ? value.toLowerCase() : value);
    if (bad) out.push(invalid([...at, key], value, `${prefix}${bad}`));
  };
  label('plural', plural);
  label('singular', singular);
  label('kind', kind, true, 'may have mixed case, but should otherwise match: ');
  label('listKind', listKind, true, 'may have mixed case, but should otherwise match: ');
  for (const key of ['shortNames', 'categories'] as const)
    (list(names[key]) as unknown[]).forEach((n, i) => {
      const bad = dns1035Label(str(n));
      if (bad) out.push(invalid([...at, key, i], n, bad));
    });
  if (kind !== '' && kind === listKind) out.push(invalid([...at, 'listKind'], listKind, 'kind and listKind may not be the same'));
  return out;
}

/** validateCustomResourceConversion, as the v1 fields carry it (conversion.webhook.clientConfig and conversionReviewVersions). */
function conversionProblems(spec: Node): SchemaProblem[] {
  const conversion = isMap(spec.conversion) ? spec.conversion : { strategy: 'None' };
  const at: PathSegment[] = ['spec', 'conversion'];
  const strategy = str(conversion.strategy);
  const webhook = isMap(conversion.webhook) ? conversion.webhook : undefined;
  if (strategy === '') return [required([...at, 'strategy'], '')];
  if (strategy !== 'Webhook' && strategy !== 'None') return [unsupported([...at, 'strategy'], strategy, ['None', 'Webhook'])];
  if (strategy === 'None') {
    // The v1 webhook block converts to the two fields the API server forbids under None; an empty one sets neither.
    const notUnderNone = 'should not be set when strategy is not set to Webhook';
    return [
      ...(webhook && isMap(webhook.clientConfig) ? [forbidden([...at, 'webhook', 'clientConfig'], notUnderNone)] : []),
      ...(webhook && list(webhook.conversionReviewVersions).length > 0 ? [forbidden([...at, 'webhook', 'conversionReviewVersions'], notUnderNone)] : []),
    ];
  }
  const out: SchemaProblem[] = [];
  const client = webhook && isMap(webhook.clientConfig) ? webhook.clientConfig : undefined;
  if (!client) out.push(required([...at, 'webhook', 'clientConfig'], 'required when strategy is set to Webhook'));
  else out.push(...clientConfigProblems(client, [...at, 'webhook', 'clientConfig']));
  const reviews = (list(webhook?.conversionReviewVersions) as unknown[]).map(str);
  const where: PathSegment[] = [...at, 'webhook', 'conversionReviewVersions'];
  if (reviews.length === 0) return [...out, required(where, '')];
  reviews.forEach((v, i) => {
    if (reviews.indexOf(v) !== i) return void out.push(invalid([...where, i], v, 'duplicate version'));
    const bad = dns1035Label(v);
    if (bad) out.push(invalid([...where, i], v, bad));
  });
  if (!reviews.some((v) => CONVERSION_REVIEW_VERSIONS.includes(v)))
    out.push({ at: where, detail: `Invalid value: [${reviews.join(' ')}]: must include at least one of ${CONVERSION_REVIEW_VERSIONS.join(', ')}` });
  return out;
}

/** webhook.ValidateWebhookURL (https only) or ValidateWebhookService: exactly one of the two. */
function clientConfigProblems(client: Node, at: PathSegment[]): SchemaProblem[] {
  const { url, service } = client;
  if ((url === undefined) === (service === undefined)) return [required(at, 'exactly one of url or service is required')];
  if (typeof url === 'string') return urlProblems(url, [...at, 'url']);
  const svc = obj(service);
  const out: SchemaProblem[] = [];
  for (const key of ['name', 'namespace'] as const) if (str(svc[key]) === '') out.push(required([...at, 'service', key], `service ${key} is required`));
  // The v1 default port is 443.
  const port = svc.port ?? 443;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
    out.push(invalid([...at, 'service', 'port'], port, 'port is not valid: must be between 1 and 65535, inclusive'));
  return [...out, ...servicePathProblems(str(svc.path), [...at, 'service', 'path'])];
}

/**
 * ValidateWebhookURL with https forced: an https scheme and a host, no user, fragment or query, each refusal naming
 * the part it refuses. What WHATWG's URL cannot read, Go's url.Parse reads as a path: no scheme, no host.
 */
function urlProblems(url: string, at: PathSegment[]): SchemaProblem[] {
  const form = '; desired format: https://host[/path]';
  const u = URL.canParse(url) ? new URL(url) : undefined;
  const scheme = u ? u.protocol.replace(/:$/, '') : (/^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1] ?? '');
  const out: SchemaProblem[] = [];
  if (scheme !== 'https') out.push(invalid(at, scheme, `'https' is the only allowed URL scheme${form}`));
  if (!u || u.host === '') out.push(invalid(at, '', `host must be specified${form}`));
  if (u?.username || u?.password) out.push(invalid(at, `${u.username}${u.password ? ':***' : ''}`, 'user information is not permitted in the URL'));
  if (u?.hash) out.push(invalid(at, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u?.search) out.push(invalid(at, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return out;
}

/** ValidateWebhookService's path: "/" or none, else a "/" and segments that are each a DNS subdomain. */
function servicePathProblems(path: string, at: PathSegment[]): SchemaProblem[] {
  if (path === '' || path === '/') return [];
  if (path === '//') return [invalid(at, path, 'segment[0] may not be empty')];
  if (!path.startsWith('/')) return [invalid(at, path, "must start with a '/'")];
  const steps = path.slice(1).replace(/\/$/, '').split('/');
  return steps.flatMap((step, i) => {
    if (step === '') return [invalid(at, path, `segment[${i}] may not be empty`)];
    const bad = dns1123Subdomain(step);
    return bad ? [invalid(at, path, `segment[${i}]: ${bad}`)] : [];
  });
}

/** IsProtectedCommunityGroup: k8s.io and kubernetes.io and their subdomains. */
const isProtectedGroup = (group: string): boolean => ['k8s.io', 'kubernetes.io'].some((d) => group === d || group.endsWith(`.${d}`));

/** validateAPIApproval on a create: a protected group's CRD names its approval (a URL) or says it is "unapproved...". */
function approvalProblems(o: Node, group: string): SchemaProblem[] {
  if (!isProtectedGroup(group)) return [];
  const annotations = obj(obj(o.metadata).annotations);
  const value = str(annotations[APPROVAL_ANNOTATION]);
  const at: PathSegment[] = ['metadata', 'annotations', APPROVAL_ANNOTATION];
  if (value === '') return [required(at, `protected groups must have approval annotation "${APPROVAL_ANNOTATION}", ${APPROVAL_PR}`)];
  // url.ParseRequestURI: an absolute URI, or an absolute path.
  if (value.startsWith('unapproved') || value.startsWith('/') || /^[A-Za-z][A-Za-z0-9+.-]*:\S/.test(value)) return [];
  return [
    invalid(
      at,
      value,
      `protected groups must have approval annotation "${APPROVAL_ANNOTATION}" with either a URL or a reason starting with "unapproved", ${APPROVAL_PR}`,
    ),
  ];
}

/** Everything validation.go refuses of the CRD object beyond its schemas' contents (crd-schema-fields.ts, crd-structural.ts). */
export function definitionProblems(o: Node): SchemaProblem[] {
  const spec = obj(o.spec);
  const out: SchemaProblem[] = [];
  const group = str(spec.group);
  const badGroup = group === '' ? undefined : dns1123Subdomain(group);
  if (group === '') out.push(required(['spec', 'group'], ''));
  else if (badGroup) out.push(invalid(['spec', 'group'], group, badGroup));
  else if (group.split('.').length < 2) out.push(invalid(['spec', 'group'], group, 'should be a domain with at least one dot'));
  const scope = str(spec.scope);
  if (scope === '') out.push(required(['spec', 'scope'], ''));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') out.push(unsupported(['spec', 'scope'], scope, ['Cluster', 'Namespaced']));
  out.push(...versionProblems(spec), ...nameProblems(spec), ...conversionProblems(spec), ...approvalProblems(o, group));
  if (spec.preserveUnknownFields === true)
    out.push(
      invalid(
        ['spec', 'preserveUnknownFields'],
        true,
        'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
      ),
    );
  return out;
}

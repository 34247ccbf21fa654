/**
 * The functions the API server's CEL environment declares, by the Kubernetes
 * version that introduced them (k8s.io/apiserver/pkg/cel/environment/base.go
 * and library/library_compatibility_test.go at the cluster's line). A rule
 * that calls a name outside this list is refused when its CRD is created
 * ("undeclared reference"); a name inside it that the gate's evaluator lacks
 * is not judged, never refused.
 */

/** The accessors of a timestamp (and, from getHours on, of a duration). */
export const TIME_ACCESSORS = [
  'getFullYear',
  'getMonth',
  'getDayOfYear',
  'getDayOfMonth',
  'getDate',
  'getDayOfWeek',
  'getHours',
  'getMinutes',
  'getSeconds',
  'getMilliseconds',
] as const;

/**
 * The authorizer library (1.27; its errors 1.28, its selectors 1.31): what an admission policy's `authorizer`
 * variable offers. A CRD's rules declare no such variable.
 */
export const AUTHORIZER_FUNCTIONS = [
  'path',
  'group',
  'serviceAccount',
  'resource',
  'subresource',
  'namespace',
  'name',
  'check',
  'allowed',
  'reason',
  'authorizer',
  'errored',
  'error',
  'fieldSelector',
  'labelSelector',
] as const;

/** [introduced in 1.x, names]: the Kubernetes libraries and the cel-go extensions base.go enables. */
const DECLARED: readonly [number, readonly string[]][] = [
  // cel-go's standard functions and macros.
  [
    0,
    [
      'has',
      'all',
      'exists',
      'exists_one',
      'existsOne',
      'map',
      'filter',
      'size',
      'contains',
      'startsWith',
      'endsWith',
      'matches',
      'int',
      'uint',
      'double',
      'string',
      'bytes',
      'bool',
      'duration',
      'timestamp',
      'type',
      'dyn',
      ...TIME_ACCESSORS,
    ],
  ],
  // Kubernetes 1.24: lists, regex, URLs.
  [
    24,
    [
      'isSorted',
      'sum',
      'max',
      'min',
      'indexOf',
      'lastIndexOf',
      'find',
      'findAll',
      'url',
      'getScheme',
      'getHost',
      'getHostname',
      'getPort',
      'getEscapedPath',
      'getQuery',
      'isURL',
    ],
  ],
  // 1.27: the authorizer.
  [27, AUTHORIZER_FUNCTIONS.slice(0, 11)],
  // 1.28: authorizer errors, optional types, quantities.
  [
    28,
    [
      'errored',
      'error',
      'optional.of',
      'optional.ofNonZeroValue',
      'optional.none',
      'hasValue',
      'value',
      'or',
      'orValue',
      'optMap',
      'optFlatMap',
      'add',
      'asApproximateFloat',
      'asInteger',
      'compareTo',
      'isGreaterThan',
      'isInteger',
      'isLessThan',
      'isQuantity',
      'quantity',
      'sign',
      'sub',
    ],
  ],
  // 1.29: the strings extension (version 2) and sets.
  [
    29,
    [
      'charAt',
      'indexOf',
      'lastIndexOf',
      'lowerAscii',
      'upperAscii',
      'replace',
      'split',
      'substring',
      'trim',
      'join',
      'strings.quote',
      'format',
      'reverse',
      'sets.contains',
      'sets.equivalent',
      'sets.intersects',
    ],
  ],
  // 1.30: IPs and CIDRs.
  [
    30,
    [
      'ip',
      'family',
      'isUnspecified',
      'isLoopback',
      'isLinkLocalMulticast',
      'isLinkLocalUnicast',
      'isGlobalUnicast',
      'ip.isCanonical',
      'isIP',
      'cidr',
      'containsIP',
      'containsCIDR',
      'masked',
      'prefixLength',
      'isCIDR',
    ],
  ],
  // 1.31: named formats and the authorizer's selectors.
  [31, ['format.named', 'validate', 'fieldSelector', 'labelSelector']],
  // 1.32: two-variable comprehensions.
  [32, ['transformList', 'transformMap', 'transformMapEntry', 'jsonpatch.escapeKey']],
  // 1.33: semantic versions.
  [33, ['semver', 'isSemver', 'major', 'minor', 'patch', 'isGreaterThan', 'isLessThan', 'compareTo']],
  // 1.34: the lists extension (version 3).
  [34, ['lists.range', 'slice', 'flatten', 'distinct', 'reverse', 'sort', 'sortBy', 'first', 'last']],
];

/** Names a function is called through (`sets.contains(a, b)`): a call on one of these is known by both parts. */
export const FUNCTION_NAMESPACES: ReadonlySet<string> = new Set(['sets', 'lists', 'optional', 'strings', 'format', 'ip', 'math', 'base64', 'jsonpatch']);

/** Every function name the API server declares at this minor version of Kubernetes 1. */
export function declaredFunctions(minor: number): ReadonlySet<string> {
  const out = new Set<string>();
  for (const [since, names] of DECLARED) if (since <= minor) for (const n of names) out.add(n);
  return out;
}

/** The cluster's Kubernetes line the gate judges CEL at (the facts' version; docs/admission.md). */
export const CEL_KUBERNETES_MINOR = 36;

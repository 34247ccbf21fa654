/**
 * The overloads cel-go's checker chooses between, with the ids it records
 * (common/overloads/overloads.go, checker/decls), for the functions of the
 * API server's CEL environment at CRD create: the standard library, the
 * string extensions, and Kubernetes' libraries (lists, regex, URLs,
 * quantities, semver, IPs and CIDRs, formats). A signature reads
 * `id params:result`; a member overload's first parameter is its receiver
 * and its id starts with '.'; A and B are type parameters. The cost
 * estimator needs the ids: several functions cost by their overload.
 */
import { TIME_ACCESSORS } from './environment.ts';

const NUMERIC = ['int64', 'uint64', 'double'] as const;
const CEL_NAME: Record<string, string> = { int64: 'int', uint64: 'uint', double: 'double' };
const each = (f: (go: string, cel: string) => string): string[] => NUMERIC.map((n) => f(n, CEL_NAME[n]!));
const ORDERED: [string, string][] = [
  ['bool', 'bool'],
  ['int64', 'int'],
  ['uint64', 'uint'],
  ['double', 'double'],
  ['string', 'string'],
  ['bytes', 'bytes'],
  ['timestamp', 'timestamp'],
  ['duration', 'duration'],
  ['int64_uint64', 'int,uint'],
  ['int64_double', 'int,double'],
  ['uint64_int64', 'uint,int'],
  ['uint64_double', 'uint,double'],
  ['double_int64', 'double,int'],
  ['double_uint64', 'double,uint'],
];
const comparison = (name: string): string[] => ORDERED.map(([go, cel]) => `${name}_${go} ${cel.includes(',') ? cel : `${cel},${cel}`}:bool`);

/** The lists extension's comparable element types: cel-go's type name (in the overload id) and the CEL type. */
const SORTABLE = [
  ['int', 'int'],
  ['uint', 'uint'],
  ['double', 'double'],
  ['bool', 'bool'],
  ['google.protobuf.Duration', 'duration'],
  ['google.protobuf.Timestamp', 'timestamp'],
  ['string', 'string'],
  ['bytes', 'bytes'],
] as const;

const SIGNATURES: Record<string, string[]> = {
  '_+_': [
    ...each((go, cel) => `add_${go} ${cel},${cel}:${cel}`),
    'add_string string,string:string',
    'add_bytes bytes,bytes:bytes',
    'add_list list(A),list(A):list(A)',
    'add_timestamp_duration timestamp,duration:timestamp',
    'add_duration_timestamp duration,timestamp:timestamp',
    'add_duration_duration duration,duration:duration',
  ],
  '_-_': [
    ...each((go, cel) => `subtract_${go} ${cel},${cel}:${cel}`),
    'subtract_timestamp_timestamp timestamp,timestamp:duration',
    'subtract_timestamp_duration timestamp,duration:timestamp',
    'subtract_duration_duration duration,duration:duration',
  ],
  '_*_': each((go, cel) => `multiply_${go} ${cel},${cel}:${cel}`),
  '_/_': each((go, cel) => `divide_${go} ${cel},${cel}:${cel}`),
  '_%_': ['modulo_int64 int,int:int', 'modulo_uint64 uint,uint:uint'],
  '-_': ['negate_int64 int:int', 'negate_double double:double'],
  '!_': ['logical_not bool:bool'],
  '_&&_': ['logical_and bool,bool:bool'],
  '_||_': ['logical_or bool,bool:bool'],
  '_?_:_': ['conditional bool,A,A:A'],
  '_==_': ['equals A,A:bool'],
  '_!=_': ['not_equals A,A:bool'],
  '_<_': comparison('less'),
  '_<=_': comparison('less_equals'),
  '_>_': comparison('greater'),
  '_>=_': comparison('greater_equals'),
  '_[_]': ['index_list list(A),int:A', 'index_map map(A,B),A:B'],
  '@in': ['in_list A,list(A):bool', 'in_map A,map(A,B):bool'],
  '@not_strictly_false': ['not_strictly_false bool:bool'],
  size: [
    'size_string string:int',
    'size_bytes bytes:int',
    'size_list list(A):int',
    'size_map map(A,B):int',
    '.string_size string:int',
    '.bytes_size bytes:int',
    '.list_size list(A):int',
    '.map_size map(A,B):int',
  ],
  int: ['int64_to_int64 int:int', 'uint64_to_int64 uint:int', 'double_to_int64 double:int', 'string_to_int64 string:int', 'timestamp_to_int64 timestamp:int'],
  uint: ['uint64_to_uint64 uint:uint', 'int64_to_uint64 int:uint', 'double_to_uint64 double:uint', 'string_to_uint64 string:uint'],
  double: ['double_to_double double:double', 'int64_to_double int:double', 'uint64_to_double uint:double', 'string_to_double string:double'],
  string: [
    'string_to_string string:string',
    'int64_to_string int:string',
    'uint64_to_string uint:string',
    'double_to_string double:string',
    'bytes_to_string bytes:string',
    'bool_to_string bool:string',
    'timestamp_to_string timestamp:string',
    'duration_to_string duration:string',
  ],
  bytes: ['bytes_to_bytes bytes:bytes', 'string_to_bytes string:bytes'],
  bool: ['bool_to_bool bool:bool', 'string_to_bool string:bool'],
  duration: ['duration_to_duration duration:duration', 'string_to_duration string:duration'],
  timestamp: ['timestamp_to_timestamp timestamp:timestamp', 'string_to_timestamp string:timestamp', 'int64_to_timestamp int:timestamp'],
  dyn: ['dyn A:dyn'],
  type: ['type A:type'],
  matches: ['matches string,string:bool', '.matches_string string,string:bool'],
  contains: ['.contains_string string,string:bool'],
  startsWith: ['.starts_with_string string,string:bool'],
  endsWith: ['.ends_with_string string,string:bool'],
  ...Object.fromEntries(
    TIME_ACCESSORS.map((part) => [
      part,
      [
        `.timestamp_to_${part} timestamp:int`,
        `.timestamp_to_${part}_with_tz timestamp,string:int`,
        ...(['getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'].includes(part) ? [`.duration_to_${part} duration:int`] : []),
      ],
    ]),
  ),
  // The string extensions (cel-go ext/strings.go) at the version the API server declares.
  charAt: ['.string_char_at_int string,int:string'],
  indexOf: ['.string_index_of_string string,string:int', '.string_index_of_string_int string,string,int:int', '.list_a_index_of_int list(A),A:int'],
  lastIndexOf: [
    '.string_last_index_of_string string,string:int',
    '.string_last_index_of_string_int string,string,int:int',
    '.list_a_last_index_of_int list(A),A:int',
  ],
  lowerAscii: ['.string_lower_ascii string:string'],
  upperAscii: ['.string_upper_ascii string:string'],
  replace: ['.string_replace_string_string string,string,string:string', '.string_replace_string_string_int string,string,string,int:string'],
  split: ['.string_split_string string,string:list(string)', '.string_split_string_int string,string,int:list(string)'],
  substring: ['.string_substring_int string,int:string', '.string_substring_int_int string,int,int:string'],
  trim: ['.string_trim string:string'],
  join: ['.list_join list(string):string', '.list_join_string list(string),string:string'],
  format: ['.string_format string,list(dyn):string'],
  reverse: ['.string_reverse string:string', '.list_reverse list(A):list(A)'],
  // The lists extension at version 3 (cel-go ext/lists.go).
  slice: ['.list_slice list(A),int,int:list(A)'],
  flatten: ['.list_flatten list(list(A)):list(A)', '.list_flatten_int list(dyn),int:list(dyn)'],
  'lists.range': ['lists_range int:list(int)'],
  distinct: ['.list_distinct list(A):list(A)'],
  // The optional library's (cel-go cel/library.go, version 2).
  first: ['.list_first list(A):optional_type(A)'],
  last: ['.list_last list(A):optional_type(A)'],
  sort: SORTABLE.map(([name, cel]) => `.list_${name}_sort list(${cel}):list(${cel})`),
  // sortBy's expansion sorts the list by the keys its map made (ext/lists.go sortByMacro).
  '@sortByAssociatedKeys': SORTABLE.map(([name, cel]) => `.list_${name}_sortByAssociatedKeys list(A),list(${cel}):list(A)`),
  'strings.quote': ['strings_quote string:string'],
  // Kubernetes' libraries (k8s.io/apiserver pkg/cel/library).
  isSorted: ['.list_is_sorted list(A):bool'],
  sum: ['.list_sum list(A):A'],
  max: ['.list_max list(A):A'],
  min: ['.list_min list(A):A'],
  find: ['.string_find_string string,string:string'],
  findAll: ['.string_find_all_string string,string:list(string)', '.string_find_all_string_int string,string,int:list(string)'],
  url: ['string_to_url string:kubernetes.URL'],
  isURL: ['is_url_string string:bool'],
  getScheme: ['.url_get_scheme kubernetes.URL:string'],
  getHost: ['.url_get_host kubernetes.URL:string'],
  getHostname: ['.url_get_hostname kubernetes.URL:string'],
  getPort: ['.url_get_port kubernetes.URL:string'],
  getEscapedPath: ['.url_get_escaped_path kubernetes.URL:string'],
  getQuery: ['.url_get_query kubernetes.URL:map(string,list(string))'],
  quantity: ['string_to_quantity string:kubernetes.Quantity'],
  isQuantity: ['is_quantity_string string:bool'],
  sign: ['.quantity_sign kubernetes.Quantity:int'],
  isInteger: ['.quantity_is_integer kubernetes.Quantity:bool'],
  asInteger: ['.quantity_as_integer kubernetes.Quantity:int'],
  asApproximateFloat: ['.quantity_as_float kubernetes.Quantity:double'],
  add: ['.quantity_add kubernetes.Quantity,kubernetes.Quantity:kubernetes.Quantity', '.quantity_add_int kubernetes.Quantity,int:kubernetes.Quantity'],
  sub: ['.quantity_sub kubernetes.Quantity,kubernetes.Quantity:kubernetes.Quantity', '.quantity_sub_int kubernetes.Quantity,int:kubernetes.Quantity'],
  isGreaterThan: ['.quantity_is_greater_than kubernetes.Quantity,kubernetes.Quantity:bool', '.semver_is_greater_than kubernetes.Semver,kubernetes.Semver:bool'],
  isLessThan: ['.quantity_is_less_than kubernetes.Quantity,kubernetes.Quantity:bool', '.semver_is_less_than kubernetes.Semver,kubernetes.Semver:bool'],
  compareTo: ['.quantity_compare_to kubernetes.Quantity,kubernetes.Quantity:int', '.semver_compare_to kubernetes.Semver,kubernetes.Semver:int'],
  semver: ['string_to_semver string:kubernetes.Semver', 'string_bool_to_semver string,bool:kubernetes.Semver'],
  isSemver: ['is_semver string:bool', 'is_semver_normalizing string,bool:bool'],
  major: ['.semver_major kubernetes.Semver:int'],
  minor: ['.semver_minor kubernetes.Semver:int'],
  patch: ['.semver_patch kubernetes.Semver:int'],
  ip: ['string_to_ip string:net.IP', 'cidr_ip net.CIDR:net.IP'],
  isIP: ['is_ip string:bool'],
  'ip.isCanonical': ['ip_is_canonical string:bool'],
  family: ['.ip_family net.IP:int'],
  isUnspecified: ['.ip_is_unspecified net.IP:bool'],
  isLoopback: ['.ip_is_loopback net.IP:bool'],
  isLinkLocalMulticast: ['.ip_is_link_local_multicast net.IP:bool'],
  isLinkLocalUnicast: ['.ip_is_link_local_unicast net.IP:bool'],
  isGlobalUnicast: ['.ip_is_global_unicast net.IP:bool'],
  cidr: ['string_to_cidr string:net.CIDR'],
  isCIDR: ['is_cidr string:bool'],
  containsIP: ['.cidr_contains_ip_string net.CIDR,string:bool', '.cidr_contains_ip_ip net.CIDR,net.IP:bool'],
  containsCIDR: ['.cidr_contains_cidr_string net.CIDR,string:bool', '.cidr_contains_cidr net.CIDR,net.CIDR:bool'],
  masked: ['.cidr_masked net.CIDR:net.CIDR'],
  prefixLength: ['.cidr_prefix_length net.CIDR:int'],
  'sets.contains': ['list_sets_contains_list list(A),list(A):bool'],
  'sets.equivalent': ['list_sets_equivalent_list list(A),list(A):bool'],
  'sets.intersects': ['list_sets_intersects_list list(A),list(A):bool'],
  // What the two-variable map transforms accumulate with (ext/comprehensions.go).
  'cel.@mapInsert': ['@mapInsert_map_key_value map(A,B),A,B:map(A,B)', '@mapInsert_map_map map(A,B),map(A,B):map(A,B)'],
  'optional.of': ['optional_of A:optional_type(A)'],
  'optional.ofNonZeroValue': ['optional_of_non_zero_value A:optional_type(A)'],
  'optional.none': ['optional_none :optional_type(dyn)'],
  hasValue: ['.optional_has_value optional_type(A):bool'],
  value: ['.optional_value optional_type(A):A'],
  or: ['.optional_or_optional optional_type(A),optional_type(A):optional_type(A)'],
  orValue: ['.optional_or_value optional_type(A),A:A'],
  'jsonpatch.escapeKey': ['string_jsonpatch_escape_key string:string'],
  'format.named': ['format_named string:optional_type(kubernetes.NamedFormat)'],
  validate: ['.format_validate kubernetes.NamedFormat,string:optional_type(list(string))'],
};

/** The struct types of the Kubernetes libraries (cel.ObjectType); the rest that are not built in are opaque. */
export const STRUCT_TYPES: ReadonlySet<string> = new Set(['kubernetes.URL', 'kubernetes.Quantity', 'kubernetes.Semver', 'kubernetes.NamedFormat']);

export interface Overload {
  id: string;
  member: boolean;
  params: string[];
  result: string;
}

const parsed = new Map<string, Overload[]>();

/** Splits at the top level's commas: `list(A),map(A,B)` is two. */
export function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.filter((p) => p !== '');
}

/** The overloads the environment declares for a function, or undefined when it declares none. */
export function overloadsOf(fn: string): readonly Overload[] | undefined {
  const known = parsed.get(fn);
  if (known) return known;
  const signatures = SIGNATURES[fn];
  if (!signatures) return undefined;
  const overloads = signatures.map((s): Overload => {
    const [id, rest] = s.split(' ') as [string, string];
    const at = rest.lastIndexOf(':');
    return { id: id.replace(/^\./, ''), member: id.startsWith('.'), params: splitTop(rest.slice(0, at)), result: rest.slice(at + 1) };
  });
  parsed.set(fn, overloads);
  return overloads;
}

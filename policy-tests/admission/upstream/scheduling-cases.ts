/**
 * Kubernetes' component-helpers tests of what decides where a pod may run, read as data: nodeaffinity's
 * (scheduling/corev1/nodeaffinity/nodeaffinity_test.go: a pod's required node affinity on a node, a node selector's
 * match and its parse errors), corev1's (scheduling/corev1/helpers_test.go: MatchNodeSelectorTerms, and
 * FindMatchingUntoleratedTaint), and the sysctl namespaces (node/util/sysctl: namespaceOf, NormalizeName). Each row
 * is given to the gate's port of the same function (model/scheduling/node-affinity.ts, the sysctl readings of
 * admission/validation/security-profiles.ts) with everything of the node known, and agrees when the answer is the
 * row's. A taint row that turns the comparison-operator feature gate on is declined: the gate takes it as off. A row
 * this reader cannot follow is counted as not read, with why.
 */
import { nodeSelectorErrors, nodeSelectorTermsFit, requiredNodeAffinityFits, untoleratedTaint, type NodeView } from '../../model/scheduling/node-affinity.ts';
import { normalizeSysctlName, sysctlNamespace } from '../validation/security-profiles.ts';
import { textAgreement, type Agreement, type DecliningTable, type TextCase } from './agreement.ts';
import { blockAt, goBuiltin, GoUnsupported, jsonName, NOT_BUILTIN, structTableRows, type GoEnvironment } from './go-literals.ts';

type Go = Record<string, any>;

/** A row: what the gate answers, and what upstream expects, each as text. */
export type SchedulingCase = TextCase;
export type SchedulingTable = DecliningTable<SchedulingCase>;

/** The core/v1 and metav1 constants the tables use, as the API spells them; field.ErrorType by its Go name. */
const CONSTANTS: Readonly<Record<string, string>> = {
  'v1.NodeSelectorOpIn': 'In',
  'v1.NodeSelectorOpNotIn': 'NotIn',
  'v1.NodeSelectorOpExists': 'Exists',
  'v1.NodeSelectorOpDoesNotExist': 'DoesNotExist',
  'v1.NodeSelectorOpGt': 'Gt',
  'v1.NodeSelectorOpLt': 'Lt',
  'metav1.ObjectNameField': 'metadata.name',
  'v1.TaintEffectNoSchedule': 'NoSchedule',
  'v1.TaintEffectPreferNoSchedule': 'PreferNoSchedule',
  'v1.TaintEffectNoExecute': 'NoExecute',
  'v1.TolerationOpExists': 'Exists',
  'v1.TolerationOpEqual': 'Equal',
  'field.ErrorTypeInvalid': 'Invalid',
  'field.ErrorTypeNotSupported': 'NotSupported',
  'sysctl.IPCNamespace': 'ipc',
  IPCNamespace: 'ipc',
  NetNamespace: 'net',
  UnknownNamespace: '',
};

/** A value the tables build that only its own test reads (a parsed selector, the operators' list): kept as a mark. */
const OPAQUE = { '@opaque': true };

const environment: GoEnvironment = {
  value(name) {
    if (name in CONSTANTS) return CONSTANTS[name];
    if (name === 'validSelectorOperators' || name === 'matchExpressions') return OPAQUE;
    throw new GoUnsupported(`unknown identifier ${name}`);
  },
  call(name, args) {
    const built = goBuiltin(name, args);
    if (built !== NOT_BUILTIN) return built;
    if (name === 'field.NewPath') return String(args[0]);
    if (name === '.Index') return `${String(args[0])}[${String(args[1])}]`;
    if (name === '.Child') return [args[0], ...args.slice(1)].join('.');
    if (name === 'field.Invalid' || name === 'field.NotSupported') return { Type: name.slice(6), Field: args[0] };
    if (name === 'labels.Nothing' || name === 'mustParse') return OPAQUE;
    // A conversion to a named string type (`v1.NodeSelectorOperator("invalid")`) is its value.
    if (/^v1\.[A-Z]\w*$/.test(name) && args.length === 1) return args[0];
    throw new GoUnsupported(`unknown function ${name}`);
  },
};

/** A parsed core/v1 value as its JSON: fields by their JSON names, ObjectMeta as metadata, a map's own keys kept. */
function asK8s(value: unknown, isMap = false): unknown {
  if (Array.isArray(value)) return value.map((v) => asK8s(v));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Go)
      .filter(([k]) => k !== '@type')
      .map(([k, v]) => (isMap ? [k, v] : [k === 'ObjectMeta' ? 'metadata' : jsonName(k), asK8s(v, k === 'Labels' || k === 'NodeSelector')])),
  );
}

/** A node as the matcher sees it, every label and its name known; undefined for a nil node. */
function nodeOf(node: unknown): NodeView | undefined {
  if (!node) return undefined;
  const meta = ((asK8s(node) as Go).metadata ?? {}) as Go;
  return { labels: (meta.labels ?? {}) as Record<string, string>, name: typeof meta.name === 'string' ? meta.name : '' };
}

const errorFields = (errs: unknown): string =>
  JSON.stringify((Array.isArray(errs) ? errs.flat(2) : errs ? [errs] : []).map((e: Go) => `${String(e.Type)} ${String(e.Field)}`));

/** The rows of one test's first `[]struct` table, the table's name given. */
function rowsOf(source: string, test: string, names: RegExp): { text: string; row?: Go; why?: string }[] {
  const start = source.indexOf(`func ${test}(`);
  if (start === -1) return [];
  // A filter given as a function literal is read as the one comparison it makes; an error list made an aggregate as
  // the list, which holds the same errors.
  const body = blockAt(source, source.indexOf('{', start))
    .replace(/func\(t \*v1\.Taint\) bool \{ return ([^}]*?) \}/g, (_, e: string) => JSON.stringify(`filter:${e}`))
    .replace(/\}\.ToAggregate\(\)/g, '}');
  return structTableRows(body, names, environment);
}

/** A taint filter's comparison: all, none, or one effect. */
function filterOf(text: unknown): ((taint: Go) => boolean) | undefined {
  if (text === undefined || text === null) return undefined;
  const expr = (typeof text === 'string' ? text : '').replace(/^filter:/, '');
  if (expr === 'true') return () => true;
  if (expr === 'false') return () => false;
  const effect = /^t\.Effect == v1\.TaintEffect(\w+)$/.exec(expr)?.[1];
  if (effect) return (t) => t.effect === effect;
  throw new GoUnsupported(`a taint filter ${expr}`);
}

type Reader = (row: Go) => Omit<SchedulingCase, 'test'>;

/** Each table: its file, the name its rows are held in, and how a row becomes a case. */
const TABLES: ReadonlyArray<{ file: 'nodeaffinity' | 'helpers'; test: string; names: RegExp; read: Reader }> = [
  {
    file: 'nodeaffinity',
    test: 'TestPodMatchesNodeSelectorAndAffinityTerms',
    names: /tests/,
    read: (row) => {
      const node: NodeView = { labels: (row.labels ?? {}) as Record<string, string>, name: typeof row.nodeName === 'string' ? row.nodeName : '' };
      return {
        name: String(row.name),
        want: String(row.want === true),
        judge: () => String(requiredNodeAffinityFits((asK8s(row.pod) as Go)?.spec, node) === 'yes'),
      };
    },
  },
  {
    file: 'nodeaffinity',
    test: 'TestNodeSelectorMatch',
    names: /tests/,
    read: (row) => {
      const selector = asK8s(row.nodeSelector ?? {}) as Go;
      const node = nodeOf(row.node);
      const want = row.wantErr ? `errors ${errorFields(row.wantErr)}` : `match ${String(row.wantMatch === true)}`;
      return {
        name: String(row.name),
        want,
        judge: () => {
          const errs = nodeSelectorErrors(selector);
          if (errs.length) return `errors ${JSON.stringify(errs.map((e) => `${e.type} ${e.field}`))}`;
          return `match ${String(node !== undefined && nodeSelectorTermsFit(selector.nodeSelectorTerms, node) === 'yes')}`;
        },
      };
    },
  },
  {
    file: 'nodeaffinity',
    test: 'TestNodeSelectorRequirementsAsSelector',
    names: /tc/,
    read: (row) => {
      const requirements = asK8s(row.in ?? []) as unknown[];
      return {
        name: JSON.stringify(requirements),
        want: `errors ${errorFields(row.wantErr)}`,
        judge: () => {
          // The requirements as one term's, their places named from the test's root.
          const errs = nodeSelectorErrors({ nodeSelectorTerms: [{ matchExpressions: requirements }] });
          return `errors ${JSON.stringify(errs.map((e) => `${e.type} ${e.field.replace('nodeSelectorTerms[0].matchExpressions', 'root')}`))}`;
        },
      };
    },
  },
  {
    file: 'helpers',
    test: 'TestMatchNodeSelectorTerms',
    names: /tests/,
    read: (row) => {
      const selector = asK8s((row.args as Go | undefined)?.nodeSelector ?? {}) as Go;
      const node = nodeOf((row.args as Go | undefined)?.node);
      return {
        name: String(row.name),
        want: String(row.want === true),
        judge: () => String(node !== undefined && nodeSelectorTermsFit(selector.nodeSelectorTerms, node) === 'yes'),
      };
    },
  },
  {
    file: 'helpers',
    test: 'TestFindMatchingUntoleratedTaint',
    names: /testCases/,
    read: (row) => {
      const keep = filterOf(row.applyFilter);
      const [taints, tolerations] = [asK8s(row.taints ?? []), asK8s(row.tolerations ?? [])];
      return {
        name: String(row.description),
        want: String(row.expectTolerated === true),
        judge: () => String(untoleratedTaint(taints, tolerations, keep) === undefined),
      };
    },
  },
];

/** The sysctl tables: a map of name to namespace, and a list of spellings to their dotted names. */
function sysctlCases(namespaceTest: string, sysctlTest: string): SchedulingCase[] {
  const cases: SchedulingCase[] = [];
  const map = /tests := map\[string\]Namespace\{([\s\S]*?)\n\t\}/.exec(namespaceTest)?.[1] ?? '';
  for (const m of map.matchAll(/"([^"]+)":\s*(\w+),/g)) {
    const want = CONSTANTS[m[2]!] ?? m[2]!;
    cases.push({ test: 'TestNamespacedOf', name: m[1]!, want, judge: () => sysctlNamespace(m[1]!) ?? '' });
  }
  for (const m of sysctlTest.matchAll(/\{in: "([^"]+)", out: "([^"]+)"\}/g))
    cases.push({ test: 'TestConvertSysctlVariableToDotsSeparator', name: m[1]!, want: m[2]!, judge: () => normalizeSysctlName(m[1]!) });
  return cases;
}

/** Every row of the tables above, from component-helpers' test files of one checkout. */
export function schedulingCases(sources: { nodeaffinity: string; helpers: string; sysctlNamespace: string; sysctl: string }): SchedulingTable {
  const table: SchedulingTable = { cases: [], declined: [], unread: [] };
  for (const { file, test, names, read } of TABLES)
    for (const { text, row, why } of rowsOf(sources[file], test, names)) {
      const label = `${test}/${/(?:name|description): "([^"]*)"/.exec(text)?.[1] ?? text.slice(0, 40).replace(/\s+/g, ' ')}`;
      if (!row) {
        table.unread.push({ name: label, why: why! });
        continue;
      }
      if (row.enableComparisonOperatorsFG === true) {
        table.declined.push({ name: label, why: 'it turns the TaintTolerationComparisonOperators feature gate on, which the gate takes as off' });
        continue;
      }
      try {
        table.cases.push({ test, ...read(row) });
      } catch (err) {
        table.unread.push({ name: label, why: (err as Error).message });
      }
    }
  table.cases.push(...sysctlCases(sources.sysctlNamespace, sources.sysctl));
  return table;
}

/** How many rows the gate answers as component-helpers does. */
export const schedulingAgreement = (table: SchedulingTable): Agreement => textAgreement(table, 'component-helpers');

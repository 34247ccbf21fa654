/**
 * MetalLB's own allocator tests (internal/allocator/allocator_test.go, v0.16.1), read as data: `TestAssignment`, a
 * sequence of Assign and Unassign steps on six pools (an address asked for, shared by key and port, pinned to a
 * namespace or labels, two of both families), and `TestBuggyIPs`, Allocate over four pools some of which avoid .0
 * and .255. Each step is run, in order, on one port of the allocator (model/cluster/metallb-allocator.ts) as the
 * test runs it on MetalLB's; a step agrees where the port refuses what the test expects refused (without recording
 * the addresses) and otherwise records exactly the addresses the test expects.
 */
import { allocatorPool, MetalLBAllocator, type AllocationRequest, type AllocatorPool } from '../../model/cluster/metallb-allocator.ts';
import { parseGoIP } from '../../model/go/net.ts';
import { count, countUnread, emptyAgreement, type Agreement, type RowNote } from './agreement.ts';
import { definitionsOf, environment } from './cert-manager-go.ts';
import { asJson, blockAt, GoParser, structTableRows, tokenize, type GoEnvironment } from './go-literals.ts';

type Go = Record<string, any>;

export interface AllocatorStep {
  test: 'TestAssignment' | 'TestBuggyIPs';
  name: string;
  /** Runs the step on the allocator the test's steps share; true where it agrees. */
  run: (allocator: MetalLBAllocator) => { ok: boolean; why: string };
}

export interface AllocatorTable {
  /** Each test's pools and its steps, run in order on one allocator. */
  tests: { pools: AllocatorPool[]; steps: AllocatorStep[] }[];
  unread: RowNote[];
}

const CONSTANTS = {
  'v1.ServiceTypeLoadBalancer': 'LoadBalancer',
  'v1.ProtocolTCP': 'TCP',
  'v1.ProtocolUDP': 'UDP',
  'v1.IPFamilyPolicyRequireDualStack': 'RequireDualStack',
  'v1.IPFamilyPolicyPreferDualStack': 'PreferDualStack',
  'v1.IPFamilyPolicySingleStack': 'SingleStack',
  'v1.IPv4Protocol': 'IPv4',
  'v1.IPv6Protocol': 'IPv6',
};

/** The test file's helpers as their values: ipnet and ports as their text, selector as the LabelSelector it parses, sets.New as a list. */
function helpers(base: GoEnvironment): GoEnvironment {
  return {
    value: (name) => base.value(name),
    call(name, args) {
      if (name === 'ipnet') return String(args[0]);
      if (name === 'ports') return args.map(String);
      if (name === 'sets.New') return args.map(String);
      if (name === 'selector')
        return {
          MatchLabels: Object.fromEntries(
            String(args[0])
              .split(',')
              .filter(Boolean)
              .map((kv) => kv.split('=').map((s) => s.trim()) as [string, string]),
          ),
        };
      return base.call(name, args);
    },
  };
}

/** A test's pools (`map[string]*config.Pool{...}`) as the allocator holds them. */
function poolsOf(body: string, env: GoEnvironment): AllocatorPool[] {
  const at = body.indexOf('map[string]*config.Pool{');
  const text = blockAt(body, body.indexOf('{', at));
  const pools = asJson(new GoParser(tokenize(`map[string]*config.Pool{${text}}`), env).expr()) as Record<string, Go>;
  return Object.values(pools).map((p) => {
    const sa = p.ServiceAllocations as Go | undefined;
    const pool = allocatorPool(
      { name: String(p.Name), spec: { addresses: p.CIDR ?? [], autoAssign: p.AutoAssign === true, avoidBuggyIPs: p.AvoidBuggyIPs === true } },
      new Map(),
    );
    if (!sa) return pool;
    const selectors = ((sa.ServiceSelectors ?? []) as Go[]).map((s) => ({ matchLabels: s.MatchLabels }));
    return { ...pool, allocation: { priority: Number(sa.Priority ?? 0), namespaces: new Set<string>(sa.Namespaces ?? []), serviceSelectors: selectors } };
  });
}

const bodyOf = (source: string, test: string): string => {
  const start = source.indexOf(`func ${test}(`);
  return start === -1 ? '' : blockAt(source, source.indexOf('{', start));
};

/** The request a step makes: its Service's namespace and labels, its ports and keys. */
const requestOf = (row: Go): AllocationRequest => ({
  svcKey: String(row.svcKey),
  namespace: String(row.svc?.ObjectMeta?.Namespace ?? ''),
  labels: (row.svc?.ObjectMeta?.Labels ?? {}) as Record<string, string>,
  ports: (row.ports ?? []) as string[],
  key: { sharing: String(row.sharingKey ?? ''), backend: String(row.backendKey ?? '') },
});

/** TestAssignment's steps: an Unassign where a step gives no addresses, an Assign where it gives some. */
function assignmentSteps(body: string, env: GoEnvironment, unread: AllocatorTable['unread']): AllocatorStep[] {
  const steps: AllocatorStep[] = [];
  for (const { text, row, why } of structTableRows(body, /tests/, env)) {
    const name = /desc:\s*"([^"]*)"/.exec(text)?.[1] ?? text.slice(0, 40);
    if (!row) {
      unread.push({ name: `TestAssignment/${name}`, why: why! });
      continue;
    }
    const ips = ((row.ips ?? []) as string[]).map(String);
    steps.push({
      test: 'TestAssignment',
      name,
      run(a) {
        const req = requestOf(row);
        if (ips.length === 0) {
          a.unassign(req.svcKey);
          return { ok: a.assigned(req.svcKey) === undefined, why: 'the Service still holds addresses after Unassign' };
        }
        const had = JSON.stringify(a.assigned(req.svcKey)) === JSON.stringify(ips);
        const result = a.assign(
          req,
          ips.map((ip) => parseGoIP(ip)!),
        );
        const now = JSON.stringify(a.assigned(req.svcKey) ?? []);
        if (row.wantErr === true)
          return {
            ok: 'error' in result && (had || now !== JSON.stringify(ips)),
            why: `the gate ${'error' in result ? 'refused but recorded the addresses' : `assigned ${now}`}, MetalLB refuses`,
          };
        return {
          ok: !('error' in result) && now === JSON.stringify(ips),
          why: `the gate ${'error' in result ? `refused: ${result.error}` : `recorded ${now}`}, MetalLB assigns ${JSON.stringify(ips)}`,
        };
      },
    });
  }
  return steps;
}

/** TestBuggyIPs' steps: Allocate for IPv4 with no ports or keys, each address one the test allows. */
function buggySteps(body: string, env: GoEnvironment, unread: AllocatorTable['unread']): AllocatorStep[] {
  const valid = new Set([...(/validIPs := map\[string\]bool\{([^}]*)\}/.exec(body)?.[1] ?? '').matchAll(/"([^"]+)":\s*true/g)].map((m) => m[1]!));
  const steps: AllocatorStep[] = [];
  for (const { text, row, why } of structTableRows(body, /tests/, env)) {
    if (!row) {
      unread.push({ name: `TestBuggyIPs/${text.slice(0, 40)}`, why: why! });
      continue;
    }
    steps.push({
      test: 'TestBuggyIPs',
      name: String(row.svcKey),
      run(a) {
        const got = a.allocateAny({ ...requestOf(row), ports: [] }, 'IPv4');
        if (row.wantErr === true) return { ok: 'error' in got, why: `the gate gave ${JSON.stringify(got)}, MetalLB refuses` };
        return {
          ok: !('error' in got) && got.every((ip) => valid.has(ip)),
          why: `the gate gave ${JSON.stringify(got)}, MetalLB one of ${[...valid].join(', ')}`,
        };
      },
    });
  }
  return steps;
}

/** Both tests, from the test file of one checkout. */
export function metallbAllocatorCases(source: string): AllocatorTable {
  const table: AllocatorTable = { tests: [], unread: [] };
  for (const [test, read] of [
    ['TestAssignment', assignmentSteps],
    ['TestBuggyIPs', buggySteps],
  ] as const) {
    const body = bodyOf(source, test);
    if (body === '') {
      table.unread.push({ name: test, why: 'no such test in the file' });
      continue;
    }
    const env = helpers(environment('', definitionsOf(source, body, []), CONSTANTS));
    try {
      table.tests.push({ pools: poolsOf(body, env), steps: read(body, env, table.unread) });
    } catch (err) {
      table.unread.push({ name: test, why: (err as Error).message });
    }
  }
  return table;
}

/** How many steps the port of the allocator takes as MetalLB's does, each test's steps in order on one allocator. */
export function metallbAllocatorAgreement(table: AllocatorTable): Agreement {
  const a = emptyAgreement();
  for (const { pools, steps } of table.tests) {
    const allocator = new MetalLBAllocator(pools);
    for (const step of steps) {
      const { ok, why } = step.run(allocator);
      count(a, { group: step.test, ok, file: `${step.test}/${step.name}`, why });
    }
  }
  countUnread(a, table.unread);
  return a;
}

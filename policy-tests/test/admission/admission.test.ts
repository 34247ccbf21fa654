/**
 * The admission layer's engines on their own: every Pod Security control,
 * passing and failing; the CEL evaluator against the spec's conformance
 * cases for the string functions it adds, the Kubernetes libraries, and the
 * real rules of ClusterSecretStore and CephCluster; the value syntaxes of
 * the API server's validation.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getConformanceSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import { compileRule, ruleCoverage, ruleViolations } from '../../admission/cel/crd-rules.ts';
import type { JsonSchemaNode } from '../../admission/cel/schema-node.ts';
import { CONTROLS, levelsFor, podSecurityViolations } from '../../admission/pod-security/pod-security.ts';
import { builtinResourceName, policyCoverage, policyDecisions } from '../../admission/cel/admission-policies.ts';
import { validateBuiltin } from '../../admission/validation/kinds.ts';
import { featuresAt } from '../../admission/validation/feature-gates.ts';
import { labelValue, portName, qualifiedName } from '../../admission/validation/syntax.ts';
import { quantityValue } from '../../model/go/quantity.ts';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/admission/${name}`, import.meta.url), 'utf8')) as JsonSchemaNode;

type Obj = Record<string, unknown>;
const pod = (container: Obj = {}, spec: Obj = {}): Obj => ({ containers: [{ name: 'app', image: 'x:1', ...container }], ...spec });
/** A pod that meets restricted: the base every failing case changes in one place. */
const restrictedContainer = {
  securityContext: { allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } },
};
const controlsOf = (level: 'baseline' | 'restricted', spec: Obj, meta: Obj = {}) =>
  [...new Set(podSecurityViolations(level, meta, spec).map((v) => v.control))].sort();

describe('Pod Security admission', () => {
  // One case per control: [control, level, a spec that breaks it, a spec that meets it, metadata].
  const cases: [string, 'baseline' | 'restricted', Obj, Obj, Obj?][] = [
    [
      'windowsHostProcess',
      'baseline',
      pod({}, { securityContext: { windowsOptions: { hostProcess: true } } }),
      pod({}, { securityContext: { windowsOptions: { hostProcess: false } } }),
    ],
    ['hostNamespaces', 'baseline', pod({}, { hostPID: true }), pod({}, { hostPID: false })],
    ['privileged', 'baseline', pod({ securityContext: { privileged: true } }), pod({ securityContext: { privileged: false } })],
    [
      'capabilities_baseline',
      'baseline',
      pod({ securityContext: { capabilities: { add: ['NET_ADMIN'] } } }),
      pod({ securityContext: { capabilities: { add: ['CHOWN', 'NET_BIND_SERVICE'] } } }),
    ],
    ['hostPathVolumes', 'baseline', pod({}, { volumes: [{ name: 'h', hostPath: { path: '/' } }] }), pod({}, { volumes: [{ name: 'e', emptyDir: {} }] })],
    ['hostPorts', 'baseline', pod({ ports: [{ containerPort: 80, hostPort: 80 }] }), pod({ ports: [{ containerPort: 80, hostPort: 0 }] })],
    [
      'appArmorProfile',
      'baseline',
      pod({ securityContext: { appArmorProfile: { type: 'Unconfined' } } }),
      pod({ securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } }),
    ],
    ['appArmorProfile', 'baseline', pod(), pod(), { annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'unconfined' } }],
    [
      'seLinuxOptions',
      'baseline',
      pod({ securityContext: { seLinuxOptions: { type: 'spc_t' } } }),
      pod({ securityContext: { seLinuxOptions: { type: 'container_t' } } }),
    ],
    ['procMount', 'baseline', pod({ securityContext: { procMount: 'Unmasked' } }), pod({ securityContext: { procMount: 'Unmasked' } }, { hostUsers: false })],
    [
      'seccompProfile_baseline',
      'baseline',
      pod({ securityContext: { seccompProfile: { type: 'Unconfined' } } }),
      pod({ securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } } }),
    ],
    [
      'sysctls',
      'baseline',
      pod({}, { securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }] } }),
      pod({}, { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_syncookies', value: '1' }] } }),
    ],
    [
      'hostProbesAndHostLifecycle',
      'baseline',
      pod({ livenessProbe: { httpGet: { host: '10.0.0.1', port: 80 } } }),
      pod({ livenessProbe: { httpGet: { port: 80 } } }),
    ],
    [
      'restrictedVolumes',
      'restricted',
      pod(restrictedContainer, { volumes: [{ name: 'n', nfs: { server: 'nas', path: '/' } }] }),
      pod(restrictedContainer, { volumes: [{ name: 'p', persistentVolumeClaim: { claimName: 'c' } }] }),
    ],
    [
      'allowPrivilegeEscalation',
      'restricted',
      pod({ securityContext: { ...restrictedContainer.securityContext, allowPrivilegeEscalation: true } }),
      pod(restrictedContainer),
    ],
    [
      'runAsNonRoot',
      'restricted',
      pod({ securityContext: { ...restrictedContainer.securityContext, runAsNonRoot: undefined } }),
      pod({ securityContext: { ...restrictedContainer.securityContext, runAsNonRoot: undefined } }, { securityContext: { runAsNonRoot: true } }),
    ],
    [
      'runAsUser',
      'restricted',
      pod({ securityContext: { ...restrictedContainer.securityContext, runAsUser: 0 } }),
      pod({ securityContext: { ...restrictedContainer.securityContext, runAsUser: 1000 } }),
    ],
    [
      'procMount_restricted',
      'restricted',
      pod({ securityContext: { ...restrictedContainer.securityContext, procMount: 'Unmasked' } }, { hostUsers: false }),
      pod({ securityContext: { ...restrictedContainer.securityContext, procMount: 'Default' } }, { hostUsers: false }),
    ],
    [
      'seccompProfile_restricted',
      'restricted',
      pod({ securityContext: { ...restrictedContainer.securityContext, seccompProfile: undefined } }),
      pod(
        { securityContext: { ...restrictedContainer.securityContext, seccompProfile: undefined } },
        { securityContext: { seccompProfile: { type: 'RuntimeDefault' } } },
      ),
    ],
    [
      'capabilities_restricted',
      'restricted',
      pod({ securityContext: { ...restrictedContainer.securityContext, capabilities: { drop: ['ALL'], add: ['CHOWN'] } } }),
      pod({ securityContext: { ...restrictedContainer.securityContext, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } } }),
    ],
  ];

  it('relaxes runAsNonRoot and runAsUser at restricted for a pod in a user namespace (1.35), but not procMount', () => {
    const userNs = { hostUsers: false, securityContext: { runAsNonRoot: false, runAsUser: 0 } };
    const c = { securityContext: { ...restrictedContainer.securityContext, runAsNonRoot: false, runAsUser: 0 } };
    expect(controlsOf('restricted', pod(c, userNs))).toEqual([]);
    expect(controlsOf('restricted', pod(c, { ...userNs, hostUsers: true }))).toEqual(['runAsNonRoot', 'runAsUser']);
    expect(controlsOf('baseline', pod({ securityContext: { procMount: 'Unmasked' } }, { hostUsers: false }))).toEqual([]);
  });

  it('judges at the policy version of the cluster: before 1.35, no user-namespace relaxation and no procMount_restricted', () => {
    const userNs = { hostUsers: false, securityContext: { runAsNonRoot: false, runAsUser: 0 } };
    const c = { securityContext: { ...restrictedContainer.securityContext, runAsNonRoot: false, runAsUser: 0, procMount: 'Unmasked' } };
    const at = (minor: number) => [...new Set(podSecurityViolations('restricted', {}, pod(c, userNs), minor).map((v) => v.control))].sort();
    expect(at(36)).toEqual(['procMount_restricted']);
    expect(at(35)).toEqual(['procMount_restricted']);
    expect(at(34)).toEqual(['procMount', 'runAsNonRoot', 'runAsUser']);
  });

  it('judges a namespace pinned to an older policy with the controls of that version, as upstream keeps each (MinimumVersion)', () => {
    const at = (level: 'baseline' | 'restricted', spec: Obj, minor: number, meta: Obj = {}) =>
      [...new Set(podSecurityViolations(level, meta, spec, minor).map((v) => v.control))].sort();
    const sysctl = (name: string) => pod({}, { securityContext: { sysctls: [{ name, value: '1' }] } });
    // The safe sysctls grew at 1.27, 1.29 and 1.32.
    for (const [name, since] of [
      ['net.ipv4.ip_local_reserved_ports', 27],
      ['net.ipv4.tcp_keepalive_time', 29],
      ['net.ipv4.tcp_wmem', 32],
    ] as const) {
      expect(at('baseline', sysctl(name), since - 1)).toEqual(['sysctls']);
      expect(at('baseline', sysctl(name), since)).toEqual([]);
    }
    // container_engine_t is a baseline SELinux type from 1.31.
    const engine = pod({ securityContext: { seLinuxOptions: { type: 'container_engine_t' } } });
    expect([at('baseline', engine, 30), at('baseline', engine, 31)]).toEqual([['seLinuxOptions'], []]);
    // A Windows pod needs no Linux-only restricted field from 1.25.
    const windows = pod({ securityContext: { runAsNonRoot: true } }, { os: { name: 'windows' } });
    expect(at('restricted', windows, 24)).toEqual(['allowPrivilegeEscalation', 'capabilities_restricted', 'seccompProfile_restricted']);
    expect(at('restricted', windows, 25)).toEqual([]);
    // runAsUser from 1.23, capabilities_restricted (overriding capabilities_baseline) from 1.22, the probe host from 1.34.
    const root = pod({ securityContext: { ...restrictedContainer.securityContext, runAsUser: 0 } });
    expect([at('restricted', root, 22), at('restricted', root, 23)]).toEqual([[], ['runAsUser']]);
    const raw = pod({ securityContext: { ...restrictedContainer.securityContext, capabilities: { add: ['SYS_ADMIN'] } } });
    expect([at('restricted', raw, 21), at('restricted', raw, 22)]).toEqual([['capabilities_baseline'], ['capabilities_restricted']]);
    const probe = pod({ livenessProbe: { httpGet: { host: '10.0.0.1', port: 80 } } });
    expect([at('baseline', probe, 33), at('baseline', probe, 34)]).toEqual([[], ['hostProbesAndHostLifecycle']]);
    // Before 1.19 seccomp is judged on its annotations, not its fields.
    const unconfined = pod({ securityContext: { seccompProfile: { type: 'Unconfined' } } });
    const annotated = { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' } };
    expect([at('baseline', unconfined, 18), at('baseline', unconfined, 19)]).toEqual([[], ['seccompProfile_baseline']]);
    expect([at('baseline', pod(), 18, annotated), at('baseline', pod(), 19, annotated)]).toEqual([['seccompProfile_baseline'], []]);
  });

  it('admits an empty AppArmor annotation, as upstream does', () => {
    expect(controlsOf('baseline', pod(), { annotations: { 'container.apparmor.security.beta.kubernetes.io/app': '' } })).toEqual([]);
  });

  it('has a case for every control of both levels', () => {
    expect([...new Set(cases.map((c) => c[0]))].sort()).toEqual([...CONTROLS.baseline, ...CONTROLS.restricted].sort());
  });

  it.each(cases.map((c, i) => [c[0], c[1], i] as const))('%s (%s): fails when broken, passes when met', (control, level, i) => {
    const [, , bad, good, meta = {}] = cases[i]!;
    expect(controlsOf(level, bad, meta)).toContain(control);
    expect(
      controlsOf(
        level,
        good,
        control === 'appArmorProfile' && i === 7 ? { annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'runtime/default' } } : {},
      ),
    ).not.toContain(control);
  });

  it('privileged admits anything; a restricted pod passes baseline; restricted replaces the baseline hostPath, capability and seccomp controls', () => {
    expect(podSecurityViolations('privileged', {}, pod({ securityContext: { privileged: true } }, { hostNetwork: true }))).toEqual([]);
    expect(podSecurityViolations('restricted', {}, pod(restrictedContainer))).toEqual([]);
    expect(podSecurityViolations('baseline', {}, pod(restrictedContainer))).toEqual([]);
    expect(controlsOf('restricted', pod(restrictedContainer, { volumes: [{ name: 'h', hostPath: { path: '/' } }] }))).toEqual(['restrictedVolumes']);
  });

  it('reads the levels from the namespace labels as PolicyToEvaluate does, each mode falling back to the cluster default', () => {
    const talos = { enforce: 'baseline', audit: 'restricted', warn: 'restricted' } as const;
    const ps = (labels: Record<string, string>) => Object.fromEntries(Object.entries(labels).map(([k, v]) => [`pod-security.kubernetes.io/${k}`, v]));
    expect(levelsFor(undefined, talos)).toEqual(talos);
    // A level it cannot read fails closed for enforce, open for warn and audit.
    expect(levelsFor(ps({ enforce: 'privileged', warn: 'bogus' }), talos)).toEqual({ enforce: 'privileged', audit: 'restricted', warn: 'privileged' });
    expect(levelsFor(ps({ enforce: 'Baseline' }), talos)).toMatchObject({ enforce: 'restricted' });
    // A version pins its mode; "latest", or one it cannot read, is the newest.
    expect(levelsFor(ps({ enforce: 'baseline', 'enforce-version': 'v1.24', 'audit-version': 'latest', 'warn-version': '1.24' }), talos)).toEqual({
      ...talos,
      versions: { enforce: 24 },
    });
    // Warn takes an explicitly stricter enforce level, and its version, where warn is not set.
    const lax = { enforce: 'baseline', audit: 'baseline', warn: 'baseline' } as const;
    expect(levelsFor(ps({ enforce: 'restricted', 'enforce-version': 'v1.30' }), lax)).toEqual({
      enforce: 'restricted',
      audit: 'baseline',
      warn: 'restricted',
      versions: { enforce: 30, warn: 30 },
    });
    expect(levelsFor(ps({ enforce: 'restricted', warn: 'baseline' }), lax)).toMatchObject({ warn: 'baseline' });
  });
});

describe('CEL: the string functions, against the conformance cases of @bufbuild/cel-spec', () => {
  const suite = getConformanceSuite() as unknown as {
    suites: {
      name: string;
      suites: {
        name: string;
        tests: { original: { name: string; expr: string; resultMatcher: { case?: string; value?: { kind?: { case?: string; value?: unknown } } } } }[];
      }[];
    }[];
  };
  const strings = suite.suites.find((s) => s.name === 'string_ext')!;
  const sections = ['char_at', 'index_of', 'last_index_of', 'ascii_casing', 'replace', 'split', 'substring', 'trim', 'join'];
  const simple = strings.suites
    .filter((s) => sections.includes(s.name))
    .flatMap((s) => s.tests.map((t) => ({ section: s.name, ...t.original })))
    .filter(
      (t) =>
        t.resultMatcher.case === undefined ||
        (t.resultMatcher.case === 'value' && ['stringValue', 'int64Value', 'boolValue'].includes(t.resultMatcher.value?.kind?.case ?? '')),
    );
  // A conformance test with no result matcher expects true.
  const expected = (t: (typeof simple)[number]) => (t.resultMatcher.case === undefined ? true : t.resultMatcher.value!.kind!.value);

  it('covers every section of the functions added', () => {
    expect(new Set(simple.map((t) => t.section)).size).toBe(sections.length);
    expect(simple.length).toBeGreaterThan(40);
  });

  it.each(simple.map((t) => [`${t.section}/${t.name}`, t] as const))('%s', (_name, t) => {
    const c = compileRule(t.expr);
    expect(c.ok, c.ok ? '' : c.why).toBe(true);
    if (!c.ok) return;
    expect(c.evaluate({})).toEqual(expected(t));
  });
});

describe('CEL: the Kubernetes libraries', () => {
  const cases: [string, unknown][] = [
    ['[1, 2, 3].isSorted()', true],
    ["['b', 'a'].isSorted()", false],
    ['[1, 2, 3].sum() == 6', true],
    ['[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3', true],
    ['[1, 2, 2].indexOf(2) == 1 && [1, 2, 2].lastIndexOf(2) == 2', true],
    ["'abc 123'.find('[0-9]+')", '123'],
    ["'a1b22'.findAll('[0-9]+') == ['1', '22']", true],
    ["isURL('https://example.com:80/path?q=1')", true],
    ["isURL('not a url')", false],
    ["url('https://example.com:8443/a').getHost()", 'example.com:8443'],
    ["url('https://example.com:8443/a').getPort()", '8443'],
    ["url('https://example.com/a/b').getEscapedPath()", '/a/b'],
    ["url('https://example.com/a').getScheme()", 'https'],
    ["isQuantity('1.5Gi') && !isQuantity('1.5 Gi')", true],
    ["quantity('1Gi').isGreaterThan(quantity('1000Mi'))", true],
    ["quantity('500m').compareTo(quantity('0.5')) == 0", true],
    ["quantity('2k').asInteger() == 2000", true],
    ["isIP('10.0.0.1') && isIP('fd00::1') && !isIP('10.0.0.256')", true],
    ["isCIDR('10.0.0.0/8') && !isCIDR('10.0.0.0/33')", true],
    ["cidr('10.0.0.0/8').prefixLength() == 8 && ip('fd00::1').family() == 6", true],
  ];
  it.each(cases)('%s', (expr, expected) => {
    const c = compileRule(expr);
    expect(c.ok, c.ok ? '' : c.why).toBe(true);
    if (c.ok) expect(c.evaluate({})).toEqual(expected);
  });

  it('every rule the API server accepts is judged, optional entries too; one it refuses is not a gap of the evaluator', () => {
    const schema: JsonSchemaNode = {
      type: 'object',
      'x-kubernetes-validations': [{ rule: '[?self.?l].size() <= 1' }, { rule: 'self.a ==' }, { rule: 'has(self.v)' }],
    };
    const coverage = ruleCoverage([{ crd: 'test', schema }]);
    expect(coverage).toMatchObject({ found: 3, compiled: 2 });
    // 'self.a ==' does not parse: the API server refuses the CRD (crd-accepted), so it is no gap of the evaluator.
    expect(coverage.notJudged).toEqual([]);
    expect(ruleViolations(schema, { v: '1.0.0', l: 'x' })).toEqual([]);
  });
});

describe('CEL: real CRD rules (fixtures that copy them)', () => {
  const store = fixture('clustersecretstore-1password.schema.json');
  const ceph = fixture('cephcluster-mon.schema.json');
  const storeOf = (provider: Obj) => ({ spec: { provider: { onepasswordSDK: { auth: {}, ...provider } } } });

  it('ClusterSecretStore: a vault or an environment, never both', () => {
    expect(ruleViolations(store, storeOf({ vault: 'homelab' }))).toEqual([]);
    expect(ruleViolations(store, storeOf({ vault: 'homelab', environment: 'prod' }))).toEqual([
      {
        path: ['spec', 'provider', 'onepasswordSDK'],
        message: 'Invalid value: at most one of the fields in [vault environment] may be set',
        rule: expect.any(String),
      },
    ]);
  });

  it('CephCluster: no more mon zones than mons, and a stretch cluster has three zones', () => {
    const zones = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `z${i}` }));
    expect(ruleViolations(ceph, { spec: { mon: { count: 3, zones: zones(3) } } })).toEqual([]);
    expect(ruleViolations(ceph, { spec: { mon: { count: 3, zones: zones(5) } } }).map((v) => v.message)).toEqual([
      'Invalid value: zones must be less than or equal to count',
    ]);
    expect(ruleViolations(ceph, { spec: { mon: { count: 5, stretchCluster: { zones: zones(2) } } } }).map((v) => v.message)).toEqual([
      'Invalid value: stretchCluster zones must be equal to 3',
    ]);
    // Zones without a count: the rule reads a field that is not there, which the API server refuses as an evaluation error.
    expect(ruleViolations(ceph, { spec: { mon: { zones: zones(1) } } }).map((v) => v.message)).toEqual([expect.stringContaining('evaluation of the rule')]);
  });

  it('a default applies before the rules, as structural defaulting does; fieldPath, reason and messageExpression shape the finding', () => {
    const schema: JsonSchemaNode = {
      type: 'object',
      properties: { replicas: { type: 'integer', default: 1 }, max: { type: 'integer' } },
      'x-kubernetes-validations': [
        {
          rule: 'self.replicas <= self.max',
          messageExpression: "'replicas ' + string(self.replicas) + ' over ' + string(self.max)",
          fieldPath: '.replicas',
          reason: 'FieldValueForbidden',
        },
      ],
    };
    expect(ruleViolations(schema, { max: 1 })).toEqual([]);
    expect(ruleViolations(schema, { max: 0 })).toEqual([{ path: ['replicas'], message: 'Forbidden: replicas 1 over 0', rule: 'self.replicas <= self.max' }]);
  });

  it('transition rules are skipped on a create and judged between an old and a new object', () => {
    const schema: JsonSchemaNode = {
      type: 'object',
      properties: { name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'name is immutable' }] } },
    };
    expect(ruleViolations(schema, { name: 'b' })).toEqual([]);
    expect(ruleViolations(schema, { name: 'b' }, { name: 'a' }).map((v) => v.message)).toEqual(['Invalid value: name is immutable']);
    expect(ruleViolations(schema, { name: 'a' }, { name: 'a' })).toEqual([]);
  });
});

describe("the API server's value syntaxes", () => {
  it('quantities', () => {
    expect(quantityValue('128Mi')).toBe(128 * 2 ** 20);
    expect(quantityValue('500m')).toBe(0.5);
    expect(quantityValue('1e3')).toBe(1000);
    for (const bad of ['1.5 Gi', '10MB', '1d', '2h', '1Y', '100p']) expect(quantityValue(bad)).toBeUndefined();
    // A field's quantity is trimmed of spaces when decoded (Quantity.UnmarshalJSON); a number is its JSON text.
    expect(quantityValue(' 1 ')).toBe(1);
    expect(quantityValue(0.5)).toBe(0.5);
  });

  it('names, label values, port names', () => {
    expect(qualifiedName('app.kubernetes.io/name')).toBeUndefined();
    expect(qualifiedName('-bad')).toBeDefined();
    expect(labelValue('a'.repeat(63))).toBeUndefined();
    expect(labelValue('a'.repeat(64))).toBeDefined();
    expect(portName('http-metrics')).toBeUndefined();
    for (const bad of ['prometheus-metrics', 'HTTP', '8080', 'a--b']) expect(portName(bad)).toBeDefined();
  });

  it('IPs and CIDRs of legacy fields as ParseIPSloppy and ParseCIDRSloppy read them: leading zeros admitted, a zone refused', () => {
    const policy = (cidr: string, except: string[]) =>
      validateBuiltin('NetworkPolicy', {
        metadata: { name: 'n' },
        spec: { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr, except } }] }] },
      }).map((p) => p.message);
    expect(policy('010.0.0.0/8', ['10.1.0.0/16'])).toEqual([]);
    expect(policy('10.0.0.0/8', ['010.001.0.0/16'])).toEqual([]);
    expect(policy('fe80::/10', ['fe80::1%eth0/64'])).toEqual([expect.stringMatching(/^except "fe80::1%eth0\/64" must be a valid CIDR value/)]);
    expect(policy('10.0.0.0/8', ['11.0.0.0/16'])).toEqual(['except "11.0.0.0/16": must be a strict subset of `cidr`']);
  });

  it('rejects what every schema accepts: an env var with =, a Job without a restart policy, a StatefulSet selector matching nothing', () => {
    const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'a', image: 'a:1', env: [{ name: 'A=B', value: '1' }] }] } };
    expect(validateBuiltin('Deployment', { metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'a' } }, template } }).map((p) => p.fn)).toEqual([
      'ValidateEnv (IsRelaxedEnvVarName)',
    ]);
    expect(
      validateBuiltin('Job', { metadata: { name: 'j' }, spec: { template: { spec: { containers: [{ name: 'a', image: 'a:1' }] } } } }).map((p) => p.fn),
    ).toEqual(['ValidateJobSpec']);
    expect(
      validateBuiltin('StatefulSet', {
        metadata: { name: 's' },
        spec: { selector: { matchLabels: { app: 'b' } }, template: { ...template, spec: { containers: [{ name: 'a', image: 'a:1' }] } } },
      }).map((p) => p.message),
    ).toEqual(['`selector` does not match template `labels`']);
  });
});

describe('built-in validation: what the API server defaults, and what no node can pull', () => {
  const pod = (volumes: object[], image = 'registry.k8s.io/pause:3.10') => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { containers: [{ name: 'c', image, volumeMounts: [{ name: 'scratch', mountPath: '/s' }] }], volumes },
  });

  it('a volume with no source is an emptyDir, as SetDefaults_Volume makes it', () => {
    expect(validateBuiltin('Pod', pod([{ name: 'scratch' }]))).toEqual([]);
  });

  it.each([
    ['Traefik/Whoami:v1.10', 'repository name must be lowercase'],
    ['whoami:v1:extra', 'invalid reference format'],
    ['whoami@sha256:abc', 'invalid reference format'],
    [`whoami@sha256:${'a'.repeat(63)}0a`, 'invalid checksum digest length'],
  ])('refuses the image %s: %s', (image, why) => {
    expect(validateBuiltin('Pod', pod([{ name: 'scratch', emptyDir: {} }], image)).map((p) => p.message)).toEqual([`container c: image "${image}": ${why}`]);
  });

  it.each(['localhost:5000/x', 'traefik/whoami:v1.10', `ghcr.io/a/b:1.0@sha256:${'a'.repeat(64)}`, '[::1]:5000/x:1'])('accepts the image %s', (image) => {
    expect(validateBuiltin('Pod', pod([{ name: 'scratch', emptyDir: {} }], image))).toEqual([]);
  });

  it("judges a ConfigMap volume's items as validateKeyToPath does: any key, a relative path that neither holds nor starts with '..'", () => {
    const items = (...list: object[]) => validateBuiltin('Pod', pod([{ name: 'scratch', configMap: { name: 'cm', items: list } }])).map((p) => p.message);
    expect(items({ key: '..data', path: 'data' }, { key: 'a/b', path: 'x/y' })).toEqual([]);
    expect(items({ key: '', path: 'a' }, { key: 'k', path: '..hidden' }, { key: 'k', path: '../up' }, { key: 'k' })).toEqual([
      'volume scratch: items[0].key: Required value',
      `volume scratch: path "..hidden": must not start with '..'`,
      `volume scratch: path "../up" must be relative and may not contain '..'`,
      'volume scratch: items[3].path: Required value',
    ]);
  });

  it("refuses a ConfigMap key that starts with '..', as IsConfigMapKey's hasChDirPrefix does (the kubelet's own ..data link)", () => {
    const cm = (key: string) => validateBuiltin('ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { [key]: 'x' } });
    expect(cm('..data').map((p) => p.message)).toEqual([expect.stringContaining("must not start with '..'")]);
    expect(cm('.data')).toEqual([]);
  });
});

describe('ValidatingAdmissionPolicy', () => {
  const policy = (spec: Obj = {}) => ({
    metadata: { name: 'p' },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] },
      validations: [{ expression: 'object.spec.replicas <= 1', message: 'one replica' }],
      ...spec,
    },
  });
  const binding = (actions: string[], extra: Obj = {}) => ({ metadata: { name: 'b' }, spec: { policyName: 'p', validationActions: actions, ...extra } });
  const deployment = (replicas: number, labels: Obj = {}) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    resource: 'deployments',
    namespace: 'web',
    object: { metadata: { name: 'd', labels }, spec: { replicas } },
    namespaceObject: { metadata: { name: 'web', labels: { 'kubernetes.io/metadata.name': 'web', tier: 'public' } } },
  });

  it('denies through a Deny binding, with the message; passes what holds; matches by resource, namespace and object labels', () => {
    expect(policyDecisions([policy()], [binding(['Deny'])], deployment(2))).toEqual([{ policy: 'p', binding: 'b', actions: ['Deny'], message: 'one replica' }]);
    expect(policyDecisions([policy()], [binding(['Deny'])], deployment(1))).toEqual([]);
    expect(policyDecisions([policy()], [binding(['Deny'])], { ...deployment(2), apiVersion: 'v1', kind: 'Service', resource: 'services' })).toEqual([]);
    expect(
      policyDecisions([policy()], [binding(['Deny'], { matchResources: { namespaceSelector: { matchLabels: { tier: 'internal' } } } })], deployment(2)),
    ).toEqual([]);
    expect(
      policyDecisions([policy()], [binding(['Deny'], { matchResources: { objectSelector: { matchLabels: { app: 'x' } } } })], deployment(2, { app: 'x' })),
    ).toHaveLength(1);
  });

  it('keeps the binding actions, gates on matchConditions, evaluates variables and messageExpression', () => {
    expect(policyDecisions([policy()], [binding(['Warn', 'Audit'])], deployment(3))[0]!.actions).toEqual(['Warn', 'Audit']);
    expect(
      policyDecisions([policy({ matchConditions: [{ name: 'big', expression: 'object.spec.replicas > 5' }] })], [binding(['Deny'])], deployment(3)),
    ).toEqual([]);
    const withVariables = policy({
      variables: [{ name: 'n', expression: 'object.spec.replicas * 2' }],
      validations: [{ expression: 'variables.n <= 4', messageExpression: "'twice is ' + string(variables.n)" }],
    });
    expect(policyDecisions([withVariables], [binding(['Deny'])], deployment(3)).map((d) => d.message)).toEqual(['twice is 6']);
  });

  it("builds an authorizer request as the API server does, and says not judged where the cluster's decision is read", () => {
    const reads = policy({
      validations: [{ expression: "authorizer.group('apps').resource('deployments').namespace(object.metadata.name).check('create').allowed()" }],
    });
    expect(policyDecisions([reads], [binding(['Deny'])], deployment(3))).toEqual([]);
    // Whatever the decision, this holds: CEL's || absorbs the unknown side, as it would a true or a false.
    const either = policy({ validations: [{ expression: "authorizer.path('/healthz').check('get').allowed() || object.spec.replicas <= 1", message: 'm' }] });
    expect(policyDecisions([either], [binding(['Deny'])], deployment(1))).toEqual([]);
    // A builder called on something that is not a request is the API server's compile error, here an evaluation error: failurePolicy Fail denies.
    const wrong = policy({ validations: [{ expression: "'pods'.check('get') == 'x'" }] });
    expect(policyDecisions([wrong], [binding(['Deny'])], deployment(1))[0]!.message).toMatch(/no such overload/);
  });

  it('judges a policy with parameters once per parameter its paramRef finds, and as parameterNotFoundAction says when none', () => {
    const limited = policy({
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'object.spec.replicas <= int(params.data.max)', messageExpression: "'at most ' + params.data.max" }],
    });
    const limit = (name: string, max: string, namespace = 'web', labels: Obj = {}) => ({ object: { metadata: { name, labels }, data: { max } }, namespace });
    const lookup = () => [limit('strict', '1', 'web', { tier: 'a' }), limit('loose', '5', 'web', { tier: 'a' }), limit('strict', '0', 'other')];
    const byName = binding(['Deny'], { paramRef: { name: 'strict', parameterNotFoundAction: 'Deny' } });
    expect(policyDecisions([limited], [byName], deployment(2), lookup).map((d) => d.message)).toEqual(['at most 1']);
    const bySelector = binding(['Deny'], { paramRef: { selector: { matchLabels: { tier: 'a' } }, parameterNotFoundAction: 'Deny' } });
    expect(policyDecisions([limited], [bySelector], deployment(3), lookup).map((d) => d.message)).toEqual(['at most 1']);
    const missing = binding(['Deny'], { paramRef: { name: 'absent', parameterNotFoundAction: 'Deny' } });
    expect(policyDecisions([limited], [missing], deployment(1), lookup).map((d) => d.message)).toEqual([
      'failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction',
    ]);
    expect(policyDecisions([limited], [binding(['Deny'], { paramRef: { name: 'absent', parameterNotFoundAction: 'Allow' } })], deployment(9), lookup)).toEqual(
      [],
    );
  });

  it('counts an expression that reads an authorizer decision as not judged, and judges the rest', () => {
    const coverage = policyCoverage([
      policy({ validations: [{ expression: '[?object.?spec].size() == 1' }] }),
      policy({ validations: [{ expression: "authorizer.group('').resource('pods').check('create').allowed()" }] }),
    ]);
    expect(coverage).toMatchObject({ found: 2, compiled: 1 });
    expect(coverage.notJudged.map((n) => n.why)).toEqual([expect.stringContaining("the authorizer's decision depends on")]);
    expect(builtinResourceName('NetworkPolicy')).toBe('networkpolicies');
    expect(builtinResourceName('Ingress')).toBe('ingresses');
    expect(builtinResourceName('Endpoints')).toBe('endpoints');
  });
});

describe('built-in validation by Kubernetes minor (feature gates at their defaults)', () => {
  const deployment = (env: object[], envFrom: object[] = []) => ({
    metadata: { name: 'd' },
    spec: {
      selector: { matchLabels: { app: 'a' } },
      template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'a', image: 'a:1', env, envFrom }] } },
    },
  });
  const fns = (minor: number, env: object[], envFrom: object[] = []) => validateBuiltin('Deployment', deployment(env, envFrom), minor).map((p) => p.fn);

  it('reads each gate at the last step at or below the minor, off before it existed, newest when no minor is known', () => {
    for (const minor of [29, 30, 31]) expect(featuresAt(minor).has('RelaxedEnvironmentVariableValidation')).toBe(false);
    for (const minor of [32, 33, 34, 36, Number.NaN]) expect(featuresAt(minor).has('RelaxedEnvironmentVariableValidation')).toBe(true);
  });

  it('env names and envFrom prefixes: IsEnvVarName before 1.32, IsRelaxedEnvVarName from 1.32 on', () => {
    for (const name of ['1ST_RUN', 'MY VAR', 'a:b', '..hidden', '.'])
      expect([fns(31, [{ name, value: '1' }]), fns(32, [{ name, value: '1' }])], name).toEqual([['ValidateEnv (IsEnvVarName)'], []]);
    expect(fns(31, [], [{ prefix: '1_', configMapRef: { name: 'c' } }])).toEqual(['ValidateEnvFrom (IsEnvVarName)']);
    expect(fns(32, [], [{ prefix: '1_', configMapRef: { name: 'c' } }])).toEqual([]);
    // What both refuse: '=' and a character past printable ASCII.
    for (const name of ['A=B', 'é']) {
      expect(fns(31, [{ name, value: '1' }]), name).toEqual(['ValidateEnv (IsEnvVarName)']);
      expect(fns(32, [{ name, value: '1' }]), name).toEqual(['ValidateEnv (IsRelaxedEnvVarName)']);
    }
    for (const name of ['MY_VAR', 'my.env-name', '_x']) expect([fns(31, [{ name, value: '1' }]), fns(36, [{ name, value: '1' }])]).toEqual([[], []]);
  });

  it("the object an env var's key selector or an envFrom entry names, and its key, as validateSecretKeySelector and validateConfigMapEnvSource judge them", () => {
    const messages = (env: object[], envFrom: object[] = []) => validateBuiltin('Deployment', deployment(env, envFrom), 36).map((p) => `${p.fn}: ${p.message}`);
    // A name the schema leaves optional, which the API server still refuses empty ("effectively required").
    expect(messages([{ name: 'K', valueFrom: { secretKeyRef: { key: 'api-key' } } }])).toEqual([
      `validateSecretKeySelector: container a: secretKeyRef.name "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
    ]);
    expect(messages([{ name: 'K', valueFrom: { configMapKeyRef: { name: 'Cfg', key: 'a/b' } } }])).toEqual([
      `validateConfigMapKeySelector: container a: configMapKeyRef.name "Cfg": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
      `validateConfigMapKeySelector: container a: configMapKeyRef.key "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.'`,
    ]);
    expect(messages([{ name: 'K', valueFrom: { secretKeyRef: { name: 's', key: '' } } }])).toEqual([
      'validateSecretKeySelector: container a: secretKeyRef.key: Required value',
    ]);
    expect(messages([], [{ secretRef: {} }, { configMapRef: { name: 'c' }, secretRef: { name: 's' } }, {}])).toEqual([
      'validateSecretEnvSource: container a: envFrom secretRef.name: Required value',
      'ValidateEnvFrom: container a: envFrom: may not have more than one field specified at a time',
      'ValidateEnvFrom: container a: envFrom: must specify one of: `configMapRef` or `secretRef`',
    ]);
    // What the API server takes: names and keys as the repository writes them, and an envFrom name ending in a dash.
    expect(
      messages(
        [
          { name: 'A', valueFrom: { secretKeyRef: { name: 'bazarr-api-key', key: 'api-key' } } },
          { name: 'B', valueFrom: { configMapKeyRef: { name: 'cfg.v1', key: '.hidden_key-1' } } },
        ],
        [{ configMapRef: { name: 'env-' } }, { secretRef: { name: 'creds' }, prefix: 'X_' }],
      ),
    ).toEqual([]);
  });

  it("masks a prefix's trailing dash as apimachinery does: the last two characters for an `a`, a lone dash left as it is", () => {
    const envFrom = (name: string) => validateBuiltin('Deployment', deployment([], [{ configMapRef: { name } }]), 36).map((p) => p.fn);
    // Go's quirk: the character before the dash is never judged, so `a_-` passes and `-` alone does not.
    expect([envFrom('env-'), envFrom('a_-'), envFrom('-'), envFrom('a_b-')]).toEqual([[], [], ['validateConfigMapEnvSource'], ['validateConfigMapEnvSource']]);
    const generated = (generateName: string) => validateBuiltin('ConfigMap', { metadata: { generateName } }, 36).map((p) => p.fn);
    expect(generated('a_-')).toEqual([]);
    expect(generated('-')).not.toEqual([]);
  });

  it("says the API server's words on each side", () => {
    const strict = validateBuiltin(
      'Deployment',
      deployment([
        { name: '1X', value: '1' },
        { name: '..x', value: '1' },
      ]),
      31,
    ).map((p) => p.message);
    expect(strict).toEqual([
      `container a: env name "1X": a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')`,
      `container a: env name "..x": must not start with '..'`,
    ]);
    const [relaxed] = validateBuiltin('Deployment', deployment([{ name: 'A=B', value: '1' }]), 35);
    expect(relaxed!.message).toBe(
      `container a: env name "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
    );
  });

  it('dnsConfig: the search paths by RelaxedDNSSearchValidation (on from 1.33), the rest at every minor', () => {
    const pod = (spec: object) => ({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'c:1' }], ...spec } });
    const judged = (minor: number, spec: object) => validateBuiltin('Pod', pod(spec), minor).map((p) => `${p.notJudged ? 'not judged: ' : ''}${p.message}`);
    for (const minor of [31, 32]) expect(featuresAt(minor).has('RelaxedDNSSearchValidation')).toBe(false);
    for (const minor of [33, 34, 36]) expect(featuresAt(minor).has('RelaxedDNSSearchValidation')).toBe(true);
    const searches = (...list: string[]) => ({ dnsConfig: { searches: list } });
    expect(judged(32, searches('abc_d.example.com'))).toEqual([
      `dnsConfig search "abc_d.example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
    ]);
    expect(judged(33, searches('abc_d.example.com'))).toEqual([]);
    // A trailing dot is fine on both sides; upper case on neither. Relaxed, a label may start with one '_' (an SRV
    // name), not end with one nor start with two, and a lone '.' passes (IsDNS1123SubdomainWithUnderscore).
    expect([judged(32, searches('example.com.')), judged(33, searches('example.com.'))]).toEqual([[], []]);
    expect(judged(33, searches('Example.com'))).toEqual([
      `dnsConfig search "Example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character`,
    ]);
    expect(judged(33, searches('_sip._tcp.abc_d.example.com', '.', 'a_b.'))).toEqual([]);
    expect(judged(32, searches('.'))).toEqual([expect.stringContaining('dnsConfig search ".": a lowercase RFC 1123 subdomain')]);
    for (const bad of ['sip_.example.com', '__sip.example.com', '_.example.com', '_sip..com'])
      expect(judged(33, searches(bad)), bad).toEqual([expect.stringContaining(`dnsConfig search "${bad}": a lowercase RFC 1123 subdomain must consist`)]);
    expect(judged(35, searches(...Array.from({ length: 33 }, (_, i) => `s${i}.example.com`)))).toEqual([
      'dnsConfig.searches: must not have more than 32 search paths',
    ]);
    // Nameservers: IPs as ParseIPSloppy reads them, at most three; a None policy needs one.
    expect(judged(35, { dnsConfig: { nameservers: ['1.2.3.4', '010.0.0.1', '::1'] } })).toEqual([]);
    expect(judged(35, { dnsConfig: { nameservers: ['dns.example.com'] } })).toEqual([
      'dnsConfig nameserver "dns.example.com": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    ]);
    expect(judged(35, { dnsConfig: { nameservers: ['1.1.1.1', '1.0.0.1', '8.8.8.8', '8.8.4.4'] } })).toEqual([
      'dnsConfig.nameservers: must not have more than 3 nameservers',
    ]);
    expect(judged(35, { dnsPolicy: 'None' })).toEqual(['must provide `dnsConfig` when `dnsPolicy` is None']);
    expect(judged(35, { dnsPolicy: 'None', dnsConfig: { searches: ['a.b'] } })).toEqual([
      'dnsConfig.nameservers: must provide at least one DNS nameserver when `dnsPolicy` is None',
    ]);
    expect(judged(35, { dnsConfig: { options: [{ name: 'ndots', value: '2' }, { value: '1' }] } })).toEqual([
      'dnsConfig.options: an option name must not be empty',
    ]);
  });
});

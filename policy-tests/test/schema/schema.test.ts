import { describe, expect, it } from 'vitest';
import { crdYaml } from '../../../test-support/crd-fixture.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluate, runGate, UsageError } from '../../gate/gate.ts';
import { parseKubernetesFlag } from '../../gate/cli.ts';
import { copyRepo } from '../support/helpers.ts';
import { formatFinding } from '../../model/core/findings.ts';
import { parseManifest } from '../../model/core/manifest.ts';
import { loadFieldTrees, type Shape } from '../../schema/field-tree.ts';
import { BUNDLED_SCHEMA_MINOR, SchemaLayer, type SchemaOptions } from '../../schema/schema-layer.ts';

const defaults: SchemaOptions = { strict: true, kubernetesMinor: BUNDLED_SCHEMA_MINOR, skip: [], reject: [], ignoreMissingSchemas: false };

async function check(text: string, options: Partial<SchemaOptions> = {}) {
  const [result] = await evaluate([parseManifest('t.yaml', text)], [], { ...defaults, ...options });
  return { status: result!.status, findings: result!.findings.map(formatFinding) };
}

const deployment = (containerExtra: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: apps
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27.3
${containerExtra}`;

describe('schema layer: strict by default', () => {
  it('rejects securityContext.capabilites (sic) on a core kind, at the key', async () => {
    const result = await check(deployment('          securityContext:\n            capabilites:\n              drop: ["ALL"]\n'));
    expect(result.status).toBe('invalid');
    expect(result.findings).toEqual([
      expect.stringMatching(
        /^t\.yaml:17:13 \[unknown-field\] apps\/v1\/Deployment: unknown field "spec\.template\.spec\.containers\.0\.securityContext\.capabilites" \(did you mean "capabilities"\?\)/,
      ),
    ]);
  });

  it('accepts the same resource with --no-strict, and the correct spelling in strict mode', async () => {
    expect((await check(deployment('          securityContext:\n            capabilites: {}\n'), { strict: false })).status).toBe('valid');
    expect((await check(deployment('          securityContext:\n            capabilities:\n              drop: ["ALL"]\n'))).status).toBe('valid');
  });

  it('rejects unknown fields on CRDs from the model packages (Argo CD, prometheus-operator)', async () => {
    const app = await check(
      'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a\nspec:\n  project: p\n  destination: {server: "https://kubernetes.default.svc", namespace: ns}\n  source: {repoURL: "https://x", targetRevision: main, path: ".", recurse: true}\n',
    );
    expect(app.findings).toEqual([expect.stringMatching(/^t\.yaml:8:\d+ \[unknown-field\] .*"spec\.source\.recurse"/)]);
    const sm = await check(
      'apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: s\nspec:\n  selector: {}\n  endpoints:\n    - port: metrics\n      intervall: 30s\n',
    );
    expect(sm.findings).toEqual([expect.stringMatching(/^t\.yaml:9:7 \[unknown-field\] .*"spec\.endpoints\.0\.intervall" \(did you mean "interval"\?\)/)]);
  });

  it('knows the prometheus-operator fields of the CRDs kube-prometheus-stack installs (models 6.x)', async () => {
    // Each of these was a false unknown-field with @kubernetes-models/prometheus-operator 4.x.
    const fixtures = [
      'apiVersion: monitoring.coreos.com/v1\nkind: Alertmanager\nmetadata: {name: a, namespace: monitoring}\nspec:\n  automountServiceAccountToken: false\n',
      'apiVersion: monitoring.coreos.com/v1\nkind: Prometheus\nmetadata: {name: p, namespace: monitoring}\nspec:\n  automountServiceAccountToken: false\n  enableOTLPReceiver: true\n',
      'apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: s, namespace: monitoring}\nspec:\n  selector: {}\n  endpoints:\n    - port: metrics\n      trackTimestampsStaleness: true\n',
    ];
    for (const text of fixtures) expect(await check(text)).toEqual({ status: 'valid', findings: [] });
    // And the same objects with a misspelt field still fail: the fields are known, not waved through.
    expect((await check(fixtures[1]!.replace('enableOTLPReceiver', 'enableOTLPReciever'))).findings).toEqual([
      expect.stringMatching(/\[unknown-field\] .*"spec\.enableOTLPReciever" \(did you mean "enableOTLPReceiver"\?\)/),
    ]);
  });

  it('rejects unknown fields on CRDs whose schema lives in this repo, metadata included', async () => {
    const es = await check(
      'apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: e\n  labelz: {}\nspec:\n  secretStoreRef: {name: s, kind: ClusterSecretStore}\n  target: {nmae: x}\n',
    );
    expect(es.findings).toEqual([
      expect.stringMatching(/^t\.yaml:5:3 \[unknown-field\] .*"metadata\.labelz" \(did you mean "labels"\?\)/),
      expect.stringMatching(/^t\.yaml:8:\d+ \[unknown-field\] .*"spec\.target\.nmae" \(did you mean "name"\?\)/),
    ]);
  });

  /** A Gadget (example.com/v1) with this spec, judged by a schema layer that knows the Gadget CRD with these spec properties. */
  const gadgetJudge = async (specProperties: string) => {
    const crd = crdYaml({ group: 'example.com', kind: 'Gadget', plural: 'gadgets', specProperties });
    const layer = (await SchemaLayer.create()).withCrds([{ file: 'crd.yaml', object: parseManifest('crd.yaml', crd).resources[0]!.object }]);
    return async (spec: string) =>
      (
        await evaluate(
          [parseManifest('t.yaml', `apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n  namespace: x\nspec:\n  ${spec}\n`)],
          [],
          defaults,
          { given: layer },
        )
      )[0]!;
  };

  it("allows a custom resource's apiVersion, kind and metadata when its CRD's schema does not list them, as the API server does", async () => {
    const gadgetOf = await gadgetJudge('                size: {type: integer}');
    const gadget = await gadgetOf('size: 1');
    expect({ status: gadget!.status, findings: gadget!.findings.map(formatFinding) }).toEqual({ status: 'valid', findings: [] });
    const typo = await gadgetOf('sise: 1');
    expect(typo!.findings.map(formatFinding)).toEqual([expect.stringMatching(/\[unknown-field\] .*"spec\.sise"/)]);
  });

  it("refuses a value at a field whose CRD pattern Go cannot compile, in kube-openapi's words: the API server admits the CRD, not the object", async () => {
    const gadgetOf = await gadgetJudge("                code: {type: string, pattern: '^(a)\\1$'}");
    expect((await gadgetOf('code: aa')).findings.map(formatFinding)).toEqual([
      expect.stringMatching(/^t\.yaml:7:9 \[schema\] example\.com\/v1\/Gadget: \/spec\/code: should match '\^\(a\)\\1\$, but pattern is invalid: .*'$/),
    ]);
    // An object that leaves the field unset is admitted, as the API server admits it.
    expect((await gadgetOf('{}')).status).toBe('valid');
  });

  it("holds a value to its format as the API server does: kube-openapi's formats, an unsupported one checking nothing, and each integer's range", async () => {
    const gadgetOf = await gadgetJudge(
      [
        '                replicas: {type: integer, format: int32}',
        '                count: {type: integer}',
        '                net: {type: string, format: cidr}',
        '                link: {type: string, format: uri-reference}',
        '                at: {type: string, format: date-time}',
        '                every: {type: string, format: duration}',
      ].join('\n'),
    );
    // Past int32 (the format says so) and past int64 (every integer's own range): refused.
    expect((await gadgetOf('replicas: 3000000000')).findings.map(formatFinding)).toEqual([
      expect.stringMatching(/\/spec\/replicas: must match format "int32"/),
    ]);
    expect((await gadgetOf('count: 1.0e+20')).findings.map(formatFinding)).toEqual([expect.stringMatching(/\/spec\/count: must match format "int64"/)]);
    // A CIDR kube-openapi cannot parse is refused; JSON Schema has no such format, and its checker let it through.
    expect((await gadgetOf('net: 10.0.0.0/33')).findings.map(formatFinding)).toEqual([expect.stringMatching(/\/spec\/net: must match format "cidr"/)]);
    // The API server strips a format it does not support; JSON Schema's uri-reference refuses a space, kube-openapi nothing.
    expect((await gadgetOf("link: 'a b'")).status).toBe('valid');
    // strfmt's date-time and duration, not RFC 3339's and ISO 8601's: a lowercase t and "3 days" are admitted, a space for the T is not.
    expect((await gadgetOf("at: '2014-12-15t08:00:00z'")).status).toBe('valid');
    expect((await gadgetOf("at: '2014-12-15 08:00:00Z'")).findings.map(formatFinding)).toEqual([
      expect.stringMatching(/\/spec\/at: must match format "datetime"/),
    ]);
    expect((await gadgetOf("every: '3 days'")).status).toBe('valid');
    // strfmt reads any digits-and-unit run loosely (P3D is 3 days to it); a text with none is refused.
    expect((await gadgetOf("every: 'P3D'")).status).toBe('valid');
    expect((await gadgetOf('every: soon')).findings.map(formatFinding)).toEqual([expect.stringMatching(/\/spec\/every: must match format "duration"/)]);
  });

  it('refuses the fields the API server prunes, as strict field validation refuses them, and only those', async () => {
    const gadgetOf = await gadgetJudge(
      [
        '                bare: {type: object}',
        '                kept: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {known: {type: object, properties: {a: {type: string}}}}}',
        '                template: {type: object, x-kubernetes-embedded-resource: true, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: true}}}',
      ].join('\n'),
    );
    // An object node that declares no field keeps none: JSON Schema would take anything there, the API server nothing.
    expect((await gadgetOf('bare: {foo: 1}')).findings.map(formatFinding)).toEqual([
      expect.stringMatching(/\[unknown-field\] .*unknown field "spec\.bare\.foo".*\(fix: remove it: the schema declares no field here\)/),
    ]);
    // Preserved fields stay, but the properties the node declares are still pruned inside.
    expect((await gadgetOf('kept: {other: 1, known: {a: x, b: y}}')).findings.map(formatFinding)).toEqual([
      expect.stringMatching(/unknown field "spec\.kept\.known\.b"/),
    ]);
    // An embedded resource keeps its apiVersion, kind and metadata unlisted; its metadata is ObjectMeta's.
    expect((await gadgetOf('template: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {x: 1}}')).status).toBe('valid');
    expect((await gadgetOf('template: {metadata: {nmae: p}}')).findings.map(formatFinding)).toEqual([
      expect.stringMatching(/unknown field "spec\.template\.metadata\.nmae"/),
    ]);
  });

  it('validates a custom resource as the API server does: a null it takes none of pruned, a default set before a required field is asked for', async () => {
    const gadgetOf = await gadgetJudge(
      [
        '                size: {type: integer}',
        '                inner: {type: object, required: [size], properties: {size: {type: integer, default: 1, minimum: 0}}}',
      ].join('\n'),
    );
    // Helm writes `size: null` for an empty value; the API server drops it (not nullable, no default).
    expect((await gadgetOf('size: null')).status).toBe('valid');
    // A required field with a default is defaulted first, missing or null.
    expect((await gadgetOf('inner: {}')).status).toBe('valid');
    expect((await gadgetOf('inner: {size: null}')).status).toBe('valid');
    expect((await gadgetOf('inner: {size: -1}')).findings.map(formatFinding)).toEqual([expect.stringMatching(/\/spec\/inner\/size: must be >= 0/)]);
  });

  it('reads an exclusive bound as OpenAPI v3 writes it, a flag beside its bound, as kube-openapi reads it', async () => {
    const gadgetOf = await gadgetJudge('                size: {type: integer, minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: false}');
    expect((await gadgetOf('size: 10')).status).toBe('valid');
    expect((await gadgetOf('size: 0')).findings.map(formatFinding)).toEqual([expect.stringMatching(/\/spec\/size: must be > 0/)]);
    expect((await gadgetOf('size: 11')).findings.map(formatFinding)).toEqual([expect.stringMatching(/\/spec\/size: must be <= 10/)]);
  });

  it("says a CRD's own oneOf as ajv says it: a value validation, not a field a decoder reads", async () => {
    const gadgetOf = await gadgetJudge("                mode: {type: string, oneOf: [{enum: ['a']}, {enum: ['b']}]}");
    expect((await gadgetOf('mode: c')).findings.map(formatFinding)).toContainEqual(
      expect.stringMatching(/\/spec\/mode: must match exactly one schema in "oneOf"/),
    );
  });

  it('reports type, enum and required-field errors at the offending node', async () => {
    const wrongType = await check(deployment('').replace('spec:\n  selector', 'spec:\n  replicas: two\n  selector'));
    expect(wrongType.findings).toEqual([expect.stringMatching(/^t\.yaml:7:13 \[schema\] .*\/spec\/replicas: must be integer/)]);
    const missing = await check('apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template: {}\n');
    expect(missing.findings).toEqual([expect.stringMatching(/^t\.yaml:5:1 \[schema\] .*missing required field "selector"/)]);
    const badEnum = await check(
      'apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: e\nspec:\n  target:\n    creationPolicy: Sometimes\n',
    );
    expect(badEnum.findings).toEqual([expect.stringMatching(/^t\.yaml:7:21 \[schema\] .*creationPolicy: must be one of "Owner", "Orphan", "Merge", "None"/)]);
  });
});

describe("schema layer: a built-in kind's formats as the API server decodes them", () => {
  it('refuses a quantity Quantity.UnmarshalJSON refuses (an SI prefix Kubernetes lacks), in its words, once, and takes one it trims', async () => {
    const sized = (limit: string) =>
      deployment('').replace(
        '          image: nginx:1.27.3\n',
        `          image: nginx:1.27.3\n      volumes:\n        - name: s\n          emptyDir: {sizeLimit: ${limit}}\n`,
      );
    const refused = await check(sized('2d'));
    expect(refused.findings).toEqual([
      expect.stringMatching(/^t\.yaml:18:33 \[schema\] .*\/emptyDir\/sizeLimit: "2d" is not a quantity: quantities must match the regular expression/),
    ]);
    expect((await check(sized('"1Gi "'))).findings).toEqual([]);
    expect((await check(sized('1.5'))).findings).toEqual([]);
  });

  it("says an int-or-string IntOrString.UnmarshalJSON refuses once, in encoding/json's words, where a CRD's own oneOf stays as it is", async () => {
    const rolling = (value: string) =>
      deployment('').replace('spec:\n  selector', `spec:\n  strategy:\n    rollingUpdate: {maxUnavailable: ${value}}\n  selector`);
    expect((await check(rolling('1.5'))).findings).toEqual([
      expect.stringMatching(
        /^t\.yaml:\d+:\d+ \[schema\] .*\/maxUnavailable: 1\.5 is not an int-or-string: json: cannot unmarshal number 1\.5 into Go value of type int32$/,
      ),
    ]);
    expect((await check(rolling('true'))).findings).toEqual([expect.stringMatching(/cannot unmarshal bool into Go value of type int32$/)]);
    expect((await check(rolling('"25%"'))).findings).toEqual([]);
  });

  it("takes a base64 value wrapped over lines, as encoding/json's []byte does, and refuses one without its padding", async () => {
    const secret = (value: string) => `apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: apps\ndata:\n  key: ${value}\n`;
    expect((await check(secret('|\n    YWJj\n    ZGVm\n'))).findings).toEqual([]);
    expect((await check(secret('YWJjZA'))).findings).toEqual([expect.stringMatching(/\/data\/key: must match format "byte"/)]);
  });

  it("refuses a timestamp metav1.Time's time.Parse(time.RFC3339) refuses, which JSON Schema's date-time takes", async () => {
    const stamped = (at: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: apps\n  creationTimestamp: "${at}"\n`;
    expect((await check(stamped('2024-01-01T00:00:00Z'))).findings).toEqual([]);
    for (const at of ['2024-01-01 00:00:00Z', '2024-01-01t00:00:00z'])
      expect((await check(stamped(at))).findings).toEqual([expect.stringMatching(/creationTimestamp: must match format "date-time"/)]);
  });
});

describe('schema layer: kinds and versions', () => {
  const widget = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n';

  it('fails a kind with no schema, unless --ignore-missing-schemas', async () => {
    expect(await check(widget)).toEqual({
      status: 'error',
      findings: [expect.stringMatching(/^t\.yaml:2:7 \[missing-schema\] no schema for example\.com\/v1\/Widget/)],
    });
    expect((await check(widget, { ignoreMissingSchemas: true })).status).toBe('skipped');
  });

  it('skips and rejects by Kind or apiVersion/Kind', async () => {
    expect((await check(widget, { skip: ['Widget'] })).status).toBe('skipped');
    expect((await check(widget, { skip: ['example.com/v1/Widget'] })).status).toBe('skipped');
    const rejected = await check(deployment(''), { reject: ['apps/v1/Deployment'] });
    expect(rejected.findings).toEqual([expect.stringMatching(/\[rejected-kind\]/)]);
  });

  it('fails API versions the pinned Kubernetes no longer serves', async () => {
    const cronJob =
      'apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: c\nspec:\n  schedule: "@daily"\n  jobTemplate: {spec: {template: {spec: {containers: [{name: c, image: "busybox:1.36"}]}}}}\n';
    expect((await check(cronJob)).findings).toEqual([
      expect.stringMatching(/^t\.yaml:1:13 \[removed-api\] batch\/v1beta1 CronJob is not served since Kubernetes 1\.25 \(fix: use batch\/v1\)/),
    ]);
    expect((await check(cronJob, { kubernetesMinor: 24 })).status).toBe('valid');
    // --kubernetes-version reaches the schema layer through the gate's front: the same file, judged at 1.24 and at the default.
    const dir = mkdtempSync(join(tmpdir(), 'versions-'));
    try {
      writeFileSync(join(dir, 'cron.yaml'), cronJob);
      const judged = async (kubernetesVersion?: string) =>
        (
          await runGate({
            paths: ['cron.yaml'],
            cwd: dir,
            render: false,
            ...(kubernetesVersion ? { kubernetesVersion: parseKubernetesFlag(kubernetesVersion) } : {}),
          })
        ).resources.map((r) => r.status);
      expect(await judged('1.24.0')).toEqual(['valid']);
      expect(await judged()).toEqual(['invalid']);
      await expect(judged('1.x')).rejects.toThrow(UsageError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("--kubernetes-version reaches the schema layer for the repository's own files with --no-render too", async () => {
    const cronJob =
      'apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: old\n  namespace: backups\nspec:\n  schedule: "@daily"\n  jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: "busybox:1.36"}]}}}}\n';
    const copy = copyRepo();
    try {
      copy.write('apps/platform/backups/old-cron.yaml', cronJob);
      const judged = async (kubernetesVersion?: string) =>
        (
          await runGate({
            root: copy.root,
            cwd: copy.root,
            paths: ['apps/platform/backups/old-cron.yaml'],
            render: false,
            ...(kubernetesVersion ? { kubernetesVersion: parseKubernetesFlag(kubernetesVersion) } : {}),
          })
        ).resources.map((r) => r.status);
      expect(await judged('1.24.0')).toEqual(['valid']);
      expect(await judged()).toEqual(['invalid']);
    } finally {
      copy.dispose();
    }
  });

  it('accepts --kubernetes-version only where offline schemas exist', () => {
    expect(parseKubernetesFlag(`1.${BUNDLED_SCHEMA_MINOR}.2`)).toEqual({ version: `1.${BUNDLED_SCHEMA_MINOR}.2`, major: 1, minor: BUNDLED_SCHEMA_MINOR });
    expect(parseKubernetesFlag('v1.30')).toEqual({ version: '1.30.0', major: 1, minor: 30 });
    expect(() => parseKubernetesFlag(`1.${BUNDLED_SCHEMA_MINOR + 1}.0`)).toThrow(UsageError);
    expect(() => parseKubernetesFlag('latest')).toThrow(/must look like/);
  });

  it('BUNDLED_SCHEMA_MINOR matches what kubernetes-models really describes', async () => {
    const trees = await loadFieldTrees();
    const fields = (kind: string, ...path: string[]): string[] => {
      let shape: Shape | undefined = trees.shapes[trees.kinds[kind]!.root];
      for (const p of path) {
        if (shape && typeof shape === 'object' && 'a' in shape) shape = trees.shapes[shape.a];
        shape = shape && typeof shape === 'object' && 'f' in shape ? trees.shapes[shape.f[p]!] : undefined;
      }
      return shape && typeof shape === 'object' && 'f' in shape ? Object.keys(shape.f) : [];
    };
    // Lifecycle.stopSignal arrived in 1.33, PodSpec.hostnameOverride in 1.34,
    // PodSpec.schedulingGroup in 1.36 (it replaced 1.35's alpha workloadRef).
    expect(fields('v1/Pod', 'spec', 'containers', 'lifecycle')).toContain('stopSignal');
    expect(fields('v1/Pod', 'spec')).toContain('hostnameOverride');
    expect(fields('v1/Pod', 'spec')).toContain('schedulingGroup');
    expect(fields('v1/Pod', 'spec')).not.toContain('workloadRef');
    expect(BUNDLED_SCHEMA_MINOR).toBe(36);
  });
});

describe("schema layer: CronJob schedules in Kubernetes' dialect", () => {
  const cronJob = (schedule: string, timeZone?: string) => `apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
  namespace: apps
spec:
  schedule: "${schedule}"
${timeZone === undefined ? '' : `  timeZone: ${timeZone}\n`}  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: job
              image: busybox:1.37.0
`;

  it.each([
    ['10 25 * * *', 'end of range (25) above maximum (23): 25'],
    ['99 6 * * *', 'end of range (99) above maximum (59): 99'],
    ['TZ=Europe/Berlin 0 2 * * *', 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'],
    ['0 0 2 * * *', 'expected exactly 5 fields, found 6: [0 0 2 * * *]'],
    ['0 2 L * *', 'failed to parse int from L: strconv.Atoi: parsing "L": invalid syntax'],
    ['0 2 * * 7', 'end of range (7) above maximum (6): 7'],
    ['0 2 * * mon-sun', 'beginning of range (1) beyond end of range (0): mon-sun'],
    ['*/0 2 * * *', 'step of range should be a positive number: */0'],
    ['0 2 30 2 *', 'the job never runs'],
    ['@fortnightly', 'unrecognized descriptor: @fortnightly'],
    ['@every 1d', 'failed to parse duration @every 1d: time: unknown unit "d" in duration "1d"'],
  ])('refuses "%s" at the schedule: %s', async (schedule, why) => {
    const result = await check(cronJob(schedule));
    expect(result.status).toBe('invalid');
    expect(result.findings).toEqual([expect.stringContaining(`t.yaml:7:13 [cron-schedule] batch/v1/CronJob: schedule "${schedule}": `)]);
    expect(result.findings[0]).toContain(why);
  });

  // robfig's own corners: a star before a hyphen is a star, empty list items are dropped, a step past the range
  // selects its start, a sign is a number's, and a day the week also restricts fires on that weekday.
  it.each([
    '0 2 * * *',
    '30 3 1 * *',
    '*/15 * * * MON-FRI',
    '@daily',
    '@every 1h30m',
    '0 0 ? * *',
    '*-5 2 * * *',
    '0 2,,3 * * *',
    '*/90 * * * *',
    '+5 2 * * *',
    '0 2 30 2 1',
  ])('accepts "%s"', async (schedule) => {
    expect(await check(cronJob(schedule, 'Europe/Berlin'))).toEqual({ status: 'valid', findings: [] });
  });

  it('refuses a time zone that is not an IANA name, at the field', async () => {
    const result = await check(cronJob('0 2 * * *', 'Mars/Olympus'));
    expect(result.findings).toEqual([
      expect.stringMatching(/^t\.yaml:8:13 \[cron-schedule\] batch\/v1\/CronJob: timeZone "Mars\/Olympus": unknown time zone Mars\/Olympus/),
    ]);
  });
});

describe('kind: List, as kubectl get -o yaml prints it', () => {
  it("validates each item on its own, with findings at the item's lines", async () => {
    const list = `apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: fine, namespace: apps}
    data: {a: b}
  - apiVersion: v1
    kind: Service
    metadata: {name: typo, namespace: apps}
    spec:
      prots: [{port: 80}]
`;
    const results = await evaluate([parseManifest('t.yaml', list)], [], defaults);
    expect(results.map((r) => [r.kind, r.name, r.status])).toEqual([
      ['ConfigMap', 'fine', 'valid'],
      ['Service', 'typo', 'invalid'],
    ]);
    expect(results[1]!.findings.map(formatFinding)).toEqual([
      expect.stringMatching(/^t\.yaml:12:7 \[unknown-field\] v1\/Service: unknown field "spec\.prots" \(did you mean "ports"\?\)/),
    ]);
  });

  it('reports an item that is not an object, and a List without items', async () => {
    const parsed = parseManifest('t.yaml', 'apiVersion: v1\nkind: List\nitems:\n  - just a string\n---\napiVersion: v1\nkind: List\n');
    expect(parsed.findings.map(formatFinding)).toEqual([
      expect.stringMatching(/^t\.yaml:4:5 \[manifest-shape\] item 0 of the List is a string/),
      expect.stringMatching(/^t\.yaml:6:1 \[manifest-shape\] a List must have items/),
    ]);
  });
});

describe("schema layer: a custom resource's metadata is ObjectMeta", () => {
  const certificate = (metadata: string) =>
    `apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n${metadata}spec:\n  secretName: web-tls\n  dnsNames: [web.example.net]\n  issuerRef: {name: letsencrypt, kind: ClusterIssuer}\n`;
  it('refuses what the API server cannot decode into ObjectMeta, which the CRD schema leaves open: a namespace that is a map, a label valued by a number', async () => {
    expect((await check(certificate('  name: web\n  namespace: {}\n'))).findings).toEqual([
      't.yaml:5:3 [schema] cert-manager.io/v1/Certificate: /metadata/namespace: must be string',
    ]);
    expect((await check(certificate('  name: web\n  namespace: apps\n  labels: {tier: 1}\n'))).findings).toEqual([
      't.yaml:6:18 [schema] cert-manager.io/v1/Certificate: /metadata/labels/tier: must be string',
    ]);
    expect(await check(certificate('  name: web\n  namespace: apps\n  labels: {tier: "1"}\n'))).toEqual({ status: 'valid', findings: [] });
  });
});

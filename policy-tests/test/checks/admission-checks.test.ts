/**
 * The checks that judge one object as the API server's validation and its CRDs judge it bite on a broken copy of the
 * real repository, and are judged as the API server judges them; what a sync meets beyond one object (quotas,
 * allocators, admission policies, Pod Security, impersonation, replacement) and its mutations: admission-sync-checks.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeMutations } from '../support/mutation-runner.ts';
import { copyGateOptions, copyRepo, lineOf, type RepoCopy } from '../support/helpers.ts';
import { API, CONTAINER } from '../mutations/edits.ts';
import { parseKubernetesFlag } from '../../gate/cli.ts';
import { allFindings, runGate } from '../../gate/gate.ts';
import { admissionMutations, CRD_FILE, drillCrd } from '../mutations/admission.ts';
import { nonRootMutations, volumeMountMutations, volumeSourceMutations } from '../mutations/pod-refusals.ts';

describeMutations("admission checks (admission/) on one object's validation bite on a broken copy of the real repository", admissionMutations);
describeMutations('api-validation bites on the storage volume sources of a broken copy of the real repository', volumeSourceMutations);
describeMutations('api-validation bites on the volume mounts of a broken copy of the real repository', volumeMountMutations);
describeMutations('kubelet-admits bites on a non-root policy beside user 0', nonRootMutations);

/**
 * For the describe it is called in: a broken copy of the repository whose Drill CRD declares these spec properties,
 * and a function that writes the backups app's Drill `edge` with one line of spec and gives every finding the gate
 * then makes, as `check file:line message`.
 */
function withDrillCrd(specProperties: string): (specLine: string) => Promise<string[]> {
  let copy: RepoCopy;
  beforeAll(() => {
    copy = copyRepo();
    copy.write(CRD_FILE, drillCrd(specProperties));
  });
  afterAll(() => copy?.dispose());
  return async (specLine) => {
    copy.write(
      'apps/platform/backups/drill.yaml',
      `apiVersion: backups.homelab.example/v1\nkind: Drill\nmetadata:\n  name: edge\n  namespace: backups\nspec:\n  ${specLine}\n`,
    );
    return (await copy.gate()).map((f) => `${f.check} ${f.file}:${f.line} ${f.message}`);
  };
}

describe('built-in validation follows --kubernetes-version where a feature gate changed it', () => {
  // Two gates, off by default before the minor they changed in (kube_features.go): RelaxedEnvironmentVariableValidation
  // (1.32: an env name may start with a digit) and RelaxedDNSSearchValidation (1.33: a search path may hold '_').
  // The same broken copy, judged on each side of both.
  let copy: RepoCopy;
  beforeAll(() => {
    copy = copyRepo();
    copy.edit(API, 0, (d) => {
      d.setIn([...CONTAINER, 'env'], d.createNode([{ name: '1ST_RUN', value: 'yes' }]));
      d.setIn(['spec', 'template', 'spec', 'dnsConfig'], d.createNode({ searches: ['abc_d.example.com'] }));
    });
  });
  afterAll(() => copy?.dispose());
  const validation = async (version: string) =>
    (await copy.gate({ kubernetesVersion: parseKubernetesFlag(version) }))
      .filter((f) => f.check === 'api-validation')
      .map((f) => `${f.file}:${f.line} ${f.message.replace(/^Deployment portfolio-api: /, '')}`);

  it("refuses the env name and the search path at 1.31, each at its line, in the API server's words", async () => {
    expect(await validation('1.31')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${API}:${lineOf(copy, API, '1ST_RUN')} container api: env name "1ST_RUN": a valid environment variable name must consist of alphabetic characters`,
        ),
      ),
      expect.stringMatching(
        new RegExp(`^${API}:${lineOf(copy, API, 'abc_d.example.com')} dnsConfig search "abc_d.example.com": a lowercase RFC 1123 subdomain`),
      ),
    ]);
  });

  it('admits the env name at 1.32 and still refuses the search path', async () => {
    expect(await validation('1.32')).toEqual([expect.stringContaining('dnsConfig search "abc_d.example.com"')]);
  });

  it('admits both at 1.33', async () => {
    expect(await validation('1.33')).toEqual([]);
  });
});

describe('a CRD rule reads an integer past a double exactly, as the API server reads int64', () => {
  // One broken copy: a CRD whose rule pins a field to the largest int64, and a custom resource the backups app applies.
  const drill = withDrillCrd(
    `                max:\n                  type: integer\n                  format: int64\n                  x-kubernetes-validations:\n                    - rule: "self == 9223372036854775807"\n                      message: max must be the largest int64\n`,
  );
  const judged = (digits: string) => drill(`max: ${digits}`);

  it('admits the largest int64', async () => {
    expect(await judged('9223372036854775807')).toEqual([]);
  });

  it('refuses one less, which a double cannot tell from it, at its line', async () => {
    expect(await judged('9223372036854775806')).toEqual([
      'crd-validation-rule apps/platform/backups/drill.yaml:7 Drill edge: Invalid value: max must be the largest int64 (rule of apps/platform/backups/crd.yaml)',
    ]);
  });
});

describe('a CRD rule whose estimated cost the gate cannot make is not judged, and says why', () => {
  let copy: RepoCopy;
  beforeAll(() => {
    copy = copyRepo();
    // string() of a Quantity: a call the estimate's overload table does not match, so its cost is not guessed.
    copy.write(
      CRD_FILE,
      drillCrd(
        `                hosts:\n                  type: array\n                  maxItems: 4\n                  items:\n                    type: string\n                  x-kubernetes-validations:\n                    - rule: 'string(quantity("1Mi")) == "1Mi"'\n`,
      ),
    );
  });
  afterAll(() => copy?.dispose());

  it('passes the CRD and lists its rule as not judged for crd-accepted, at the rule', async () => {
    const result = await runGate(copyGateOptions(copy.root));
    expect(allFindings(result)).toEqual([]);
    expect(result.notJudged.filter((f) => f.check === 'crd-accepted').map((f) => `${f.file}:${f.line} ${f.message}`)).toEqual([
      `apps/platform/backups/crd.yaml:${lineOf(copy, 'apps/platform/backups/crd.yaml', `- rule: 'string(quantity("1Mi")) == "1Mi"'`)} CustomResourceDefinition drills.backups.homelab.example: the rule "string(quantity(\\"1Mi\\")) == \\"1Mi\\"": its estimated cost is not judged: this check does not type no overload of string for its arguments`,
    ]);
  });
});

describe('the admission layer says which Pod Security levels it judged at', () => {
  it('counts each namespace holding pods at its enforce level, and an exempt one apart', async () => {
    const copy = copyRepo();
    try {
      const run = async () => (await runGate(copyGateOptions(copy.root))).podSecurity;
      // kube-system, which the facts exempt, holds the GPU device plugin: counted apart, at no level.
      expect(await run()).toEqual({ enforced: { restricted: 2, baseline: 2, privileged: 1 }, exempt: 1 });
      copy.remove('apps/platform/intel-gpu-plugin/daemonset.yaml');
      expect(await run()).toEqual({ enforced: { restricted: 2, baseline: 2, privileged: 1 }, exempt: 0 });
      // A Job the backups app puts there counts it again.
      copy.write(
        'apps/platform/backups/probe.yaml',
        'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: probe\n  namespace: kube-system\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: probe\n          image: busybox:1.36\n',
      );
      expect(await run()).toEqual({ enforced: { restricted: 2, baseline: 2, privileged: 1 }, exempt: 1 });
    } finally {
      copy.dispose();
    }
  });
});

describe("a transition rule where nothing correlates old and new, in the API server's words", () => {
  it('names the highest list whose items do not correlate, as field.Path spells it', async () => {
    const copy = copyRepo();
    try {
      copy.write(
        CRD_FILE,
        drillCrd(
          '                hosts:\n                  type: array\n                  maxItems: 10\n                  x-kubernetes-list-type: set\n                  items:\n                    type: string\n                    maxLength: 20\n                    x-kubernetes-validations:\n                      - rule: "self == oldSelf"\n',
        ),
      );
      const messages = (await copy.gate()).map((f) => f.message);
      expect(messages).toEqual([
        'CustomResourceDefinition drills.backups.homelab.example: the rule "self == oldSelf" is refused: oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[hosts]',
      ]);
    } finally {
      copy.dispose();
    }
  });
});

describe("a custom resource's embedded resource is validated as objectmeta.Validate validates it", () => {
  const drill = withDrillCrd(
    `                template:\n                  type: object\n                  x-kubernetes-embedded-resource: true\n                  x-kubernetes-preserve-unknown-fields: true\n`,
  );
  const judged = (template: string) => drill(`template: ${template}`);

  it('admits one with its apiVersion, kind and a valid name', async () => {
    expect(await judged('{apiVersion: v1, kind: ConfigMap, metadata: {name: probe}}')).toEqual([]);
  });

  it("refuses a creationTimestamp Go's RFC 3339 parse refuses, though JavaScript's Date reads it", async () => {
    expect(await judged("{apiVersion: v1, kind: ConfigMap, metadata: {name: probe, creationTimestamp: 'Feb 29 2024'}}")).toEqual([
      expect.stringMatching(
        /spec\.template\.metadata: Invalid value: .*ObjectMeta\.creationTimestamp: "Feb 29 2024" is not an RFC 3339 time \[objectmeta\.Validate\]$/,
      ),
    ]);
  });

  it('refuses one without a kind, and one whose name holds a slash, at the field', async () => {
    expect(await judged('{apiVersion: v1, metadata: {name: a/b}}')).toEqual([
      expect.stringMatching(
        /^api-validation apps\/platform\/backups\/drill\.yaml:7 Drill edge: spec\.template\.kind: Required value \[objectmeta\.Validate\]$/,
      ),
      expect.stringMatching(
        /^api-validation apps\/platform\/backups\/drill\.yaml:7 Drill edge: spec\.template\.metadata\.name: Invalid value: "a\/b": may not contain '\/' \[objectmeta\.Validate\]$/,
      ),
    ]);
  });
});

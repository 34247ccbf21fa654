/**
 * A CRD's schema and its validation rules bite on a broken copy of the real repository, and are judged as the API
 * server judges them: an int64 past a double, a rule whose cost the gate cannot estimate, a transition rule with
 * nothing to correlate, an embedded resource's metadata. The API server's own validation: admission-checks.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeMutations } from '../support/mutation-runner.ts';
import { copyGateOptions, copyRepo, lineOf, type RepoCopy } from '../support/helpers.ts';

import { allFindings, runGate } from '../../gate/gate.ts';
import { crdMutations, CRD_FILE, drillCrd } from '../mutations/admission.ts';

describeMutations("the CRD checks (admission/) on a custom resource's schema and rules bite on a broken copy of the real repository", crdMutations);

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

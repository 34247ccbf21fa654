/**
 * The API server's own validation of one object bites on a broken copy of the real repository, and is judged as the
 * API server judges it: built-in validation, the storage volume sources and mounts, the kubelet's non-root rule,
 * Pod Security's levels. A CRD's schema and rules: crd-checks.test.ts; what a sync meets beyond one object (quotas,
 * allocators, admission policies, Pod Security, impersonation, replacement): admission-sync-checks.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeMutations } from '../support/mutation-runner.ts';
import { copyRepo, lineOf, type RepoCopy } from '../support/helpers.ts';
import { API, CONTAINER } from '../mutations/edits.ts';
import { parseKubernetesFlag } from '../../gate/cli.ts';
import { apiValidationMutations } from '../mutations/admission.ts';
import { nonRootMutations, volumeMountMutations, volumeSourceMutations } from '../mutations/pod-refusals.ts';

describeMutations("api-validation on one object's validation bites on a broken copy of the real repository", apiValidationMutations);
describeMutations('api-validation bites on the storage volume sources of a broken copy of the real repository', volumeSourceMutations);
describeMutations('api-validation bites on the volume mounts of a broken copy of the real repository', volumeMountMutations);
describeMutations('kubelet-admits bites on a non-root policy beside user 0', nonRootMutations);

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

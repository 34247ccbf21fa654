/** The checks of the Argo CD parity work bite on a broken copy of the real repository: what Argo CD's repo-server applies and the gate refuses (checks/argocd/repo-server.ts), and privilege named where it is held, and granted to no subject that stands for many (checks/privileges/). */
import { describe, expect, it } from 'vitest';
import { describeMutations } from '../support/mutation-runner.ts';
import { checkIds, copyRepo, describeFindings } from '../support/helpers.ts';
import { argocdRepoServerMutations } from '../mutations/argocd-repo-server.ts';
import { privilegesMutations } from '../mutations/privileges.ts';

describeMutations('Argo CD parity (argocd/repo-server.ts) bites on a broken copy of the real repository', argocdRepoServerMutations);
describeMutations('privilege never inherited silently (privileges.ts) bites on a broken copy of the real repository', privilegesMutations);

describe('a source parameter file Argo CD merges into a source', () => {
  it("is judged as merged: the hostPID its kustomize patch adds to the VPN's Deployment is a privilege no annotation names, where the gate once only refused the file", async () => {
    const copy = copyRepo();
    try {
      copy.write(
        'apps/media/gluetun/.argocd-source-media-gluetun.yaml',
        [
          'kustomize:',
          '  patches:',
          '    - target: {kind: Deployment, name: gluetun}',
          '      patch: |-',
          '        - op: add',
          '          path: /spec/template/spec/hostPID',
          '          value: true',
          '',
        ].join('\n'),
      );
      const findings = await copy.gate({});
      expect(checkIds(findings), describeFindings(findings)).toEqual(['workload-privileges-named']);
      expect(findings.map((f) => `${f.file} ${f.message}`)).toEqual([
        expect.stringMatching(/^apps\/media\/gluetun\/deployment\.yaml Deployment gluetun holds pod: hostPID, which its/),
      ]);
    } finally {
      copy.dispose();
    }
  });
});

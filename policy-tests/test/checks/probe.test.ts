import { afterAll, beforeAll, describe, it } from 'vitest';
import { copyRepo, describeFindings, type RepoCopy } from '../support/helpers.ts';
import { applicationSet } from '../support/application-set.ts';
const REPO_URL = 'https://github.com/homelab-operator/homelab-gitops.git';
describe('probe', () => {
  let copy: RepoCopy;
  beforeAll(() => {
    copy = copyRepo();
  });
  afterAll(() => copy.dispose());
  it('git files outside appset', async () => {
    copy.reset();
    copy.write('apps/extras/whoami/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: whoami\n  namespace: media\n');
    copy.write('apps/extras/config/whoami.json', '{"name": "whoami"}\n');
    copy.write('apps/extras/config/other.yaml', 'name: whoami\n');
    copy.write(
      'clusters/home/extras.yaml',
      applicationSet([], ['- git:', `    repoURL: ${REPO_URL}`, '    revision: main', '    files:', '      - path: apps/extras/config/*'], {
        name: 'extra-{{name}}',
        path: 'apps/extras/{{name}}',
      }),
    );
    console.log(describeFindings(await copy.gate({})));
  });
});

/**
 * Config management plugins, as Argo CD's repo-server offers them a source that names no tool before kustomize, Helm
 * or a directory (util/app/discovery `Discover`; cmpserver/plugin `matchRepository`, v3.5.1): a sidecar whose
 * plugin.yaml's discovery matches the folder generates what reaches the cluster, and the gate refuses the source.
 */
import { describe, expect, it } from 'vitest';
import { claimingPlugins, cmpPlugins } from '../../model/argocd/cmp-plugins.ts';
import { applications } from '../../model/argocd/argocd.ts';
import { refusalsOf } from '../../model/argocd/refusals.ts';
import { loadRepo } from '../../model/repository/repo.ts';
import { fixtureRepo, repoApp } from '../../../test-support/render-fixtures.ts';
import { checkFindings } from '../../../test-support/gate-findings.ts';

const server = (mounts: string, volumes: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: argocd-repo-server
  namespace: argocd
spec:
  selector:
    matchLabels: {app: repo-server}
  template:
    metadata:
      labels: {app: repo-server}
    spec:
      containers:
        - name: argocd-repo-server
          image: quay.io/argoproj/argocd:v3.5.1
        - name: sops
          image: quay.io/argoproj/argocd:v3.5.1
          command: [/var/run/argocd/argocd-cmp-server]
${mounts}      volumes:
${volumes}`;
const MOUNT =
  '          volumeMounts:\n            - name: sops-plugin\n              mountPath: /home/argocd/cmp-server/config/plugin.yaml\n              subPath: plugin.yaml\n';
const VOLUME = '        - name: sops-plugin\n          configMap:\n            name: cmp-sops\n';
const plugin = (discover: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cmp-sops\n  namespace: argocd\ndata:\n  plugin.yaml: |\n    apiVersion: argoproj.io/v1alpha1\n    kind: ConfigManagementPlugin\n    metadata:\n      name: sops\n    spec:\n      generate:\n        command: [sh, -c, "sops -d *.sops.yaml"]\n${discover}`;

function lab(discover: string, mounts = MOUNT) {
  const repo = fixtureRepo();
  repo.write('clusters/home/repo-server.yaml', server(mounts, VOLUME));
  repo.write('clusters/home/cmp-sops.yaml', plugin(discover));
  repo.write('apps/web/application.yaml', repoApp('web', '    path: apps/web'));
  repo.write('apps/web/configmap.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n');
  return repo;
}

describe("a plugin sidecar of Argo CD's repo-server", () => {
  it('claims a source that names no tool where its discover.fileName matches in the folder, and the gate refuses the source', async () => {
    const repo = lab('      discover:\n        fileName: "*.sops.yaml"\n');
    let loaded = await loadRepo(repo.root);
    expect(cmpPlugins(loaded)).toEqual([{ container: 'sops', discover: { fileName: '*.sops.yaml', command: false } }]);
    expect(claimingPlugins(loaded, applications(loaded)[0]!.sources[0]!)).toEqual([]);
    repo.write('apps/web/secret.sops.yaml', 'data: ENC[...]\n');
    loaded = await loadRepo(repo.root);
    const [app] = applications(loaded);
    expect(refusalsOf(loaded, app!)).toEqual([
      expect.objectContaining({
        path: ['spec', 'source', 'path'],
        unread: true,
        message: expect.stringMatching(
          /^Argo CD offers apps\/web to the repo-server's plugin sidecar sops before it picks a directory, and discover\.fileName \*\.sops\.yaml matches/,
        ),
      }),
    ]);
    // The gate fails it at the source's path, in its check of what the repo-server applies.
    expect(await checkFindings('argocd-applied-files', { root: repo.root, env: process.env })).toEqual([
      expect.stringMatching(/^apps\/web\/application\.yaml:\d+ Argo CD offers apps\/web to the repo-server's plugin sidecar sops/),
    ]);
  });

  it('claims by find.glob across folders, by find.command always, and by a plugin.yaml the repository does not hold; never a source that names its tool', async () => {
    const glob = lab('      discover:\n        find:\n          glob: "**/*.enc"\n');
    glob.write('apps/web/deep/x.enc', 'x');
    const loaded = await loadRepo(glob.root);
    expect(claimingPlugins(loaded, applications(loaded)[0]!.sources[0]!)).toEqual([{ container: 'sops', how: 'discover.find.glob **/*.enc matches' }]);
    const command = await loadRepo(lab('      discover:\n        find:\n          command: [sh, -c, "ls"]\n').root);
    expect(claimingPlugins(command, applications(command)[0]!.sources[0]!)).toEqual([
      { container: 'sops', how: 'its discover.find.command runs there, which the gate cannot run' },
    ]);
    const baked = await loadRepo(lab('', '').root);
    expect(claimingPlugins(baked, applications(baked)[0]!.sources[0]!)[0]!.how).toMatch(/^its discovery is not known here \(no volume mounted/);
    // No discover at all: the plugin serves only a source that names it.
    const none = await loadRepo(lab('').root);
    expect(claimingPlugins(none, applications(none)[0]!.sources[0]!)).toEqual([]);
    const named = lab('      discover:\n        find:\n          command: [sh, -c, "ls"]\n');
    named.write('apps/web/application.yaml', repoApp('web', '    path: apps/web\n    directory:\n      recurse: false'));
    const explicit = await loadRepo(named.root);
    expect(claimingPlugins(explicit, applications(explicit)[0]!.sources[0]!)).toEqual([]);
  });
});

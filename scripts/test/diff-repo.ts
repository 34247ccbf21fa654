/**
 * A scratch git repository for the rendered diff's tests: one demo Application whose objects are one file,
 * committed as the base, and `npm run diff` run on it in process, its output and status kept.
 */
import { output } from '../../test-support/exec.ts';
import { fixtureRepo, repoApp, type FixtureRepo } from '../../test-support/render-fixtures.ts';
import { main } from '../diff/command.ts';

/** The demo Application: a plain folder, pruned and self-healed. */
export const DEMO_APP = repoApp(
  'demo',
  '    path: apps/demo\n    directory:\n      exclude: application.yaml',
  '  syncPolicy:\n    automated:\n      prune: true\n      selfHeal: true\n',
);

/** The demo app's Deployment: one container, its selector matching its pod labels. */
export const WEB = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: demo
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: ghcr.io/example/web:1.4.0
`;

/** The demo app's claim, of the repository's block class. */
export const CLAIM = `---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: demo
spec:
  storageClassName: ceph-block
  accessModes: [ReadWriteOnce]
  resources:
    requests: {storage: 10Gi}
`;

/** git in `root`, as a throwaway identity that signs nothing. */
export async function git(root: string, ...args: string[]) {
  return output('git', ['-c', 'user.email=t@example.net', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], { cwd: root });
}

/** A repository whose demo app applies `objects` (apps/demo/objects.yaml), committed on main. */
export async function repoWith(objects: string, app = DEMO_APP): Promise<FixtureRepo> {
  const repo = fixtureRepo();
  repo.write('apps/demo/application.yaml', app);
  repo.write('apps/demo/objects.yaml', objects);
  await git(repo.root, 'init', '-q', '-b', 'main');
  await git(repo.root, 'add', '-A');
  await git(repo.root, 'commit', '-q', '-m', 'base');
  return repo;
}

/** `npm run diff -- <args>` on the repository, in process: its status and what it wrote. */
export async function diff(repo: FixtureRepo, args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { ...process.env, HOMELAB_REPO_ROOT: repo.root }, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
  return { code, stdout, stderr };
}

/** The diff of `base` (committed) against `head` (the working tree) of the demo app, as JSON read as `R`. */
export async function judged<R>(base: string, head: string, app = DEMO_APP) {
  const repo = await repoWith(base, app);
  repo.write('apps/demo/objects.yaml', head);
  const r = await diff(repo, ['HEAD', '-o', 'json']);
  return { code: r.code, stderr: r.stderr, report: (r.stdout ? JSON.parse(r.stdout) : undefined) as R };
}

/** The base objects of the diff's tests: the web Deployment (a checksum annotation on its pods), a claim, an
 * ExternalSecret and a CRD of two versions. */
export const BASE = `${WEB.replace('      labels: {app: web}\n', '      labels: {app: web}\n      annotations: {checksum/config: aaa}\n')}${CLAIM}---
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: web-secret
  namespace: demo
spec:
  secretStoreRef: {kind: ClusterSecretStore, name: homelab}
  target: {name: web-secret}
  data:
    - secretKey: token
      remoteRef: {key: web, property: token}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
    - {name: v1, served: true, storage: true}
    - {name: v1beta1, served: true, storage: false}
`;

/** The base repository, then `change` applied to the working tree; the diff of the two as JSON. */
export async function flagsAfter(change: (text: string) => string, extra = '') {
  const repo = await repoWith(BASE);
  repo.write('apps/demo/objects.yaml', change(BASE) + extra);
  const r = await diff(repo, ['HEAD', '-o', 'json']);
  return {
    ...r,
    report: r.stdout
      ? (JSON.parse(r.stdout) as { risks: { flag: string; reason: string }[]; changes: { change: string; fields: { path: string }[] }[] })
      : undefined,
  };
}

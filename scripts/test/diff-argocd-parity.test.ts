/**
 * The rendered diff reads what Argo CD's repo-server reads: each way a pull
 * request can change what is applied beside the gate's own idea of the
 * repository (a dot-file, a hidden Application, a source parameter file, a
 * jsonnet file evaluated, a YAML merge key, a privileged sidecar) shows in the diff as a
 * change, a risk, or an Application it cannot judge. A scratch git repository,
 * diffed against its working tree.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installed, output } from '../../test-support/exec.ts';
import { skipForMissing } from '../../test-support/missing-tool.ts';
import { fixtureRepo, repoApp, type FixtureRepo } from '../../test-support/render-fixtures.ts';
import { main } from '../diff/command.ts';
import { WEB } from './diff-repo.ts';
import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = repoApp(
  'root',
  '    path: .\n    directory:\n      recurse: true\n      include: "{clusters/home/*.yaml,*/application.yaml}"',
  '  syncPolicy:\n    automated: {prune: true}\n',
).replace('namespace: demo\n', 'namespace: argocd\n');
const DEMO = repoApp('demo', '    path: apps/demo\n    directory:\n      exclude: application.yaml', '  syncPolicy:\n    automated: {prune: true}\n');
/** The demo Deployment as the restricted profile admits it. */
const DEPLOYMENT = WEB.replace('    spec:\n      containers:', '    spec:\n      securityContext: {runAsNonRoot: true}\n      containers:').replace(
  '          image: ghcr.io/example/web:1.4.0\n',
  '          image: ghcr.io/example/web:1.4.0\n          securityContext: {allowPrivilegeEscalation: false}\n',
);
const CONFIG = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: demo\ndata:\n  mode: quiet\n';

const noJsonnet = skipForMissing((await installed('jsonnet')) ? [] : ['jsonnet'], 'the diff of a jsonnet source');
let repo: FixtureRepo;
const git = (...args: string[]) =>
  output('git', ['-c', 'user.email=t@example.net', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], { cwd: repo.root });

async function diff(): Promise<{
  code: number;
  report: { risks: { flag: string; reason: string }[]; changes: { id: string }[]; unjudged?: unknown; heldBack?: { app: string; when: string }[] };
  text: string;
}> {
  let stdout = '';
  const env = { ...process.env, HOMELAB_REPO_ROOT: repo.root };
  const code = await main(['HEAD', '-o', 'json'], env, { stdout: (t) => void (stdout += t), stderr: () => undefined });
  return { code, report: JSON.parse(stdout), text: stdout };
}

beforeAll(async () => {
  repo = fixtureRepo();
  repo.write('clusters/home/root.yaml', ROOT);
  repo.write('apps/demo/application.yaml', DEMO);
  repo.write('apps/demo/web.yaml', DEPLOYMENT);
  repo.write('apps/demo/settings.yaml', CONFIG);
  await git('init', '-q', '-b', 'main');
  await git('add', '-A');
  await git('commit', '-q', '-m', 'base');
});
afterAll(() => rmSync(repo.root, { recursive: true, force: true }));

/** `check` run on a base that holds what the working tree holds now, committed as `message`, then taken back. */
async function onBase(message: string, check: () => Promise<void>): Promise<void> {
  await git('add', '-A');
  await git('commit', '-q', '-m', message);
  try {
    await check();
  } finally {
    await git('reset', '-q', '--hard', 'HEAD~1');
  }
}

/** Each case starts from the committed tree. */
async function reset(): Promise<void> {
  await git('checkout', '-q', '--', '.');
  await git('clean', '-qfdx');
}

describe('the rendered diff sees what Argo CD applies', () => {
  it('a dot-file ClusterRoleBinding next to the cluster facts is an RBAC risk', async () => {
    await reset();
    repo.write(
      'clusters/home/.extra.yaml',
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: all-yours\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\nsubjects: [{kind: ServiceAccount, name: default, namespace: demo}]\n',
    );
    const { code, report } = await diff();
    expect(code).toBe(3);
    expect(report.risks).toContainEqual(expect.objectContaining({ flag: 'rbac', reason: expect.stringContaining('cluster-admin') }));
  });

  it("a hidden Application's privileged hostPID DaemonSet in kube-system is a privilege risk", async () => {
    await reset();
    repo.write('apps/.tools/application.yaml', DEMO.replace('name: demo\n', 'name: tools\n').replace('path: apps/demo', 'path: apps/.tools'));
    repo.write(
      'apps/.tools/node.yaml',
      'apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: node-tools\n  namespace: kube-system\nspec:\n  selector:\n    matchLabels: {app: node-tools}\n  template:\n    metadata:\n      labels: {app: node-tools}\n    spec:\n      hostPID: true\n      containers:\n        - name: shell\n          image: docker.io/library/busybox:1.37.0\n          securityContext: {privileged: true}\n',
    );
    const { code, report } = await diff();
    expect(code).toBe(3);
    expect(report.risks).toContainEqual(
      expect.objectContaining({ flag: 'privilege', reason: expect.stringMatching(/DaemonSet kube-system\/node-tools gains pod: hostPID, shell: privileged/) }),
    );
  });

  it("a namespace guarded less is a privilege risk: a Namespace's enforce level lowered, and an Application writing privileged on the namespace it creates", async () => {
    await reset();
    repo.write(
      'clusters/home/namespaces.yaml',
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tools\n  labels:\n    pod-security.kubernetes.io/enforce: restricted\n',
    );
    await onBase('the tools namespace, restricted', async () => {
      repo.write(
        'clusters/home/namespaces.yaml',
        'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tools\n  labels:\n    pod-security.kubernetes.io/enforce: baseline\n',
      );
      repo.write(
        'apps/demo/application.yaml',
        DEMO.replace(
          '  syncPolicy:\n    automated: {prune: true}\n',
          '  syncPolicy:\n    automated: {prune: true}\n    syncOptions: [CreateNamespace=true]\n    managedNamespaceMetadata:\n      labels:\n        pod-security.kubernetes.io/enforce: privileged\n',
        ),
      );
      const { risks } = (await diff()).report;
      expect(risks.filter((r) => r.flag === 'privilege').map((r) => r.reason)).toEqual([
        expect.stringMatching(/^Namespace tools lowers Pod Security enforce to "baseline" from "restricted": /),
        expect.stringMatching(/^Application argocd\/demo \(managedNamespaceMetadata\) on namespace demo lowers Pod Security enforce to "privileged": /),
      ]);
    });
  });

  it("Argo CD's own access grown is an RBAC risk: policy lines added, a default role, anonymous users let in, a local account's login", async () => {
    await reset();
    const rbac = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-rbac-cm\n  namespace: argocd\ndata:\n${data}`;
    const cm = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\n  namespace: argocd\ndata:\n${data}`;
    repo.write('clusters/home/argocd-rbac.yaml', rbac('  policy.csv: |\n    g, lab-admins, role:admin\n'));
    repo.write('clusters/home/argocd-settings.yaml', cm('  accounts.ci: apiKey\n  admin.enabled: "FALSE"\n'));
    await onBase('Argo CD lets the lab admins in', async () => {
      repo.write(
        'clusters/home/argocd-rbac.yaml',
        rbac('  policy.default: role:admin\n  policy.csv: |\n    g, lab-admins, role:admin\n    g,everyone,role:admin\n'),
      );
      repo.write('clusters/home/argocd-settings.yaml', cm('  accounts.ci: apiKey, login\n  users.anonymous.enabled: "true"\n'));
      const { risks } = (await diff()).report;
      expect(risks.filter((r) => r.flag === 'rbac').map((r) => r.reason)).toEqual([
        expect.stringMatching(/^ConfigMap argocd\/argocd-cm lets anyone who reaches Argo CD's server in without logging in/),
        expect.stringMatching(/^ConfigMap argocd\/argocd-cm turns Argo CD's admin user back on/),
        expect.stringMatching(/^ConfigMap argocd\/argocd-cm gives Argo CD's local account ci login$/),
        expect.stringMatching(/^ConfigMap argocd\/argocd-rbac-cm grants in Argo CD: g, everyone, role:admin$/),
        expect.stringMatching(/^ConfigMap argocd\/argocd-rbac-cm gives every user Argo CD lets in the role role:admin/),
      ]);
    });
  });

  it('a source parameter file is merged as Argo CD merges it: the subfolder its recurse brings in holds a cluster-admin binding, an RBAC risk', async () => {
    await reset();
    repo.write(
      'apps/demo/extra/binding.yaml',
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: all-yours\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\nsubjects: [{kind: ServiceAccount, name: default, namespace: demo}]\n',
    );
    await onBase('a folder the demo app does not read', async () => {
      expect((await diff()).code).toBe(0);
      repo.write('apps/demo/.argocd-source-demo.yaml', 'directory:\n  recurse: true\n');
      const { code, report } = await diff();
      expect(code).toBe(3);
      expect(report.risks).toContainEqual(expect.objectContaining({ flag: 'rbac', reason: expect.stringContaining('cluster-admin') }));
      // One Argo CD fails on applies nothing: the diff cannot vouch for the app.
      repo.write('apps/demo/.argocd-source-demo.yaml', 'directory:\n  recurse: "true"\n');
      const failing = await diff();
      expect(failing.code).toBe(1);
      expect(failing.text).toContain('json: cannot unmarshal string into directory.recurse (a Go bool)');
    });
  });

  it("a git submodule is not judged: Argo CD's checkout fetches another repository's files, and the diff cannot vouch for them", async () => {
    await reset();
    repo.write('.gitmodules', '[submodule "extras"]\n\tpath = apps/extras\n\turl = https://github.com/attacker/extras.git\n');
    await git('update-index', '--add', '--cacheinfo', '160000,0123456789abcdef0123456789abcdef01234567,apps/extras');
    try {
      const { code, text: out } = await diff();
      expect(code).toBe(1);
      expect(out).toContain('submodule apps/extras');
    } finally {
      await git('rm', '-q', '--cached', 'apps/extras');
    }
  });

  it("a symlink that leaves the repository fails every source of it, and a path Argo CD will not join fails its app's: the diff cannot vouch for either", async () => {
    await reset();
    symlinkSync('/etc/hostname', join(repo.root, 'notes.md'));
    const linked = await diff();
    expect(linked.code).toBe(1);
    expect(linked.text).toContain('symlink notes.md');
    await reset();
    repo.write('apps/demo/application.yaml', DEMO.replace('path: apps/demo', 'path: /apps/demo'));
    const absolute = await diff();
    expect(absolute.code).toBe(1);
    expect(absolute.text).toContain('/apps/demo: app path is absolute');
  });

  it('argocd-cm turning kustomize off leaves a kustomize app not judged: Argo CD would apply its folder as plain YAML', async () => {
    await reset();
    repo.write('apps/kustom/kustomization.yaml', 'resources:\n  - settings.yaml\n');
    repo.write('apps/kustom/settings.yaml', CONFIG.replace('name: settings', 'name: kustom'));
    repo.write(
      'apps/kustom/application.yaml',
      DEMO.replace('name: demo\n', 'name: kustom\n').replace('path: apps/demo\n    directory:\n      exclude: application.yaml', 'path: apps/kustom'),
    );
    await onBase('a kustomize app', async () => {
      expect((await diff()).code).toBe(0);
      repo.write(
        'apps/platform/argocd/patches/argocd-cm.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\ndata:\n  kustomize.enable: "false"\n',
      );
      const { code, text: out } = await diff();
      expect(code).toBe(1);
      expect(out).toContain('argocd-cm sets kustomize.enable to \\"false\\"');
    });
  });

  it("an ApplicationSet's Applications are expanded as Argo CD's controller makes them: the cluster-admin binding one syncs is an RBAC risk", async () => {
    await reset();
    repo.write(
      'clusters/home/extras.yaml',
      "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: extras\n  namespace: argocd\nspec:\n  goTemplate: true\n  generators:\n    - list:\n        elements: [{name: tools}]\n  template:\n    metadata: {name: '{{ .name }}'}\n    spec:\n      project: default\n      source: {repoURL: https://github.com/example/lab.git, targetRevision: main, path: 'apps/{{ .name }}'}\n      destination: {server: https://kubernetes.default.svc, namespace: kube-system}\n",
    );
    repo.write(
      'apps/tools/binding.yaml',
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: all-yours\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\nsubjects: [{kind: ServiceAccount, name: default, namespace: kube-system}]\n',
    );
    const { code, report } = await diff();
    expect(code).toBe(3);
    expect(report.risks).toContainEqual(expect.objectContaining({ flag: 'rbac', reason: expect.stringContaining('cluster-admin') }));
  });

  it('an ApplicationSet the gate cannot judge stays not judged when only a file its generator reads changes: the file is among its inputs', async () => {
    await reset();
    repo.write('apps/appset/tools.yaml', 'name: Tools\n');
    repo.write(
      'clusters/home/extras.yaml',
      "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: extras\n  namespace: argocd\nspec:\n  goTemplate: true\n  generators:\n    - git: {repoURL: https://github.com/example/lab.git, revision: main, files: [{path: apps/appset/*.yaml}]}\n  template:\n    metadata: {name: '{{ slugify .name }}'}\n    spec:\n      project: default\n      source: {repoURL: https://github.com/example/lab.git, targetRevision: main, path: apps/demo}\n      destination: {server: https://kubernetes.default.svc, namespace: kube-system}\n",
    );
    await onBase('an ApplicationSet the gate cannot judge', async () => {
      expect((await diff()).code).toBe(0);
      repo.write('apps/appset/tools.yaml', 'name: Other Tools\n');
      const { code, text: out } = await diff();
      expect(code).toBe(1);
      expect(out).toContain('it calls slugify');
    });
  });

  it('an ApplicationSet whose policy is create-only never updates the Applications it made: a change to one is held back, and says so', async () => {
    await reset();
    const set = (namespace: string, elements: string) =>
      `apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: extras\n  namespace: argocd\nspec:\n  goTemplate: true\n  syncPolicy: {applicationsSync: create-only}\n  generators:\n    - list: {elements: ${elements}}\n  template:\n    metadata: {name: '{{ .name }}'}\n    spec:\n      project: default\n      source: {repoURL: https://github.com/example/lab.git, targetRevision: main, path: apps/demo, directory: {exclude: application.yaml}}\n      destination: {server: https://kubernetes.default.svc, namespace: ${namespace}}\n`;
    repo.write('clusters/home/extras.yaml', set('demo', '[{name: tools}, {name: more}]'));
    await onBase('a create-only ApplicationSet', async () => {
      repo.write('clusters/home/extras.yaml', set('tools', '[{name: tools}]'));
      const { report } = await diff();
      expect(report.heldBack).toEqual(
        expect.arrayContaining([
          { app: 'tools', when: expect.stringMatching(/^never updated: its ApplicationSet's policy \(create-only\)/) },
          { app: 'more', when: expect.stringMatching(/^never deleted: its ApplicationSet's policy \(create-only\)/) },
        ]),
      );
    });
  });

  it("an ApplicationSet's ignoreApplicationDifferences keeps the fields it names as the cluster holds them: a change to one alone changes nothing", async () => {
    await reset();
    const set = (prune: boolean, namespace: string) =>
      `apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: extras\n  namespace: argocd\nspec:\n  goTemplate: true\n  ignoreApplicationDifferences:\n    - jsonPointers: [/spec/syncPolicy]\n  generators:\n    - list: {elements: [{name: tools}]}\n  template:\n    metadata: {name: '{{ .name }}'}\n    spec:\n      project: default\n      source: {repoURL: https://github.com/example/lab.git, targetRevision: main, path: apps/demo, directory: {exclude: application.yaml}}\n      destination: {server: https://kubernetes.default.svc, namespace: ${namespace}}\n      syncPolicy: {automated: {prune: ${prune}}}\n`;
    repo.write('clusters/home/extras.yaml', set(true, 'demo'));
    await onBase("an ApplicationSet that ignores its Applications' sync policy", async () => {
      repo.write('clusters/home/extras.yaml', set(false, 'demo'));
      const application = (report: { changes: { id: string }[] }) => report.changes.filter((c) => c.id.includes('Application|argocd|tools'));
      expect(application((await diff()).report)).toEqual([]);
      // A field it does not name still reaches the Application.
      repo.write('clusters/home/extras.yaml', set(false, 'tools'));
      expect(application((await diff()).report)).toHaveLength(1);
    });
  });

  it("an ApplicationSet's preservedFields keep the annotations and labels they name as the cluster holds them: a change to one alone changes nothing, a new one is written", async () => {
    await reset();
    const set = (annotations: string, labels: string) =>
      `apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: extras\n  namespace: argocd\nspec:\n  goTemplate: true\n  preservedFields: {annotations: [team.example.net/owner], labels: [tier]}\n  generators:\n    - list: {elements: [{name: tools}]}\n  template:\n    metadata:\n      name: '{{ .name }}'\n      annotations: {${annotations}}\n      labels: {${labels}}\n    spec:\n      project: default\n      source: {repoURL: https://github.com/example/lab.git, targetRevision: main, path: apps/demo, directory: {exclude: application.yaml}}\n      destination: {server: https://kubernetes.default.svc, namespace: demo}\n`;
    repo.write('clusters/home/extras.yaml', set('team.example.net/owner: ops', ''));
    await onBase('an ApplicationSet that preserves an annotation and a label', async () => {
      const application = (report: { changes: { id: string }[] }) => report.changes.filter((c) => c.id.includes('Application|argocd|tools'));
      repo.write('clusters/home/extras.yaml', set('team.example.net/owner: media', ''));
      expect(application((await diff()).report)).toEqual([]);
      // A preserved key the cluster does not hold yet is written, and so is what it does not preserve.
      repo.write('clusters/home/extras.yaml', set('team.example.net/owner: media', 'tier: db'));
      expect(application((await diff()).report)).toHaveLength(1);
      repo.write('clusters/home/extras.yaml', set('team.example.net/owner: media, team.example.net/pager: on', ''));
      expect(application((await diff()).report)).toHaveLength(1);
    });
  });

  it("an Application moved from root's manifests into an ApplicationSet is a delete risk: root's prune races the controller's adoption", async () => {
    await reset();
    const tools = (annotations: string) =>
      repoApp('tools', '    path: apps/demo\n    directory:\n      exclude: application.yaml').replace(
        '  namespace: argocd\n',
        `  namespace: argocd\n${annotations}`,
      );
    const set =
      "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: extras\n  namespace: argocd\nspec:\n  goTemplate: true\n  generators:\n    - list: {elements: [{name: tools}]}\n  template:\n    metadata: {name: '{{ .name }}'}\n    spec:\n      project: default\n      source: {repoURL: https://github.com/example/lab.git, targetRevision: main, path: apps/demo, directory: {exclude: application.yaml}}\n      destination: {server: https://kubernetes.default.svc, namespace: demo}\n";
    const moved = async (annotations: string) => {
      repo.write('apps/tools/application.yaml', tools(annotations));
      let risks: { flag: string; reason: string }[] = [];
      await onBase('a hand-written Application', async () => {
        rmSync(join(repo.root, 'apps/tools'), { recursive: true, force: true });
        repo.write('clusters/home/extras.yaml', set);
        risks = (await diff()).report.risks.filter((r) => r.reason.includes('moves from app root'));
      });
      return risks;
    };
    expect(await moved('')).toEqual([
      expect.objectContaining({
        flag: 'delete',
        reason: expect.stringMatching(
          /^Application argocd\/tools moves from app root's manifests into ApplicationSet extras: .*resources finalizer then deletes everything it runs/,
        ),
      }),
    ]);
    // Prune=false on it, merged first, keeps root's sync from deleting it: the controller adopts it.
    await reset();
    expect(await moved('  annotations:\n    argocd.argoproj.io/sync-options: Prune=false\n')).toEqual([]);
  });

  it('an Application moved to another app, or out of an ApplicationSet, is a delete risk too: what held it removes it as the new holder takes it', async () => {
    await reset();
    const tools = repoApp('tools', '    path: apps/demo\n    directory:\n      exclude: application.yaml');
    const set =
      "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: extras\n  namespace: argocd\nspec:\n  goTemplate: true\n  generators:\n    - list: {elements: [{name: tools}]}\n  template:\n    metadata: {name: '{{ .name }}', finalizers: [resources-finalizer.argocd.argoproj.io]}\n    spec:\n      project: default\n      source: {repoURL: https://github.com/example/lab.git, targetRevision: main, path: apps/demo, directory: {exclude: application.yaml}}\n      destination: {server: https://kubernetes.default.svc, namespace: demo}\n";
    const moveRisks = async () => (await diff()).report.risks.filter((r) => r.reason.startsWith('Application argocd/tools moves'));
    // From root's manifests to the demo app's: root's prune races the demo app's sync.
    repo.write('apps/tools/application.yaml', tools);
    await onBase('tools in root', async () => {
      rmSync(join(repo.root, 'apps/tools'), { recursive: true, force: true });
      repo.write('apps/demo/tools-app.yaml', tools);
      expect(await moveRisks()).toEqual([
        expect.objectContaining({
          flag: 'delete',
          reason: expect.stringMatching(
            /^Application argocd\/tools moves from app root's manifests to app demo's manifests: .*unless app demo's sync takes it over first/,
          ),
        }),
      ]);
    });
    // Out of an ApplicationSet: its controller deletes what it no longer generates, whatever writes it next.
    await reset();
    repo.write('clusters/home/extras.yaml', set);
    await onBase('tools made by extras', async () => {
      rmSync(join(repo.root, 'clusters/home/extras.yaml'));
      repo.write('apps/tools/application.yaml', tools);
      expect(await moveRisks()).toEqual([
        expect.objectContaining({
          flag: 'delete',
          reason: expect.stringMatching(
            /^Application argocd\/tools moves out of ApplicationSet extras to app root's manifests: its controller deletes it.*preserveResourcesOnDeletion/,
          ),
        }),
      ]);
    });
  });

  it('an Application deleted whole takes what it runs by its finalizer, not by its own prune setting: deleted with it, or left orphaned', async () => {
    const claim =
      'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\n  namespace: tools\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n';
    // No automated sync of its own: its prune setting would leave the claim, were the app to stay.
    const tools = repoApp('tools', '    path: apps/tools\n    directory:\n      exclude: application.yaml').replace('namespace: demo\n', 'namespace: tools\n');
    const deleted = async (app: string) => {
      await reset();
      repo.write('apps/tools/application.yaml', app);
      repo.write('apps/tools/claim.yaml', claim);
      let report: { risks: { flag: string; reason: string }[]; changes: { id: string; pruned?: string }[] } | undefined;
      await onBase('an app with a claim', async () => {
        rmSync(join(repo.root, 'apps/tools'), { recursive: true, force: true });
        report = (await diff()).report as never;
      });
      const id = 'tools|/PersistentVolumeClaim|tools|data';
      return {
        pruned: report!.changes.find((c) => c.id === id)?.pruned,
        risks: report!.risks.filter((r) => r.reason.startsWith('PersistentVolumeClaim tools/data')),
      };
    };
    // Root prunes the Application, and its resources finalizer deletes the claim.
    expect(await deleted(tools)).toEqual({
      pruned: 'deleted with its app',
      risks: [
        expect.objectContaining({ flag: 'delete', reason: expect.stringContaining('app tools is deleted, and its resources finalizer removes what it runs') }),
      ],
    });
    // Without the finalizer the Application goes alone: the claim stays, orphaned.
    expect(await deleted(tools.replace('  finalizers: [resources-finalizer.argocd.argoproj.io]\n', ''))).toEqual({
      pruned: 'orphaned',
      risks: [
        expect.objectContaining({ flag: 'not-pruned', reason: expect.stringContaining('without a resources finalizer Argo CD deletes the Application alone') }),
      ],
    });
    // Prune=false on the Application: root leaves it, and it keeps running the claim.
    expect(
      (await deleted(tools.replace('  namespace: argocd\n', '  namespace: argocd\n  annotations: {argocd.argoproj.io/sync-options: Prune=false}\n'))).pruned,
    ).toBe('application kept');
  });

  it('an ApplicationSet whose generator the gate does not evaluate is not judged: the diff cannot vouch for it', async () => {
    await reset();
    repo.write(
      'clusters/home/extras.yaml',
      "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: extras\n  namespace: argocd\nspec:\n  generators:\n    - pullRequest: {github: {owner: example, repo: lab}}\n  template:\n    metadata: {name: 'pr-{{number}}'}\n    spec:\n      project: default\n      source: {repoURL: https://github.com/example/lab.git, targetRevision: main, path: apps/demo}\n      destination: {server: https://kubernetes.default.svc, namespace: kube-system}\n",
    );
    const { code, text: out } = await diff();
    expect(code).toBe(1);
    expect(out).toContain('ApplicationSet extras');
    expect(out).toContain('generator 0 (pullRequest) is not evaluated here');
  });

  it.skipIf(noJsonnet)('a jsonnet file is evaluated as Argo CD evaluates it: the cluster-admin binding it yields is an RBAC risk', async () => {
    await reset();
    repo.write(
      'apps/demo/binding.jsonnet',
      "{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'all-' + 'yours' },\n  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-' + 'admin' },\n  subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'demo' }] }\n",
    );
    const { code, report } = await diff();
    expect(code).toBe(3);
    expect(report.risks).toContainEqual(expect.objectContaining({ flag: 'rbac', reason: expect.stringContaining('cluster-admin') }));
  });

  it('a YAML merge key changes the object Argo CD applies, and a privileged sidecar is a privilege risk', async () => {
    await reset();
    repo.write('apps/demo/settings.yaml', `${CONFIG.replace('data:\n  mode: quiet\n', 'data:\n  <<: {mode: loud, extra: "1"}\n')}`);
    repo.write(
      'apps/demo/web.yaml',
      `${DEPLOYMENT}        - name: helper\n          image: docker.io/library/busybox:1.37.0\n          securityContext: {privileged: true, runAsUser: 0}\n`,
    );
    const { code, report } = await diff();
    expect(code).toBe(3);
    expect(JSON.stringify(report.changes)).toContain('"path":"data.extra"');
    expect(report.risks).toContainEqual(
      expect.objectContaining({
        flag: 'privilege',
        reason: expect.stringMatching(/Deployment demo\/web gains helper: privileged, helper: root, helper: escalation/),
      }),
    );
  });

  it("a change to an app that its project's sync windows hold back says when Argo CD syncs it on its own", async () => {
    await reset();
    repo.write(
      'clusters/home/project.yaml',
      'apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata:\n  name: default\n  namespace: argocd\nspec:\n  syncWindows:\n    - {kind: deny, schedule: "0 8 * * 1-5", duration: 10h, namespaces: [demo]}\n',
    );
    repo.write('apps/demo/settings.yaml', CONFIG.replace('mode: quiet', 'mode: loud'));
    const { report } = await diff();
    // The root app, which applies the project, is not under the window: only the demo app's change waits.
    expect((report as { heldBack?: unknown }).heldBack).toEqual([
      { app: 'demo', when: 'syncs on its own only outside deny window 0 ("0 8 * * 1-5" for 10h), 70% of the time' },
    ]);
  });
});

/**
 * npm run diff on fixture git repositories built here: each risk class makes
 * exactly its flag appear, a pure reformat is no change, the Markdown is cut
 * at its cap and says so, and a render failure on either side is an error.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoApp } from '../../test-support/render-fixtures.ts';
import { CLAIM, DEMO_APP, diff, git, repoWith, WEB } from './diff-repo.ts';
import { compare, risks, type Snapshot } from '../diff/changes.ts';
import { RISK_FLAGGED } from '../diff/command.ts';
import { markdown } from '../diff/report.ts';
import { textHunks } from '../diff/text-diff.ts';

const BASE = `${WEB.replace('      labels: {app: web}\n', '      labels: {app: web}\n      annotations: {checksum/config: aaa}\n')}${CLAIM}---
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
async function flagsAfter(change: (text: string) => string, extra = '') {
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

describe('npm run diff', () => {
  it('sees nothing in a pure reformat: key order, comments, flow style', async () => {
    const reformatted = BASE.replace('    matchLabels: {app: web}', '    # same selector\n    matchLabels:\n      app: web').replace(
      '  name: data\n  namespace: demo',
      '  namespace: demo\n  name: data',
    );
    const r = await flagsAfter(() => reformatted);
    expect(r.code).toBe(0);
    expect(r.report).toEqual({ plan: [], risks: [], notJudged: [], heldBack: [], chartBumps: [], changes: [] });
  });

  it('lists no field for a new checksum in a pod template, but says the pods are replaced and counts the update', async () => {
    const r = await flagsAfter((t) => t.replace('checksum/config: aaa', 'checksum/config: bbb'));
    expect(r.code).toBe(0);
    expect(r.report!.changes).toEqual([]);
    expect(r.report!.risks).toEqual([
      expect.objectContaining({
        flag: 'rollout',
        level: 'note',
        reason:
          'Deployment demo/web replaces its pods, as its pod template changes (annotation checksum/config): a rolling update of its pods (maxSurge 25%, maxUnavailable 25%)',
      }),
    ]);
    expect((r.report as unknown as { plan: unknown[] }).plan).toEqual([{ app: 'demo', create: 0, update: 1, delete: 0, replace: 0, refuse: 0, left: 0 }]);
  });

  it.each([
    [
      'delete',
      'a PVC deleted under prune',
      (t: string) => t.replace(/---\napiVersion: v1\nkind: PersistentVolumeClaim[\s\S]*?(?=---)/, ''),
      /PersistentVolumeClaim demo\/data is deleted: app demo prunes, so Argo CD removes it; its volume and data go too if its class ceph-block \(not in the repository\) reclaims by Delete, the default/,
    ],
    [
      'version',
      'an image moved a major',
      (t: string) => t.replace('web:1.4.0', 'web:2.0.0'),
      /container web: ghcr\.io\/example\/web:1\.4\.0 -> ghcr\.io\/example\/web:2\.0\.0 \(a major version\)/,
    ],
    [
      'secret-target',
      'an ExternalSecret writing another Secret',
      (t: string) => t.replace('target: {name: web-secret}', 'target: {name: web-token}'),
      /ExternalSecret demo\/web-secret writes something else: spec\.target\.name/,
    ],
    [
      'crd-version',
      'a CRD version removed',
      (t: string) => t.replace('    - {name: v1beta1, served: true, storage: false}\n', ''),
      /CustomResourceDefinition widgets\.example\.com: version v1beta1 removed/,
    ],
  ])('flags %s: %s', async (flag, _why, change, reason) => {
    const r = await flagsAfter(change);
    expect(r.code, r.stderr).toBe(RISK_FLAGGED);
    // A new image also replaces the pods: a rollout note, beside the flag under test.
    const flagged = r.report!.risks.filter((x) => x.flag !== 'rollout');
    expect(flagged.map((x) => x.flag)).toEqual([flag]);
    expect(flagged[0]!.reason).toMatch(reason);
  });

  it('sees a custom resource moved to another API version as one object updated, as Argo CD keys it (group, kind, namespace, name), not a delete and a create', async () => {
    const r = await flagsAfter((t) => t.replace('apiVersion: external-secrets.io/v1\n', 'apiVersion: external-secrets.io/v1beta1\n'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.report!.risks).toEqual([]);
    expect(r.report!.changes).toEqual([
      expect.objectContaining({
        kind: 'external-secrets.io/v1beta1/ExternalSecret',
        change: 'changed',
        fields: [{ path: 'apiVersion', from: 'external-secrets.io/v1', to: 'external-secrets.io/v1beta1' }],
      }),
    ]);
  });

  it('counts only what a person must review: a minor or a new digest is a note and exits 0, a major is a risk to review and exits 3', async () => {
    const digest = `@sha256:${'b'.repeat(64)}`;
    const repo = await repoWith(BASE);
    for (const [to, code, major] of [
      ['web:1.5.0', 0, false],
      [`web:1.4.0${digest}`, 0, false],
      ['web:2.0.0', RISK_FLAGGED, true],
    ] as const) {
      repo.write('apps/demo/objects.yaml', BASE.replace('web:1.4.0', to));
      const r = await diff(repo, ['HEAD', '-o', 'json', '--versions-expected']);
      expect(r.code, `${to}: ${r.stderr}`).toBe(code);
      expect((JSON.parse(r.stdout) as { risks: { flag: string; major?: boolean }[] }).risks).toEqual([
        expect.objectContaining({ flag: 'rollout', level: 'note' }),
        expect.objectContaining({ flag: 'version', major, level: major ? 'review' : 'note' }),
      ]);
    }
    // The option changes nothing now: a version inside its major is a note for every pull request.
    repo.write('apps/demo/objects.yaml', BASE.replace('web:1.4.0', 'web:1.5.0'));
    expect((await diff(repo, ['HEAD', '-o', 'json'])).code).toBe(0);
  });

  it("says a move of the facts' Talos or Kubernetes as the upgrade it asks for, judged as talosctl judges it: a patch is news, a minor a person's upgrade, a skipped minor or a Talos the target refuses a risk", async () => {
    const repo = await repoWith(BASE);
    repo.write(
      'apps/root/application.yaml',
      repoApp('root', '    path: clusters/home', '  syncPolicy:\n    automated:\n      prune: true\n      selfHeal: true\n'),
    );
    const facts = readFileSync(join(repo.root, 'clusters/home/cluster-facts.yaml'), 'utf8');
    await git(repo.root, 'add', '-A');
    await git(repo.root, 'commit', '-q', '-m', 'root');
    const upgrades = '  talosUpgrades: |\n    - talos: "1.14"\n      host: {from: 1.12.0, below: 1.16.0}\n      source: talos114.go\n';
    const moved = async (edit: (t: string) => string) => {
      repo.write('clusters/home/cluster-facts.yaml', edit(facts));
      const r = await diff(repo, ['HEAD', '-o', 'json']);
      const risks = (JSON.parse(r.stdout) as { risks: { flag: string; reason: string; level: string }[] }).risks.filter((x) => x.flag === 'upgrade');
      return { code: r.code, risks: risks.map((x) => [x.level, x.reason.replace(/^ConfigMap argocd\/cluster-facts: /, '')]) };
    };
    expect(await moved((t) => t.replace('"1.36.3"', '"1.36.4"'))).toEqual({
      code: 0,
      risks: [['note', 'Kubernetes 1.36.3 -> 1.36.4: a patch the nodes take with talosctl upgrade-k8s --to 1.36.4']],
    });
    expect(await moved((t) => t.replace('"1.36.3"', '"1.37.0"'))).toEqual({
      code: RISK_FLAGGED,
      risks: [['review', 'Kubernetes 1.36.3 -> 1.37.0: a cluster upgrade a person makes (talosctl upgrade-k8s --to 1.37.0), on a path talosctl takes']],
    });
    // With a manifest changed too, that manifest is judged at the new version only.
    repo.write('apps/demo/objects.yaml', BASE.replace('web:1.4.0', 'web:1.4.1'));
    expect((await moved((t) => t.replace('"1.36.3"', '"1.37.0"'))).risks.at(-1)).toEqual([
      'review',
      'Kubernetes 1.36.3 -> 1.37.0 in a change that also changes 1 other object(s): they are judged at 1.37.0 only, and the cluster runs 1.36.3 until it is upgraded; move the version in a change of its own',
    ]);
    repo.write('apps/demo/objects.yaml', BASE);
    expect((await moved((t) => t.replace('"1.36.3"', '"1.38.0"'))).risks).toEqual([
      [
        'review',
        'Kubernetes 1.36.3 -> 1.38.0: talosctl upgrade-k8s refuses the path 1.36->1.38: it moves Kubernetes one minor at a time, so upgrade to 1.37 first',
      ],
    ]);
    expect((await moved((t) => t.replace('"v1.13.9"', '"v1.14.1"'))).risks).toEqual([
      [
        'review',
        'Talos v1.13.9 -> v1.14.1: not judged: the cluster facts have no talosUpgrades row for Talos 1.14: add it, read from its compatibility package at v1.14.1',
      ],
    ]);
    expect((await moved((t) => t.replace('"v1.13.9"', '"v1.14.1"') + upgrades)).risks).toEqual([
      [
        'review',
        "Talos v1.13.9 -> v1.14.1: a cluster upgrade a person makes (talosctl upgrade --image <the node's installer>:v1.14.1, one node at a time), on a path talosctl takes",
      ],
    ]);
    const skipped = '  talosUpgrades: |\n    - talos: "1.16"\n      host: {from: 1.14.0, below: 1.18.0}\n      source: talos116.go\n';
    expect(await moved((t) => t.replace('"v1.13.9"', '"v1.16.0"') + skipped)).toEqual({
      code: RISK_FLAGGED,
      risks: [
        [
          'review',
          'Talos v1.13.9 -> v1.16.0: the Talos 1.16 installer (talosctl upgrade) refuses a node on v1.13.9: too old, it upgrades from 1.14.0 on (talos116.go)',
        ],
      ],
    });
    const ranges =
      '  talosKubernetes: |\n    - talos: "1.13"\n      kubernetes: {from: 1.31.0, below: 1.36.99}\n      source: talos113.go\n    - talos: "1.14"\n      kubernetes: {from: 1.32.0, below: 1.37.99}\n      source: talos114.go\n';
    expect((await moved((t) => t.replace('"v1.13.9"', '"v1.14.1"').replace('"1.36.3"', '"1.37.0"') + upgrades + ranges)).risks.at(-1)).toEqual([
      'review',
      'Talos and Kubernetes both move: upgrade Talos first: Talos v1.13.9 does not run Kubernetes 1.37.0 (too new)',
    ]);
  });

  it('flags a chart bump past the next minor of an Application whose chart upgrades one minor at a time, with the step to take first', () => {
    const app = (targetRevision: string, annotated = true) => ({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: {
        name: 'rook-ceph',
        namespace: 'argocd',
        ...(annotated ? { annotations: { 'gate.homelab-gitops/upgrades-one-minor-at-a-time': "Rook's upgrade guide starts from the minor before" } } : {}),
      },
      spec: { source: { repoURL: 'https://charts.rook.io/release', chart: 'rook-ceph', targetRevision } },
    });
    const upgrades = (from: string, to: string, annotated = true) => {
      const at = (o: Record<string, unknown>): Snapshot => ({
        objects: new Map([['root|argoproj.io/Application|argocd|rook-ceph', { app: 'root', prune: true, object: o }]]),
      });
      const [base, head] = [at(app(from, annotated)), at(app(to, annotated))];
      return risks(compare(base, head), base, head)
        .filter((r) => r.flag === 'upgrade')
        .map((r) => `${r.level}: ${r.reason}`);
    };
    expect(upgrades('v1.20.6', 'v1.20.7')).toEqual([]);
    expect(upgrades('v1.20.6', 'v1.21.0')).toEqual([]);
    expect(upgrades('v1.20.6', 'v1.22.1')).toEqual([
      "review: Application argocd/rook-ceph: chart spec.source v1.20.6 -> v1.22.1 skips v1.21, and this chart upgrades one minor at a time (Rook's upgrade guide starts from the minor before): take v1.21 first",
    ]);
    expect(upgrades('v1.20.6', 'v2.0.0')[0]).toMatch(/moves to another major, and this chart upgrades one minor at a time/);
    expect(upgrades('v1.20.6', 'v1.22.1', false)).toEqual([]);
  });

  it('flags RBAC that grows: a binding to cluster-admin', async () => {
    const r = await flagsAfter(
      (t) => t,
      '---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: web-admin\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\nsubjects: [{kind: ServiceAccount, name: web, namespace: demo}]\n',
    );
    expect(r.code).toBe(RISK_FLAGGED);
    expect(r.report!.risks).toEqual([
      expect.objectContaining({ flag: 'rbac', reason: expect.stringMatching(/new binding \(to cluster-admin\): cluster-admin/) }),
    ]);
  });

  it('flags every network policy change, spelling out what it widens', async () => {
    const policy = (egress: string) =>
      `---\napiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata:\n  name: web-egress\n  namespace: demo\nspec:\n  endpointSelector: {matchLabels: {app: web}}\n  egress:\n${egress}`;
    const r = await flagsAfter(
      (t) => t,
      policy(
        '    - toEntities: [cluster]\n    - toEndpoints:\n        - matchExpressions: [{key: k8s:io.kubernetes.pod.namespace, operator: NotIn, values: [nowhere]}]\n',
      ),
    );
    expect(r.code).toBe(RISK_FLAGGED);
    expect(r.report!.risks).toEqual([
      expect.objectContaining({
        flag: 'network-policy',
        reason: 'CiliumNetworkPolicy demo/web-egress is new: widens reach to cluster, any namespace but nowhere',
      }),
    ]);
  });

  it('flags a changed Application whose chart renders values through tpl: it can reach the API versions by any spelling', async () => {
    const repo = await repoWith(BASE);
    // A local chart (a chart source at a path) whose one template renders a values string with tpl.
    repo.write(
      'apps/tpl/application.yaml',
      repoApp('tpl', '    path: apps/tpl/chart\n    helm:\n      valueFiles: [values.yaml]', '  syncPolicy:\n    automated:\n      prune: true\n'),
    );
    repo.write('apps/tpl/chart/Chart.yaml', 'apiVersion: v2\nname: tpl\nversion: 1.0.0\n');
    repo.write('apps/tpl/chart/values.yaml', 'text: plain\n');
    repo.write(
      'apps/tpl/chart/templates/cm.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tpl\n  namespace: demo\ndata:\n  text: {{ tpl .Values.text . | quote }}\n',
    );
    await git(repo.root, 'add', '-A');
    await git(repo.root, 'commit', '-q', '-m', 'tpl chart');
    repo.write('apps/tpl/chart/values.yaml', 'text: \'{{ toYaml (index . (print "Capa" "bilities")) | contains "example.com" }}\'\n');
    const r = await diff(repo, ['HEAD', '-o', 'json']);
    expect(r.code, r.stderr).toBe(RISK_FLAGGED);
    expect((JSON.parse(r.stdout) as { risks: { flag: string; reason: string }[] }).risks).toContainEqual(
      expect.objectContaining({
        flag: 'capabilities',
        level: 'review',
        reason: expect.stringMatching(/^Application tpl changed, and its chart can read the API versions .*: what it renders depends on them/),
      }),
    );
    // The same chart, a value that reads no API version: rendered again with the built-in APIs alone it makes the
    // same objects, so the change is news, not a question.
    repo.write('apps/tpl/chart/values.yaml', "text: 'hello from {{ .Release.Name }}'\n");
    const plain = await diff(repo, ['HEAD', '-o', 'json']);
    expect(plain.code, plain.stderr).toBe(0);
    expect((JSON.parse(plain.stdout) as { risks: { flag: string; level: string; reason: string }[] }).risks).toContainEqual(
      expect.objectContaining({
        flag: 'capabilities',
        level: 'note',
        reason: expect.stringMatching(/renders the same with the cluster's built-in APIs alone/),
      }),
    );
  });

  it('reports a changed field as a path with its old and new value, and diffs two refs', async () => {
    const repo = await repoWith(BASE);
    repo.write('apps/demo/objects.yaml', BASE.replace('web:1.4.0', 'web:1.4.1'));
    await git(repo.root, 'commit', '-q', '-am', 'patch');
    const r = await diff(repo, ['HEAD~1', 'HEAD']);
    // A patch is news: a note, and nothing to review.
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('    spec.template.spec.containers[web].image: "ghcr.io/example/web:1.4.0" -> "ghcr.io/example/web:1.4.1"');
    expect(r.stdout).toMatch(
      /^NOTES \(2\)\n {2}\[rollout\] demo: Deployment demo\/web replaces its pods.*\n {2}\[version\] demo: Deployment demo\/web: container web: .*1\.4\.1$/m,
    );
    // One run writes the comment and the full report in every format, the JSON the same as -o json's.
    const dir = join(repo.root, 'report');
    const md = await diff(repo, ['HEAD~1', 'HEAD', '-o', 'markdown', '--full-report', dir]);
    expect(md.stdout).toMatch(/^## Rendered diff/);
    expect(readFileSync(join(dir, 'rendered-diff.md'), 'utf8')).toBe(md.stdout);
    expect(readFileSync(join(dir, 'rendered-diff.html'), 'utf8')).toContain('<h2>Rendered diff</h2>');
    expect(readFileSync(join(dir, 'rendered-diff.json'), 'utf8')).toBe((await diff(repo, ['HEAD~1', 'HEAD', '-o', 'json'])).stdout);
  });

  it('shows a changed text of several lines as the lines that changed, in their context, as git diff shows a file', async () => {
    const config = (level: string) =>
      `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\n  namespace: demo\ndata:\n  app.yaml: |\n${['server:', '  port: 8080', '  timeout: 30s', '  workers: 4', `  log_level: ${level}`, 'storage:', '  path: /data', '  retention: 7d', '  compact: true', 'tracing: {enabled: false}'].map((l) => `    ${l}`).join('\n')}\n`;
    const repo = await repoWith(BASE + config('info'));
    repo.write('apps/demo/objects.yaml', BASE + config('debug'));
    const r = await diff(repo, ['HEAD', '-o', 'markdown']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      [
        '~ v1/ConfigMap demo/conf',
        '    data.app.yaml: (text, the lines that changed)',
        '       @@ -2,7 +2,7 @@',
        '         port: 8080',
        '         timeout: 30s',
        '         workers: 4',
        '-        log_level: info',
        '+        log_level: debug',
        '       storage:',
        '         path: /data',
        '         retention: 7d',
        '```',
      ].join('\n'),
    );
    // The JSON keeps both values whole, for tools.
    const json = JSON.parse((await diff(repo, ['HEAD', '-o', 'json'])).stdout) as { changes: { fields: { from: string; to: string }[] }[] };
    expect(json.changes[0]!.fields[0]).toEqual({
      path: 'data.app.yaml',
      from: expect.stringContaining('log_level: info\n'),
      to: expect.stringContaining('log_level: debug\n'),
    });
    // Texts too far apart to diff within the bound are shown whole, as any other value.
    const many = (n: number) => Array.from({ length: 3_000 }, (_, i) => `line ${i * n}`).join('\n');
    expect(textHunks(many(1), many(7), '  ')).toBeUndefined();
  });

  it('lists an Application that does not render as not judged, exits 1 only when its inputs changed, and still reports the rest', async () => {
    const repo = await repoWith(BASE);
    repo.write('apps/other/application.yaml', DEMO_APP.replace(/demo/g, 'other'));
    repo.write('apps/other/objects.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: other\ndata: {a: "1"}\n');
    repo.write('apps/demo/kustomization.yaml', 'resources: [missing.yaml]\n');
    // A kustomize source: a directory block would make Argo CD walk the folder as plain files, kustomization and all.
    repo.write('apps/demo/application.yaml', DEMO_APP.replace('\n    directory:\n      exclude: application.yaml', ''));
    await git(repo.root, 'add', '-A');
    await git(repo.root, 'commit', '-q', '-m', 'demo cannot render on either side');
    // Unchanged inputs on both sides: reported, and not a failure; the other app's change is reported.
    repo.write('apps/other/objects.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: other\ndata: {a: "2"}\n');
    let r = await diff(repo, ['HEAD']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/NOT JUDGED \(1\)\n  demo: base: kustomize apps\/demo: .*missing\.yaml.*head: .* \(its inputs are unchanged\)/);
    expect(r.stdout).toContain('    data.a: "1" -> "2"');
    // The broken app's inputs change: this diff cannot vouch for it, so it fails, and still reports the rest.
    repo.write('apps/demo/objects.yaml', BASE.replace('web:1.4.0', 'web:9.9.9'));
    r = await diff(repo, ['HEAD']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/demo: .*\(its inputs changed: this diff cannot vouch for it\)/);
    expect(r.stdout).toContain('    data.a: "1" -> "2"');
    // An input beyond the app's folder, here a component its kustomization names, counts the same.
    await git(repo.root, 'checkout', '-q', '--', '.');
    repo.write('apps/demo/kustomization.yaml', 'resources: [missing.yaml]\ncomponents: [../../lib/common]\n');
    repo.write('lib/common/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonLabels: {team: a}\n');
    await git(repo.root, 'add', '-A');
    await git(repo.root, 'commit', '-q', '-m', 'demo builds a component from lib/');
    repo.write('lib/common/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonLabels: {team: b}\n');
    r = await diff(repo, ['HEAD']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout, r.stderr).toMatch(/demo: .*\(its inputs changed: this diff cannot vouch for it\)/);
    const noRef = await diff(repo, ['no-such-branch']);
    expect(noRef.code).toBe(2);
    expect(noRef.stderr).toMatch(/^diff: no such ref "no-such-branch"/);
  });
});

describe('the report', () => {
  it('past its cap keeps the plan and every risk, folds the changes into the full report, and links it', () => {
    const objects = (n: number, image: string) =>
      new Map(
        Array.from({ length: n }, (_, i) => [
          `app-${i}|apps/Deployment|ns|web-${i}`,
          { app: `app-${i}`, prune: true, object: { kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'web', image }] } } } } },
        ]),
      );
    const [base, head] = [{ objects: objects(400, 'web:1.0.0') }, { objects: objects(400, 'web:2.0.0') }] as [Snapshot, Snapshot];
    const changes = compare(base, head);
    const flagged = risks(changes, base, head);
    const md = markdown({ changes, risks: flagged }, 80_000, 'https://github.com/o/r/actions/runs/1');
    expect(md.length).toBeLessThanOrEqual(80_000);
    expect(md).toMatch(
      /^## Rendered diff\n\n\*\*Plan:\*\* 0 to create, 400 to update, 0 to delete, 0 to replace, in 400 Application\(s\)\. \*\*400 risk\(s\) to review\*\*, 400 note\(s\)\./,
    );
    // Every risk is there, under its Application; the notes (each Deployment replaces its pods) up to their count;
    // the per-resource sections that did not fit are counted and linked.
    expect(md.match(/^ {2}- \*\*version\*\*/gm)).toHaveLength(400);
    expect(md.match(/^- \*\*rollout\*\* in /gm)).toHaveLength(60);
    expect(md).toContain('- and 340 more, in the full report');
    expect(md).toMatch(
      /\*\*\d+ Application\(s\) with changes are not shown here\*\*, to stay under GitHub's comment limit: see \[the full report\]\(https:\/\/github\.com\/o\/r\/actions\/runs\/1\) \(Markdown and HTML\)/,
    );
    expect(markdown({ changes, risks: flagged }, Infinity)).not.toMatch(/not shown here/);
  });
});

/**
 * npm run diff on fixture git repositories built here: what it flags for a person to review, each risk class making
 * exactly its flag appear: an image's major, the facts' Talos or Kubernetes moved past what talosctl takes, a chart
 * bumped past the next minor, RBAC that grows, a network policy widened, a chart that reads the API versions through
 * tpl. What it shows of a change: diff.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoApp } from '../../test-support/render-fixtures.ts';
import { BASE, diff, flagsAfter, git, repoWith } from './diff-repo.ts';
import { compare, risks, type Snapshot } from '../diff/changes.ts';
import { RISK_FLAGGED } from '../diff/command.ts';

describe('npm run diff flags', () => {
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
});

/**
 * Whether a change starts a sync, in the rendered diff: Argo CD leaves hooks and Skipped objects out of the
 * comparison that makes an app OutOfSync (controller/state.go), so a change to them alone starts no automated sync (a
 * risk to review); any other change does, and its sync runs the app's hooks (a note naming them). Scratch git
 * repositories, diffed against their working tree.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_APP, judged as judgedAs, WEB } from './diff-repo.ts';
import { RISK_FLAGGED } from '../diff/command.ts';

type Report = { risks: { flag: string; level: string; reason: string }[]; changes: { fields: unknown[] }[] };

const MIGRATE = (args: string, annotations = '    argocd.argoproj.io/hook: PreSync\n') =>
  `---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  namespace: demo\n  annotations:\n${annotations}spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: migrate\n          image: ghcr.io/example/migrate:1.0.0\n          args: [${args}]\n`;
const NOTIFY = `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notify\n  namespace: demo\n  annotations: {helm.sh/hook: post-upgrade}\ndata: {a: "1"}\n`;

const judged = (base: string, head: string, app?: string) => judgedAs<Report>(base, head, app);

describe('the rendered diff says whether a change starts a sync, and what the sync runs', () => {
  it('says a change to hooks alone starts no sync: the app stays Synced, a risk to review', async () => {
    const r = await judged(WEB + MIGRATE('up'), WEB + MIGRATE('up, --fast'));
    expect(r.code, r.stderr).toBe(RISK_FLAGGED);
    expect(r.report.risks).toEqual([
      {
        app: 'demo',
        id: 'demo|argoproj.io/Application|argocd|demo',
        flag: 'no-sync',
        level: 'review',
        reason:
          'Application demo changes only what Argo CD leaves out of its comparison (hooks, Skipped objects, fields its ignoreDifferences ignores: Job demo/migrate): the app stays Synced, no automated sync starts, and the change reaches the cluster only at its next sync for another reason, or a manual one',
      },
    ]);
    // An object Skip keeps out of every sync, alike; a hook removed changes nothing either way.
    const skipped = MIGRATE('up', '    argocd.argoproj.io/hook: Skip\n');
    expect((await judged(WEB + skipped, WEB + skipped.replace('[up]', '[down]'))).report.risks.map((x) => x.flag)).toEqual(['no-sync']);
    // A hook removed starts no sync, and stays in the cluster: Argo CD never prunes a hook.
    let removed = await judged(WEB + MIGRATE('up'), WEB);
    expect(removed.report.risks.map((x) => [x.flag, x.level, x.reason])).toEqual([
      [
        'not-pruned',
        'review',
        "Job demo/migrate, a hook, is no longer in the repository: Argo CD never prunes a hook, and its delete policies (BeforeHookCreation) remove none after a successful run (BeforeHookCreation waits for a next run of app demo's hook, which never comes): it stays in the cluster as its last run left it until someone deletes it",
      ],
    ]);
    const deletedAfterRun = MIGRATE('up', '    argocd.argoproj.io/hook: PreSync\n    argocd.argoproj.io/hook-delete-policy: HookSucceeded\n');
    removed = await judged(WEB + deletedAfterRun, WEB);
    expect(removed.report.risks.map((x) => [x.flag, x.level])).toEqual([['not-pruned', 'note']]);
    // An object to prune with IgnoreExtraneous leaves the app Synced too.
    const extra = `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: demo\n  annotations: {argocd.argoproj.io/compare-options: IgnoreExtraneous}\ndata: {a: "1"}\n`;
    expect((await judged(WEB + MIGRATE('up') + extra, WEB + MIGRATE('up, --fast'))).report.risks.map((x) => x.flag)).toEqual(['no-sync']);
  });

  it('says a change to fields the ignoreDifferences ignores alone starts no sync, whether or not the sync would respect them', async () => {
    const ignoring = (respect: string) =>
      DEMO_APP.replace(
        '      selfHeal: true\n',
        `      selfHeal: true\n${respect}  ignoreDifferences:\n    - group: apps\n      kind: Deployment\n      jsonPointers: [/spec/replicas]\n`,
      );
    const scaled = (n: number) => WEB.replace('spec:\n  selector', `spec:\n  replicas: ${n}\n  selector`);
    let r = await judged(scaled(1), scaled(3), ignoring(''));
    expect(r.code, r.stderr).toBe(RISK_FLAGGED);
    expect(r.report.risks.map((x) => [x.flag, x.reason])).toEqual([['no-sync', expect.stringContaining('Deployment demo/web')]]);
    // The whole manifest is sent at the next sync, so the diff shows the change.
    expect(r.report.changes).toEqual([expect.objectContaining({ fields: [expect.objectContaining({ path: 'spec.replicas', from: 1, to: 3 })] })]);
    // Under RespectIgnoreDifferences=true the sync keeps the cluster's value: no change at all.
    r = await judged(scaled(1), scaled(3), ignoring('    syncOptions: [RespectIgnoreDifferences=true]\n'));
    expect([r.code, r.report.risks, r.report.changes]).toEqual([0, [], []]);
    // A jq expression is read by jq: the same field, the same verdict.
    const jq = (expression: string) => ignoring('').replace('jsonPointers: [/spec/replicas]', `jqPathExpressions: ['${expression}']`);
    r = await judged(scaled(1), scaled(3), jq('.spec.replicas'));
    expect(r.report.risks.map((x) => x.flag)).toEqual(['no-sync']);
    // One that fails on the object is skipped by Argo CD's normalizer: it ignores nothing, and the change starts a sync.
    r = await judged(scaled(1), scaled(3), jq('.spec | keys'));
    expect(r.report.risks).toEqual([]);
    // The normalizer runs an expression on the live object and on the target each: one that selects by value may
    // ignore a field on one side only, and then the comparison still sees it.
    const mirrored = jq('.spec.template.spec.containers[] | select(.image | startswith("mirror.example/")) | .image');
    const image = (ref: string) => WEB.replace('ghcr.io/example/web:1.4.0', ref);
    const flags = async (base: string, head: string) => (await judged(base, head, mirrored)).report.risks.map((x) => x.flag);
    expect(await flags(image('mirror.example/web:1.4.0'), image('mirror.example/web:1.5.0'))).toContain('no-sync');
    expect(await flags(image('ghcr.io/example/web:1.4.0'), image('mirror.example/web:1.5.0'))).not.toContain('no-sync');
    expect(await flags(image('mirror.example/web:1.4.0'), image('ghcr.io/example/web:1.5.0'))).not.toContain('no-sync');
    // Under RespectIgnoreDifferences=true the sync sends the cluster's value of what it ignores of the live object:
    // an image the cluster holds from the ignored mirror stays, whatever the head writes.
    const respected = mirrored.replace('      selfHeal: true\n', '      selfHeal: true\n    syncOptions: [RespectIgnoreDifferences=true]\n');
    r = await judged(image('mirror.example/web:1.4.0'), image('ghcr.io/example/web:1.5.0'), respected);
    expect([r.code, r.report.changes]).toEqual([0, []]);
  });

  it('says a change to a status the API server keeps as its own is a note, not a risk: no sync writes it', async () => {
    // A CRD whose status stanza a chart bump moves: Argo CD ignores /status, and the API server takes none from a manifest.
    const crd = (stored: string) =>
      `---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      subresources: {status: {}}\n      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}\nstatus:\n  storedVersions: [${stored}]\n  acceptedNames: {kind: "", plural: ""}\n  conditions: []\n`;
    let r = await judged(WEB + crd('v1'), WEB + crd('v1, v1beta1'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.report.risks.filter((x) => x.flag === 'no-sync')).toEqual([
      expect.objectContaining({
        level: 'note',
        reason:
          'Application demo changes only the status of CustomResourceDefinition widgets.example.com, which the API server keeps as its own (a subresource): no sync writes it, now or later',
      }),
    ]);
    // A custom resource whose CRD declares no status subresource takes its status from the manifest: still a risk.
    const widget = (phase: string) => `---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: demo\nstatus: {phase: ${phase}}\n`;
    const plain = crd('v1').replace('      subresources: {status: {}}\n', '');
    r = await judged(WEB + plain + widget('a'), WEB + plain + widget('b'));
    expect(r.report.risks.filter((x) => x.flag === 'no-sync').map((x) => x.level)).toEqual(['review']);
  });

  it('names the hooks a sync runs, in phase order, where another change starts it', async () => {
    const r = await judged(WEB + MIGRATE('up') + NOTIFY, WEB.replace('web:1.4.0', 'web:1.4.1') + MIGRATE('up') + NOTIFY);
    expect(r.code, r.stderr).toBe(0);
    expect(r.report.risks.filter((x) => x.flag === 'hooks')).toEqual([
      expect.objectContaining({
        level: 'note',
        reason: 'the sync of Application demo runs its hooks: PreSync Job demo/migrate; PostSync ConfigMap demo/notify',
      }),
    ]);
  });

  it("counts a chart's version label, which the field list leaves out as noise, as a change that starts a sync (a chart bump that moves a hook syncs)", async () => {
    const labelled = (v: string) => WEB.replace('  namespace: demo\n', `  namespace: demo\n  labels: {helm.sh/chart: web-${v}}\n`);
    const r = await judged(labelled('1.0.0') + MIGRATE('up'), labelled('1.1.0') + MIGRATE('up, --fast'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.report.risks.map((x) => x.flag)).toEqual(['hooks']);
  });

  it('counts a pod template changed only in a checksum as a change that starts a sync', async () => {
    const summed = (sum: string) => WEB.replace('      labels: {app: web}\n', `      labels: {app: web}\n      annotations: {checksum/config: ${sum}}\n`);
    const r = await judged(summed('a') + MIGRATE('up'), summed('b') + MIGRATE('up'));
    expect(r.report.risks.map((x) => x.flag)).toEqual(['rollout', 'hooks']);
  });
});

/**
 * Updates the cluster refuses, in the rendered diff: each object both refs apply is judged as the API server judges
 * an update of the base's object, and as Argo CD's sync writes it. A refused update exits 4 and heads the comment;
 * one the sync deletes and creates instead (Force=true) is a replacement to review; what the diff cannot know of the
 * live object is said, never passed. Scratch git repositories, diffed against their working tree.
 */
import { describe, expect, it } from 'vitest';
import { CLAIM, DEMO_APP, diff, judged as judgedAs, repoWith, WEB } from './diff-repo.ts';
import { REFUSED, RISK_FLAGGED } from '../diff/command.ts';
import { without, type Snapshot } from '../diff/changes.ts';
import { storageClasses } from '../diff/refusals.ts';

const CLASS = (expand: boolean) =>
  `---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: ceph-block\nprovisioner: rook-ceph.rbd.csi.ceph.com\nallowVolumeExpansion: ${expand}\n`;
const DB = `---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: demo
spec:
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
        - name: db
          image: ghcr.io/example/db:1.0.0
  volumeClaimTemplates:
    - metadata:
        name: data
        labels: {helm.sh/chart: db-1.0.0}
      spec:
        accessModes: [ReadWriteOnce]
        resources: {requests: {storage: 1Gi}}
`;
const SHARE = `---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: media-share
spec:
  capacity: {storage: 1Ti}
  accessModes: [ReadWriteMany]
  nfs: {server: 192.168.1.20, path: /volume1/media}
`;
const job = (annotations: string, args: string) =>
  `---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  namespace: demo\n${annotations}spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: migrate\n          image: ghcr.io/example/migrate:1.0.0\n          args: [${args}]\n`;

type Report = {
  plan: { app: string; update: number; replace: number; refuse: number }[];
  risks: { flag: string; level: string; reason: string }[];
  changes: { id: string }[];
};

const judged = (base: string, head: string, app?: string) => judgedAs<Report>(base, head, app);

describe('the rendered diff refuses what the API server refuses in an update', () => {
  it.each([
    [
      'a Deployment selector',
      WEB,
      WEB.replace('matchLabels: {app: web}', 'matchLabels: {app: web, tier: front}'),
      /^Deployment demo\/web: the API server refuses the update \(kubectl apply\) at spec\.selector: field is immutable \(ValidateDeploymentUpdate\)\. To apply it: delete it by hand and let the sync create it anew$/,
    ],
    [
      'a claim made smaller',
      CLAIM,
      CLAIM.replace('storage: 10Gi', 'storage: 5Gi'),
      /at spec\.resources\.requests\.storage: Forbidden: field can not be less than status\.capacity \(10Gi -> 5Gi\)/,
    ],
    [
      'a claim moved to another class',
      CLAIM,
      CLAIM.replace('storageClassName: ceph-block', 'storageClassName: local-path'),
      /at spec\.storageClassName: spec: Forbidden: spec is immutable after creation except resources\.requests and volumeAttributesClassName for bound claims \(storageClassName changed\)/,
    ],
    ['a claim that stops naming its class', CLAIM, CLAIM.replace('  storageClassName: ceph-block\n', ''), /\(storageClassName changed\)/],
    [
      'a claim grown under a class that does not expand',
      CLAIM + CLASS(false),
      CLAIM.replace('10Gi', '20Gi') + CLASS(false),
      /only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize \(StorageClass ceph-block does not set allowVolumeExpansion: true\) \(PersistentVolumeClaimResize\)/,
    ],
    [
      'a claim template grown',
      DB,
      DB.replace('storage: 1Gi', 'storage: 2Gi'),
      /^StatefulSet demo\/db: the API server refuses the update \(kubectl apply\) at spec\.volumeClaimTemplates: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden \(volumeClaimTemplates changed\)/,
    ],
    [
      'a NAS that moved to another address',
      SHARE,
      SHARE.replace('192.168.1.20', '192.168.1.30'),
      /^PersistentVolume media-share: the API server refuses the update \(kubectl apply\) at spec\.nfs: spec\.persistentvolumesource: Forbidden: spec\.persistentvolumesource is immutable after creation \(nfs changed\)/,
    ],
    [
      'a Job that is no hook, its template changed',
      job('', 'up'),
      job('', 'up, --fast'),
      /^Job demo\/migrate: the API server refuses the update \(kubectl apply\) at spec\.template: field is immutable \(template spec\.containers changed\)/,
    ],
  ])('%s: exit 4, a refusal in the API server words, the plan counting it refused', async (_why, base, head, reason) => {
    const { code, stderr, report } = await judged(base, head);
    expect(code, stderr).toBe(REFUSED);
    expect(report.risks.filter((r) => r.level === 'refused').map((r) => r.reason)).toEqual([expect.stringMatching(reason)]);
    expect(report.plan.reduce((n, p) => n + p.refuse, 0)).toBe(1);
  });

  it('refuses a claim template whose chart label moved, which the diff itself leaves out as noise', async () => {
    const { code, report } = await judged(DB, DB.replace('db-1.0.0', 'db-1.1.0'));
    expect(code).toBe(REFUSED);
    expect(report.changes).toEqual([]);
    expect(report.plan).toEqual([expect.objectContaining({ app: 'demo', update: 0, refuse: 1 })]);
    expect(report.risks.map((r) => r.reason)).toEqual([expect.stringMatching(/StatefulSet demo\/db: .* \(volumeClaimTemplates changed\)/)]);
  });

  it('lets through what the API server takes: a claim grown where its class expands, a template change, what it fills in itself', async () => {
    expect((await judged(CLAIM + CLASS(true), CLAIM.replace('10Gi', '20Gi') + CLASS(true))).code).toBe(0);
    const explicit = DB.replace('    - metadata:\n', '    - apiVersion: v1\n      kind: PersistentVolumeClaim\n      metadata:\n').replace(
      '        accessModes',
      '        volumeMode: Filesystem\n        accessModes',
    );
    const r = await judged(DB, explicit.replace('db:1.0.0', 'db:1.0.1').replace('serviceName: db', 'serviceName: db\n  podManagementPolicy: OrderedReady'));
    expect(r.code, r.stderr).toBe(0);
    // A hook Job is deleted and created at each sync, never updated: nothing refused (a change to hooks alone starts no sync).
    const hook = '  annotations:\n    helm.sh/hook: pre-upgrade\n';
    expect((await judged(job(hook, 'up'), job(hook, 'up, --fast'))).report.risks.map((x) => x.flag)).toEqual(['no-sync']);
  });

  it('says what it cannot know of the live object, for review: a class the cluster gave a claim, an expansion under a class not in the repository', async () => {
    const r = await judged(CLAIM, CLAIM.replace('10Gi', '20Gi'));
    expect(r.code, r.stderr).toBe(RISK_FLAGGED);
    expect(r.report.risks).toEqual([
      expect.objectContaining({
        flag: 'immutable',
        level: 'review',
        reason: expect.stringMatching(/not judged at spec\.resources\.requests\.storage: StorageClass ceph-block is not in the repository/),
      }),
    ]);
    const unnamed = CLAIM.replace('  storageClassName: ceph-block\n', '');
    expect((await judged(unnamed, CLAIM)).report.risks.map((x) => x.reason)).toEqual([expect.stringMatching(/the claim named no class at creation/)]);
    // The repository's default class is the one the cluster gave it: naming it changes nothing.
    const defaulted = CLASS(true).replace('  name: ceph-block\n', '  name: ceph-block\n  annotations: {storageclass.kubernetes.io/is-default-class: "true"}\n');
    expect((await judged(unnamed + defaulted, CLAIM + defaulted)).code).toBe(0);
  });

  it('calls a refused update under Force=true a replacement to review, as kubectl apply --force deletes and creates it; server-side apply does not', async () => {
    const forced = (t: string) => t.replace('  namespace: demo\n', '  namespace: demo\n  annotations: {argocd.argoproj.io/sync-options: Force=true}\n');
    const changed = WEB.replace('matchLabels: {app: web}', 'matchLabels: {app: web, tier: front}');
    let r = await judged(forced(WEB), forced(changed));
    expect(r.code, r.stderr).toBe(RISK_FLAGGED);
    expect(r.report.risks).toEqual([
      expect.objectContaining({
        flag: 'replaced',
        level: 'review',
        reason: expect.stringMatching(/^Deployment demo\/web is deleted and created again by the sync \(kubectl apply --force\)/),
      }),
    ]);
    expect(r.report.plan).toEqual([expect.objectContaining({ replace: 1, refuse: 0 })]);
    const serverSide = DEMO_APP.replace('      selfHeal: true\n', '      selfHeal: true\n    syncOptions: [ServerSideApply=true]\n');
    r = await judged(forced(WEB), forced(changed), serverSide);
    expect(r.code, r.stderr).toBe(REFUSED);
    expect(r.report.risks.map((x) => x.reason)).toEqual([expect.stringMatching(/refuses the update \(server-side apply\) at spec\.selector/)]);
  });

  it('sends what Argo CD ignores as the cluster holds it under RespectIgnoreDifferences=true: no change, nothing refused; a jq expression read by jq, a slice not', async () => {
    const grown = DB.replace('storage: 1Gi', 'storage: 2Gi');
    const respecting = (ignore: string) =>
      DEMO_APP.replace(
        '      selfHeal: true\n',
        `      selfHeal: true\n    syncOptions: [RespectIgnoreDifferences=true]\n  ignoreDifferences:\n    - group: apps\n      kind: StatefulSet\n      ${ignore}\n`,
      );
    let r = await judged(DB, grown, respecting('jsonPointers: [/spec/volumeClaimTemplates]'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.report.changes).toEqual([]);
    // jq names the fields: the template's first claim's resources, sent as the cluster holds them.
    r = await judged(DB, grown, respecting('jqPathExpressions: [\'.spec.volumeClaimTemplates[] | select(.metadata.name == "data") | .spec.resources\']'));
    expect([r.code, r.report.changes, r.report.risks], r.stderr).toEqual([0, [], []]);
    // A slice of a list has no JSON pointer: what it keeps of the cluster is not judged.
    r = await judged(DB, grown, respecting("jqPathExpressions: ['.spec.volumeClaimTemplates[0:]']"));
    expect(r.code, r.stderr).toBe(RISK_FLAGGED);
    expect(r.report.risks.map((x) => [x.flag, x.reason])).toEqual([
      [
        'immutable',
        expect.stringMatching(
          /not judged at spec\.volumeClaimTemplates: .*\(the sync keeps the cluster's jq \.spec\.volumeClaimTemplates\[0:\] \(a slice of a list\), which the gate does not read/,
        ),
      ],
    ]);
    // Without RespectIgnoreDifferences the app only looks in sync; the next sync sends the change, and it is refused.
    r = await judged(DB, grown, respecting('jsonPointers: [/spec/volumeClaimTemplates]').replace('    syncOptions: [RespectIgnoreDifferences=true]\n', ''));
    expect(r.code, r.stderr).toBe(REFUSED);
  });

  it("refuses an update a CRD's transition rule refuses (on oldSelf), with the rule's message, and lets one it allows pass", async () => {
    const gadgets = (size: number, name = 'g1') =>
      `---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names: {kind: Gadget, plural: gadgets}\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              type: object\n              properties:\n                size: {type: integer, x-kubernetes-validations: [{rule: 'self >= oldSelf', message: 'size may only grow'}]}\n                name: {type: string, x-kubernetes-validations: [{rule: 'self == oldSelf', message: 'name is immutable'}]}\n---\napiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n  namespace: demo\nspec:\n  size: ${size}\n  name: ${name}\n`;
    const repo = await repoWith(WEB + gadgets(5));
    repo.write('apps/demo/objects.yaml', WEB + gadgets(3, 'g2'));
    let r = await diff(repo, ['HEAD', '-o', 'json']);
    expect(r.code, r.stderr).toBe(REFUSED);
    expect((JSON.parse(r.stdout) as Report).risks.map((x) => [x.flag, x.reason])).toEqual([
      [
        'refused',
        expect.stringMatching(/^Gadget demo\/g: the API server refuses the update \(kubectl apply\) at spec\.size: Invalid value: size may only grow/),
      ],
      ['refused', expect.stringMatching(/at spec\.name: Invalid value: name is immutable/)],
    ]);
    repo.write('apps/demo/objects.yaml', WEB + gadgets(8));
    r = await diff(repo, ['HEAD', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
  });

  it('heads the comment and the text report with what the cluster refuses, and what a sync then does', async () => {
    const repo = await repoWith(SHARE);
    repo.write('apps/demo/objects.yaml', SHARE.replace('192.168.1.20', '192.168.1.30'));
    const md = await diff(repo, ['HEAD', '-o', 'markdown']);
    expect(md.code).toBe(REFUSED);
    expect(md.stdout).toMatch(
      /\*\*Plan:\*\* 0 to create, 0 to update, 0 to delete, 0 to replace, 1 refused by the cluster, in 1 Application\(s\)\. \*\*1 update\(s\) the cluster refuses\*\*/,
    );
    expect(md.stdout).toMatch(
      /### ⛔ 1 update\(s\) the cluster refuses\n\nThe API server refuses these updates, so Argo CD's sync of each Application stops at the object/,
    );
    expect(md.stdout).toContain('| Application | create | update | delete | replace | refused |');
    const text = await diff(repo, ['HEAD']);
    expect(text.stdout).toMatch(/^PLAN: .*1 refused by the cluster/);
    expect(text.stdout).toMatch(/\nREFUSED BY THE CLUSTER \(1\): The API server refuses these updates/);
  });
});

describe('what a delete under prune takes with it', () => {
  it('a claim its volume only where its class reclaims by Delete; a StatefulSet its claims only under whenDeleted: Delete', async () => {
    const retain = CLASS(true).replace('allowVolumeExpansion: true', 'allowVolumeExpansion: true\nreclaimPolicy: Retain');
    const reasons = async (base: string, head: string) => (await judged(base, head)).report.risks.filter((r) => r.flag === 'delete').map((r) => r.reason);
    expect(await reasons(CLAIM + CLASS(true), CLASS(true))).toEqual([
      expect.stringMatching(/removes it and its data with it \(StorageClass ceph-block reclaims by Delete\)$/),
    ]);
    expect(await reasons(CLAIM + retain, retain)).toEqual([
      expect.stringMatching(/removes it; its volume stays Released with its data \(StorageClass ceph-block reclaims by Retain\)$/),
    ]);
    expect(await reasons(WEB + DB, WEB)).toEqual([
      expect.stringMatching(/StatefulSet demo\/db is deleted: .* and its pods; the claims it made stay \(whenDeleted: Retain\)/),
    ]);
    const deleting = DB.replace('  serviceName: db\n', '  serviceName: db\n  persistentVolumeClaimRetentionPolicy: {whenDeleted: Delete}\n');
    expect(await reasons(WEB + deleting, WEB)).toEqual([expect.stringMatching(/and the claims it made, with their data \(whenDeleted: Delete\)$/)]);
  });
});

describe('the StorageClasses a judgment reads', () => {
  it("are the whole snapshot's, even where the Application applying them could not be rendered and is left out of both sides", () => {
    const cls = {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'ceph-block', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'x',
    };
    const whole: Snapshot = { objects: new Map([['storage|storage.k8s.io/v1/StorageClass||ceph-block', { app: 'storage', prune: true, object: cls }]]) };
    const cut = without(whole, new Set(['storage']));
    expect(cut.objects.size).toBe(0);
    expect(storageClasses(cut)).toEqual({ byName: new Map([['ceph-block', cls]]), defaultClass: 'ceph-block' });
  });
});

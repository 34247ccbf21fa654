/**
 * What restarts, in the rendered diff: a workload whose pod template changes as rendered replaces its pods (a note
 * saying how), or replaces none though its template changed (a risk to review); a workload that reads a changed
 * ConfigMap or Secret as environment, or a file mounted by subPath, and keeps its template, keeps the old values (a
 * risk to review). Scratch git repositories, diffed against their working tree.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_APP, diff, judged as judgedAs, repoWith, WEB } from './diff-repo.ts';
import { RISK_FLAGGED } from '../diff/command.ts';

type Report = {
  plan: { app: string; update: number }[];
  risks: { flag: string; level: string; reason: string }[];
  changes: { id: string }[];
};

const SETTINGS = (level: string) => `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: demo\ndata:\n  LOG_LEVEL: ${level}\n`;
const TOKEN = (token: string) => `---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: token\n  namespace: demo\nstringData:\n  token: ${token}\n`;

/** The demo Deployment with `extra` added to its container, and `volumes` to its pod spec. */
const reader = (extra: string, volumes = '') =>
  `${WEB.replace('          image: ghcr.io/example/web:1.4.0\n', `          image: ghcr.io/example/web:1.4.0\n${extra}`)}${volumes}`;
const ENV_FROM = '          envFrom:\n            - configMapRef: {name: settings}\n';
const MOUNT = (subPath: string) => `          volumeMounts:\n            - {name: conf, mountPath: /etc/web${subPath}}\n`;
const CONF_VOLUME = '      volumes:\n        - name: conf\n          configMap: {name: settings}\n';

const judged = (base: string, head: string, app?: string) => judgedAs<Report>(base, head, app);

describe('the rendered diff says what restarts', () => {
  it('says a workload that reads a changed ConfigMap as environment keeps the old values when its template stays: a risk to review, with the restart', async () => {
    const r = await judged(reader(ENV_FROM) + SETTINGS('info'), reader(ENV_FROM) + SETTINGS('debug'));
    expect(r.code, r.stderr).toBe(RISK_FLAGGED);
    expect(r.report.risks).toEqual([
      {
        app: 'demo',
        id: 'demo|apps/Deployment|demo|web',
        flag: 'stale',
        level: 'review',
        reason:
          'ConfigMap demo/settings changes, but Deployment demo/web reads it (container web as environment) and its pod template does not change: its pods keep the old values until they restart (`kubectl -n demo rollout restart deployment/web`, or a checksum of it in the template)',
      },
    ]);
  });

  it('says a checksum of the config in the template replaces the pods instead: a note, and nothing stale', async () => {
    const summed = (sum: string) =>
      reader(ENV_FROM).replace('      labels: {app: web}\n', `      labels: {app: web}\n      annotations: {checksum/config: ${sum}}\n`);
    const r = await judged(summed('aaa') + SETTINGS('info'), summed('bbb') + SETTINGS('debug'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.report.risks.map((x) => [x.flag, x.level, x.reason])).toEqual([
      ['rollout', 'note', expect.stringMatching(/^Deployment demo\/web replaces its pods, as its pod template changes \(annotation checksum\/config\)/)],
    ]);
    expect(r.report.plan).toEqual([expect.objectContaining({ app: 'demo', update: 2 })]);
  });

  it('says files mounted from it change in place (a note), and a file mounted by subPath never does (a risk to review)', async () => {
    let r = await judged(reader(MOUNT(''), CONF_VOLUME) + SETTINGS('info'), reader(MOUNT(''), CONF_VOLUME) + SETTINGS('debug'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.report.risks.map((x) => [x.flag, x.level, x.reason])).toEqual([
      ['stale', 'note', expect.stringMatching(/mounts it \(container web as files of a volume\): the kubelet updates the files in place/)],
    ]);
    const sub = reader(MOUNT(', subPath: LOG_LEVEL'), CONF_VOLUME);
    r = await judged(sub + SETTINGS('info'), sub + SETTINGS('debug'));
    expect(r.code, r.stderr).toBe(RISK_FLAGGED);
    expect(r.report.risks.map((x) => [x.flag, x.level, x.reason])).toEqual([
      ['stale', 'review', expect.stringMatching(/reads it \(container web as a file mounted by subPath\)/)],
    ]);
  });

  it('judges a Secret alike, its values never shown, and leaves a reader in another namespace, or one scaled to 0, alone', async () => {
    const env = '          env:\n            - name: TOKEN\n              valueFrom: {secretKeyRef: {name: token, key: token}}\n';
    let r = await judged(reader(env) + TOKEN('s3cr3t-old'), reader(env) + TOKEN('s3cr3t-new'));
    expect(r.code, r.stderr).toBe(RISK_FLAGGED);
    expect(r.report.risks.map((x) => x.reason)).toEqual([expect.stringMatching(/^Secret demo\/token changes, but Deployment demo\/web reads it/)]);
    expect(JSON.stringify(r.report)).not.toContain('s3cr3t');
    const elsewhere = reader(env).replace('  namespace: demo\n', '  namespace: other\n');
    r = await judged(elsewhere + TOKEN('a'), elsewhere + TOKEN('b'));
    expect(r.report.risks).toEqual([]);
    const idle = reader(env).replace('spec:\n  selector', 'spec:\n  replicas: 0\n  selector');
    r = await judged(idle + TOKEN('a'), idle + TOKEN('b'));
    expect(r.report.risks).toEqual([]);
  });

  it('judges the Secret an ExternalSecret writes alike, where what it fetches changes', async () => {
    const env = '          env:\n            - name: TOKEN\n              valueFrom: {secretKeyRef: {name: web-token, key: token}}\n';
    const es = (key: string) =>
      `---\napiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: web\n  namespace: demo\nspec:\n  secretStoreRef: {kind: ClusterSecretStore, name: homelab}\n  target: {name: web-token}\n  data:\n    - secretKey: token\n      remoteRef: {key: ${key}, property: token}\n`;
    const r = await judged(reader(env) + es('web'), reader(env) + es('web-v2'));
    expect(r.report.risks.filter((x) => x.flag === 'stale').map((x) => [x.level, x.reason])).toEqual([
      [
        'review',
        expect.stringMatching(
          /^Secret demo\/web-token \(written by ExternalSecret web\) changes, but Deployment demo\/web reads it \(container web as environment\)/,
        ),
      ],
    ]);
  });

  it('says an ExternalSecret whose target the operator never writes again keeps it as it is, and judges a ConfigMap it makes as one', async () => {
    const env = '          env:\n            - name: TOKEN\n              valueFrom: {secretKeyRef: {name: web-token, key: token}}\n';
    const es = (key: string, more: string) =>
      `---\napiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: web\n  namespace: demo\nspec:\n  secretStoreRef: {kind: ClusterSecretStore, name: homelab}\n${more}  target: {name: web-token}\n  data:\n    - secretKey: token\n      remoteRef: {key: ${key}, property: token}\n`;
    const stale = async (more: string) => {
      const r = await judged(reader(env) + es('web', more), reader(env) + es('web-v2', more));
      return r.report.risks.filter((x) => x.flag === 'stale').map((x) => [x.level, x.reason]);
    };
    expect(await stale('  refreshPolicy: CreatedOnce\n')).toEqual([
      [
        'review',
        'ExternalSecret demo/web changes what it writes, but its refreshPolicy is CreatedOnce: the operator writes it only where it does not exist: Secret demo/web-token keeps what it holds (delete it to have it written anew)',
      ],
    ]);
    expect(await stale('  refreshPolicy: OnChange\n')).toEqual([
      ['review', expect.stringMatching(/^Secret demo\/web-token \(written by ExternalSecret web\) changes, but/)],
    ]);
    const target = (key: string, fields: string) => es(key, '').replace('target: {name: web-token}', `target: {name: web-token, ${fields}}`);
    const immutable = await judged(reader(env) + target('web', 'immutable: true'), reader(env) + target('web-v2', 'immutable: true'));
    expect(immutable.report.risks.filter((x) => x.flag === 'stale').map((x) => x.reason)).toEqual([
      expect.stringContaining('its target is immutable: the operator stops reconciling it once it is synced'),
    ]);
    // A target whose manifest makes a ConfigMap: its env readers of a Secret of that name are no readers of it.
    const configMap = (key: string) => target(key, 'manifest: {apiVersion: v1, kind: ConfigMap}');
    const r = await judged(reader(env) + configMap('web'), reader(env) + configMap('web-v2'));
    expect(r.report.risks.filter((x) => x.flag === 'stale')).toEqual([]);
    const cmEnv = env.replace('secretKeyRef', 'configMapKeyRef');
    const cm = await judged(reader(cmEnv) + configMap('web'), reader(cmEnv) + configMap('web-v2'));
    expect(cm.report.risks.filter((x) => x.flag === 'stale').map((x) => x.reason)).toEqual([
      expect.stringMatching(/^ConfigMap demo\/web-token \(written by ExternalSecret web\) changes, but Deployment demo\/web reads it/),
    ]);
  });

  it('says a template change that replaces no pod (OnDelete, paused) is a risk to review, and a Recreate how it goes down', async () => {
    const bumped = (t: string) => t.replace('web:1.4.0', 'web:1.4.1');
    const paused = WEB.replace('spec:\n  selector', 'spec:\n  paused: true\n  selector');
    let r = await judged(paused, bumped(paused));
    expect(r.code, r.stderr).toBe(RISK_FLAGGED);
    expect(r.report.risks.filter((x) => x.flag === 'rollout')).toEqual([
      expect.objectContaining({
        level: 'review',
        reason:
          'Deployment demo/web: its pod template changes (spec.containers[web].image), but no pod is replaced: it is paused (spec.paused): no pod changes until `kubectl rollout resume`',
      }),
    ]);
    const onDelete = WEB.replace('kind: Deployment', 'kind: DaemonSet').replace('spec:\n  selector', 'spec:\n  updateStrategy: {type: OnDelete}\n  selector');
    r = await judged(onDelete, bumped(onDelete));
    expect(r.report.risks.filter((x) => x.flag === 'rollout')).toEqual([
      expect.objectContaining({ level: 'review', reason: expect.stringMatching(/DaemonSet demo\/web: .*OnDelete/) }),
    ]);
    const recreate = WEB.replace('spec:\n  selector', 'spec:\n  replicas: 2\n  strategy: {type: Recreate}\n  selector');
    r = await judged(recreate, bumped(recreate));
    expect(r.code, r.stderr).toBe(0);
    expect(r.report.risks.filter((x) => x.flag === 'rollout')).toEqual([
      expect.objectContaining({
        level: 'note',
        reason: expect.stringMatching(/Recreate: its 2 pod\(s\) stop before the new ones start, so it is down meanwhile$/),
      }),
    ]);
  });

  it('says a template whose lists only change order still replaces the pods (the field list compares them by name)', async () => {
    const envs = (...pairs: [string, string][]) => reader(`          env:\n${pairs.map(([n, v]) => `            - {name: ${n}, value: "${v}"}\n`).join('')}`);
    const r = await judged(envs(['A', '1'], ['B', '2']), envs(['B', '2'], ['A', '1']));
    expect(r.report.changes).toEqual([]);
    expect(r.report.risks.map((x) => x.reason)).toEqual([expect.stringContaining('as its pod template changes (the order of a list in it)')]);
  });

  it("counts an autoscaled workload's pods as its autoscaler makes them, not its manifest's replicas", async () => {
    const hpa = `---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n  namespace: demo\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 5\n`;
    const two = WEB.replace('spec:\n  selector', 'spec:\n  replicas: 2\n  selector');
    let r = await judged(two + hpa, two.replace('web:1.4.0', 'web:1.4.1') + hpa);
    expect(r.report.risks.filter((x) => x.flag === 'rollout').map((x) => x.reason)).toEqual([
      expect.stringMatching(/a rolling update of its pods \(maxSurge 25%, maxUnavailable 25%\)$/),
    ]);
    r = await judged(two, two.replace('web:1.4.0', 'web:1.4.1'));
    expect(r.report.risks.filter((x) => x.flag === 'rollout').map((x) => x.reason)).toEqual([
      expect.stringMatching(/a rolling update of its 2 pod\(s\): up to 1 new above them, none goes before its replacement is ready$/),
    ]);
  });

  it('sees no restart where RespectIgnoreDifferences keeps the template as the cluster holds it', async () => {
    const respecting = DEMO_APP.replace(
      '      selfHeal: true\n',
      '      selfHeal: true\n    syncOptions: [RespectIgnoreDifferences=true]\n  ignoreDifferences:\n    - group: apps\n      kind: Deployment\n      jsonPointers: [/spec/template]\n',
    );
    const r = await judged(WEB, WEB.replace('web:1.4.0', 'web:1.4.1'), respecting);
    expect(r.code, r.stderr).toBe(0);
    expect(r.report.risks).toEqual([]);
  });

  it('heads nothing new in the comment: restarts are notes, folded with the others', async () => {
    const repo = await repoWith(WEB);
    repo.write('apps/demo/objects.yaml', WEB.replace('web:1.4.0', 'web:1.4.1'));
    const r = await diff(repo, ['HEAD', '-o', 'markdown']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Nothing to review.');
    expect(r.stdout).toMatch(
      /<summary>2 note\(s\): news only, nothing to review<\/summary>\n\n- \*\*rollout\*\* in `demo`: `Deployment demo\/web replaces its pods/,
    );
  });
});

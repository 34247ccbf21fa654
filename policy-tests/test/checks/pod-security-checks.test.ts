/**
 * Pod Security admission, as the API server's plugin admits a pod: the pod-security mutations on a broken copy of the
 * real repository, the levels the layer says it judged at, a namespace pinned to an older policy version, and the
 * cluster's configuration as Talos' admissionControl entry writes it. The other plugins and webhooks a sync meets:
 * admission-sync-checks.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { copyGateOptions, copyRepo, onBrokenCopy, type RepoCopy } from '../support/helpers.ts';
import { runGate } from '../../gate/gate.ts';
import { podSecurityMutations } from '../mutations/admission.ts';
import { describeMutations } from '../support/mutation-runner.ts';

describeMutations('pod-security (admission/) bites on a broken copy of the real repository', podSecurityMutations);

describe('the admission layer says which Pod Security levels it judged at', () => {
  it('counts each namespace holding pods at its enforce level, and an exempt one apart', async () => {
    const copy = copyRepo();
    try {
      const run = async () => (await runGate(copyGateOptions(copy.root))).podSecurity;
      // kube-system, which the facts exempt, holds the GPU device plugin: counted apart, at no level.
      expect(await run()).toEqual({ enforced: { restricted: 2, baseline: 2, privileged: 1 }, exempt: 1 });
      copy.remove('apps/platform/intel-gpu-plugin/daemonset.yaml');
      expect(await run()).toEqual({ enforced: { restricted: 2, baseline: 2, privileged: 1 }, exempt: 0 });
      // A Job the backups app puts there counts it again.
      copy.write(
        'apps/platform/backups/probe.yaml',
        'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: probe\n  namespace: kube-system\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: probe\n          image: busybox:1.36\n',
      );
      expect(await run()).toEqual({ enforced: { restricted: 2, baseline: 2, privileged: 1 }, exempt: 1 });
    } finally {
      copy.dispose();
    }
  });
});

describe('a namespace that pins Pod Security to an older policy version', () => {
  it("has its pods judged with that version's controls, and says the version it judged at", async () => {
    const { failed, notJudged } = await onBrokenCopy('pod-security', (copy) =>
      copy.write(
        'clusters/home/namespaces.yaml',
        copy
          .read('clusters/home/namespaces.yaml')
          .replace(
            '    pod-security.kubernetes.io/enforce: privileged\n',
            '    pod-security.kubernetes.io/enforce: baseline\n    pod-security.kubernetes.io/enforce-version: v1.24\n',
          ),
      ),
    );
    expect(notJudged).toEqual([]);
    expect(failed.filter((f) => f.file.startsWith('apps/media/gluetun/'))).toContainEqual(
      expect.objectContaining({
        message: expect.stringMatching(
          /namespace media-vpn: violates PodSecurity "baseline:v1\.24" \(enforce\): non-default capabilities: container gluetun must not include NET_ADMIN/,
        ),
      }),
    );
  });
});

describe("the cluster's Pod Security configuration, as Talos' admissionControl entry writes it", () => {
  const FACTS = 'clusters/home/cluster-facts.yaml';
  const NAMESPACES = 'clusters/home/namespaces.yaml';
  const GLUETUN = 'apps/media/gluetun/deployment.yaml';
  /** media-vpn at the cluster's baseline, where gluetun's NET_ADMIN is refused, and the facts' podSecurity as given. */
  const configured = (podSecurity: string, edit: (copy: RepoCopy) => void = () => {}) =>
    onBrokenCopy('pod-security', (copy) => {
      copy.write(NAMESPACES, copy.read(NAMESPACES).replace('    pod-security.kubernetes.io/enforce: privileged\n', ''));
      const facts = copy.read(FACTS);
      const at = facts.indexOf('    exemptNamespaces: [kube-system]\n');
      copy.write(FACTS, `${facts.slice(0, at)}${podSecurity}${facts.slice(at + '    exemptNamespaces: [kube-system]\n'.length)}`);
      edit(copy);
    });
  const gluetun = (failed: { file: string }[]) => failed.filter((f) => f.file === GLUETUN).length;

  it('exempts the namespaces and runtime classes its exemptions name', async () => {
    expect(gluetun((await configured('    exemptions: {namespaces: [kube-system]}\n')).failed)).toBeGreaterThan(0);
    expect(gluetun((await configured('    exemptions: {namespaces: [kube-system, media-vpn]}\n')).failed)).toBe(0);
    const kata = (copy: RepoCopy) =>
      copy.write(
        GLUETUN,
        copy.read(GLUETUN).replace('      automountServiceAccountToken: false\n', '      automountServiceAccountToken: false\n      runtimeClassName: kata\n'),
      );
    expect(gluetun((await configured('    exemptions: {namespaces: [kube-system], runtimeClasses: [kata]}\n', kata)).failed)).toBe(0);
    expect(gluetun((await configured('    exemptions: {namespaces: [kube-system], runtimeClasses: [gvisor]}\n', kata)).failed)).toBeGreaterThan(0);
  });

  it('holds a pod of an exempt runtime class, which Pod Security does not guard, to naming the privileges it holds', async () => {
    const SONARR = 'apps/media/sonarr/deployment.yaml';
    const onHost = (runtimeClass: string) =>
      onBrokenCopy('workload-privileges-named', (copy) => {
        copy.write(
          FACTS,
          copy.read(FACTS).replace('    exemptNamespaces: [kube-system]\n', '    exemptions: {namespaces: [kube-system], runtimeClasses: [kata]}\n'),
        );
        const deployment = copy.read(SONARR);
        copy.write(
          SONARR,
          deployment.replace(
            '      automountServiceAccountToken: false\n',
            `      automountServiceAccountToken: false\n      runtimeClassName: ${runtimeClass}\n      hostNetwork: true\n`,
          ),
        );
      });
    expect((await onHost('kata')).failed.map((f) => f.message)).toEqual([expect.stringMatching(/^Deployment sonarr holds pod: hostNetwork/)]);
    // Under a runtime class the cluster does not exempt, Pod Security refuses it (pod-security), and nothing is asked here.
    expect((await onHost('gvisor')).failed).toEqual([]);
  });

  it('says not judged what exempt users might create, and judges pods at the version its defaults pin', async () => {
    const byUser = await configured('    exemptions: {namespaces: [kube-system], usernames: [system:serviceaccount:kube-system:replicaset-controller]}\n');
    expect(gluetun(byUser.failed)).toBe(0);
    expect(byUser.notJudged).toContainEqual(
      expect.stringMatching(
        /^Deployment gluetun: violates PodSecurity "baseline:latest" in namespace media-vpn \(capabilities_baseline\), unless the user that creates its pods is one the cluster exempts/,
      ),
    );
    const pinned = await onBrokenCopy('pod-security', (copy) =>
      copy.write(FACTS, copy.read(FACTS).replace('defaults: {enforce: baseline,', 'defaults: {enforce: restricted, enforce-version: v1.22,')),
    );
    // runAsUser is no control of v1.22: the messages name the version, and no finding is runAsUser's.
    expect(pinned.failed.length).toBeGreaterThan(0);
    expect(pinned.failed.every((f) => f.message.includes('"restricted:v1.22"') && !f.message.includes('[runAsUser]'))).toBe(true);
  });
});

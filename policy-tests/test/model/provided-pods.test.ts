/**
 * The pods no pod template of the repository describes, which a scraped Service may still select: those the
 * distribution runs (providedOutsideGit entries of kind Pod, with their labels) and those prometheus-operator makes
 * from a Prometheus or an Alertmanager.
 */
import { describe, expect, it } from 'vitest';
import { providedPods } from '../../model/cluster/providers.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { findFactsResource, readClusterFacts } from '../../model/repository/cluster-facts.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const factsResource = findFactsResource(repo.resources)!;

/** The facts ConfigMap with its providedOutsideGit replaced. */
const withOutsideGit = (text: string): Resource =>
  ({ ...factsResource, object: { ...factsResource.object, data: { ...(factsResource.object.data as object), providedOutsideGit: text } } }) as Resource;

describe('providedPods', () => {
  it("lists Talos' control-plane pods with the labels its manifests give them, not kubeadm's", () => {
    const pods = providedPods(repo).filter((p) => p.namespace === 'kube-system');
    expect(pods.find((p) => p.name === 'kube-controller-manager')?.labels).toEqual({ 'k8s-app': 'kube-controller-manager', tier: 'control-plane' });
    expect(pods.find((p) => p.name === 'kube-scheduler')?.labels).toEqual({ 'k8s-app': 'kube-scheduler', tier: 'control-plane' });
    expect(pods.some((p) => p.labels.component !== undefined)).toBe(false);
  });

  it("gives a Prometheus's pods the operator's labels and the resource's own podMetadata labels", () => {
    const prometheus = {
      ...repo.resources[0]!,
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'Prometheus',
      name: 'main',
      namespace: 'monitoring',
      object: {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'Prometheus',
        metadata: { name: 'main', namespace: 'monitoring' },
        spec: { podMetadata: { labels: { team: 'lab' } } },
      },
    } as Resource;
    const pods = providedPods({ ...repo, resources: [...repo.resources, prometheus] });
    expect(pods.find((p) => p.name === 'main')).toEqual({
      namespace: 'monitoring',
      name: 'main',
      labels: expect.objectContaining({ 'app.kubernetes.io/name': 'prometheus', 'operator.prometheus.io/name': 'main', prometheus: 'main', team: 'lab' }),
    });
  });

  it('refuses labels that are not a map of strings, in one line naming the entry', () => {
    const { problems } = readClusterFacts(withOutsideGit('- {kind: Pod, namespace: kube-system, name: x, reason: r, labels: [a]}\n'));
    expect(problems.map((p) => p.message)).toEqual(['providedOutsideGit entry 1 (Pod x): labels must map names to strings']);
  });
});

/**
 * service-external-ips beyond its mutation: an exemption next to the Service, with its reason, takes it; a cluster
 * without kube-proxy leaves it not judged, since the CNI's replacement decides there.
 */
import { describe, expect, it } from 'vitest';
import { externalIpsCheck } from '../../checks/network-policy/external-ips.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { copyGateOptions, useCopyWith } from '../support/helpers.ts';
import { allFindings, runGate } from '../../gate/gate.ts';

const FILE = 'apps/media/sonarr/service.yaml';
const SERVICE = (annotations: string) =>
  `apiVersion: v1\nkind: Service\nmetadata:\n  name: sonarr\n  namespace: media\n  labels:\n    app.kubernetes.io/name: sonarr\n${annotations}spec:\n  externalIPs: [192.168.1.5]\n  selector:\n    app.kubernetes.io/name: sonarr\n  ports:\n    - name: http\n      port: 8989\n      targetPort: http\n`;

describe('an exemption next to the Service takes externalIPs', () => {
  const copy = useCopyWith(
    FILE,
    SERVICE(
      '  annotations:\n    gate.homelab-gitops/exempt-service-external-ips: "the NAS moved into the cluster; its old address is kept for the clients that name it"\n',
    ),
  );

  it('gives no finding', async () => {
    expect(allFindings(await runGate(copyGateOptions(copy().root)))).toEqual([]);
  });
});

describe('a cluster without kube-proxy', () => {
  it('leaves externalIPs not judged', async () => {
    const repo = await loadRepo(REPO_ROOT);
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      name: 'claims',
      namespace: 'media',
      file: FILE,
      doc: 0,
      object: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'claims', namespace: 'media' },
        spec: { externalIPs: ['192.168.1.5'], ports: [{ port: 80 }] },
      },
      positions: { at: () => ({ line: 1, col: 1 }) },
    } as unknown as Resource;
    const facts = { ...repo.facts!, machineConfig: { ...repo.facts!.machineConfig, proxyDisabled: true } };
    const verdicts = (proxyDisabled: boolean) =>
      runPolicy({ ...repo, facts: proxyDisabled ? facts : repo.facts, resources: [...repo.resources, service] }, [externalIpsCheck]).map(
        (f) => `${f.severity ?? 'error'}: ${f.message.split(':')[0]}`,
      );
    expect(verdicts(true)).toEqual(['not-judged: Service claims sets externalIPs, and Talos runs no kube-proxy (cluster.proxy.disabled)']);
    expect(verdicts(false)).toEqual(['error: Service claims sets externalIPs 192.168.1.5']);
  });
});

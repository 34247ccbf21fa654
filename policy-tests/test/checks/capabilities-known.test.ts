/**
 * workload-capabilities-known reads a capability as containerd's CRI and runc read it: `ALL` and a Linux capability in
 * any case are known; a misspelt one, or one written with its CAP_ prefix (containerd writes CAP_ itself), runc leaves
 * out with a warning, so the entry grants or drops nothing.
 */
import { describe, expect, it } from 'vitest';
import { capabilitiesKnownCheck } from '../../checks/workload-hygiene/capabilities.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { capabilitiesOf, LINUX_CAPABILITIES } from '../../model/core/workloads.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const api = repo.resources.find((r) => r.kind === 'Deployment' && r.name === 'portfolio-api')!;

/** The API's Deployment with its first container's capabilities replaced. */
const withCapabilities = (capabilities: Record<string, unknown>): Resource => {
  const object = structuredClone(api.object) as { spec: { template: { spec: { containers: Record<string, any>[] } } } };
  const container = object.spec.template.spec.containers[0]!;
  container.securityContext = { ...container.securityContext, capabilities };
  return { ...api, object } as Resource;
};
const judged = (capabilities: Record<string, unknown>) =>
  runPolicy({ ...repo, resources: [...repo.resources.filter((r) => r !== api), withCapabilities(capabilities)] }, [capabilitiesKnownCheck]).map(
    (f) => f.message,
  );

describe('workload-capabilities-known', () => {
  it('passes the real repository', () => {
    expect(runPolicy(repo, [capabilitiesKnownCheck])).toEqual([]);
  });
  it('knows the 41 capabilities runc knows, and ALL, in any case', () => {
    expect(LINUX_CAPABILITIES.size).toBe(41);
    expect(judged({ drop: ['ALL', 'all', 'net_raw', 'Checkpoint_Restore'], add: ['NET_BIND_SERVICE', 'bpf'] })).toEqual([]);
  });
  it('says a misspelt drop drops nothing, and names the capability meant', () => {
    expect(judged({ drop: ['AL'] })).toEqual([
      'container api: capabilities.drop "AL" is no Linux capability (containerd asks runc for CAP_AL) (did you mean "ALL"?); runc leaves out a capability it does not know, so this entry drops nothing',
    ]);
  });
  it('says a name with its CAP_ prefix grants nothing: containerd writes CAP_CAP_NET_ADMIN', () => {
    expect(judged({ add: ['CAP_NET_ADMIN'] })).toEqual([
      'container api: capabilities.add "CAP_NET_ADMIN" is written with its CAP_ prefix, which containerd writes itself (CAP_CAP_NET_ADMIN) (did you mean "NET_ADMIN"?); runc leaves out a capability it does not know, so this entry grants nothing',
    ]);
  });
  it('counts what a container holds as runc gives it: a CAP_-prefixed add is not the capability', () => {
    expect(capabilitiesOf({ securityContext: { capabilities: { drop: ['ALL'], add: ['CAP_NET_ADMIN', 'sys_time'] } } })).toEqual(
      new Set(['CAP_NET_ADMIN', 'SYS_TIME']),
    );
  });
});

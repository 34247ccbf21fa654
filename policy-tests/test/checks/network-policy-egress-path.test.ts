/**
 * network-policy-egress-path beyond its mutation: the real repository passes (Prowlarr's own address, which it hands
 * to the managers, is not a dial of its own), a rule the gate cannot place a pod in is said not judged, and an
 * address in a workload's own object is judged like one in its app's settings.
 */
import { describe, expect, it } from 'vitest';
import { egressPathCheck } from '../../checks/network-policy/egress-path.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const findings = (r: Repo) => runPolicy(r, [egressPathCheck]).map((f) => [f.severity ?? 'fail', f.message]);

/** The repository with the VPN pod's egress policy's rules replaced. */
function withGluetunEgress(egress: unknown[]): Repo {
  const resources = repo.resources.map((r) =>
    r.kind === 'CiliumNetworkPolicy' && r.name === 'gluetun-egress'
      ? ({ ...r, object: { ...r.object, spec: { ...(r.object.spec as object), egress } } } as Resource)
      : r,
  );
  return { ...repo, resources };
}

describe('network-policy-egress-path', () => {
  it('passes the real repository', () => {
    expect(findings(repo)).toEqual([]);
  });

  it('says a dial is not judged where only a rule by address could allow it', () => {
    const found = findings(withGluetunEgress([{ toCIDR: ['10.244.0.0/16'] }]));
    expect(found.length).toBe(3);
    expect(found[0]).toEqual([
      'not-judged',
      expect.stringMatching(
        /^Deployment gluetun dials http:\/\/sonarr.media.svc:8989 .*: whether its egress policies let it is not known, as CiliumNetworkPolicy gluetun-egress/,
      ),
    ]);
  });

  it("judges an address in a workload's own object", () => {
    const resources = repo.resources.map((r) => {
      if (r.kind !== 'NetworkPolicy' || r.name !== 'media-within') return r;
      return { ...r, object: { ...r.object, spec: { ...(r.object.spec as object), egress: [] } } } as Resource;
    });
    const unpackerr = findings({ ...repo, resources }).filter(([, m]) => m?.startsWith('Deployment unpackerr'));
    const dialled = unpackerr.map(([severity, m]) => `${severity} ${/dials (\S+)/.exec(m ?? '')?.[1]}`);
    expect(dialled.sort((a, b) => a.localeCompare(b)).map((d) => d.split(' '))).toEqual([
      ['fail', 'http://radarr-4k.media.svc:7878'],
      ['fail', 'http://radarr.media.svc:7878'],
      ['fail', 'http://sonarr.media.svc:8989'],
    ]);
    expect(unpackerr[0]?.[1]).toMatch(/let it reach none of them on that port: the connection times out$/);
  });
});

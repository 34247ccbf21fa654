/** The `cni` cluster fact: read strictly, and anything unreadable counts as a CNI that enforces nothing. */
import { describe, expect, it } from 'vitest';
import { KNOWN_CNIS, NO_CNI, POLICY_KINDS, qualifiedKind, readCni } from '../../model/repository/cni.ts';

describe('the cni cluster fact', () => {
  it('reads the name, the policy kinds and DNS-name egress', () => {
    expect(readCni('name: Cilium\nenforces: [networking.k8s.io/NetworkPolicy, cilium.io/CiliumNetworkPolicy]\nfqdnEgress: true\n')).toEqual({
      cni: { name: 'cilium', enforces: ['networking.k8s.io/NetworkPolicy', 'cilium.io/CiliumNetworkPolicy'], fqdnEgress: true },
    });
  });

  it.each([
    ['missing', undefined, /is missing/],
    ['not YAML', 'name: [cilium', /does not parse/],
    ['kinds not a list', 'name: cilium\nenforces: NetworkPolicy\n', /needs name, enforces/],
    ['a kind without its group', 'name: cilium\nenforces: [NetworkPolicy]\n', /group\/Kind/],
    ['fqdnEgress not a boolean', 'name: cilium\nenforces: []\nfqdnEgress: "yes"\n', /fqdnEgress \(true or false\)/],
  ])('says what is wrong when it is %s, and assumes a CNI that enforces nothing', (_what, raw, problem) => {
    const { cni, problem: said } = readCni(raw);
    expect(cni).toEqual(NO_CNI);
    expect(said).toMatch(problem);
  });

  it('knows Flannel enforces no policy, and names every kind a known CNI enforces as a policy kind', () => {
    expect(KNOWN_CNIS.flannel!.enforces).toEqual([]);
    expect(POLICY_KINDS.has('cilium.io/CiliumNetworkPolicy')).toBe(true);
    expect(qualifiedKind('networking.k8s.io/v1', 'NetworkPolicy')).toBe('networking.k8s.io/NetworkPolicy');
    expect(qualifiedKind('v1', 'ConfigMap')).toBe('ConfigMap');
  });
});

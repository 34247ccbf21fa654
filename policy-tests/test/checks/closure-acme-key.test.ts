/**
 * closure-acme-key beyond its mutations (Plex's key on P-521, the API's Ed25519): the key a Certificate asks an ACME
 * CA for is one it signs. cert-manager's defaults (RSA 2048, ECDSA P-256) and Let's Encrypt's other sizes pass; RSA
 * of another size than 2048, 3072 or 4096 bits fails; another public CA asked for such a key is not judged.
 */
import { describe, expect, it } from 'vitest';
import { acmeKeyCheck } from '../../checks/closure/acme.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);

/** The repository with the API's Certificate given `privateKey`, and the ClusterIssuer's ACME server `server` where given. */
function withKey(privateKey: Record<string, unknown>, server?: string): Repo {
  const resources = repo.resources.map((r) => {
    if (r.kind === 'Certificate' && r.name === 'portfolio-tls') {
      const object = structuredClone(r.object) as { spec: Record<string, unknown> };
      object.spec.privateKey = privateKey;
      return { ...r, object } as Resource;
    }
    if (server && r.kind === 'ClusterIssuer' && r.name === 'letsencrypt') {
      const object = structuredClone(r.object) as { spec: { acme: Record<string, unknown> } };
      object.spec.acme.server = server;
      return { ...r, object } as Resource;
    }
    return r;
  });
  return { ...repo, resources };
}
const findings = (r: Repo) => runPolicy(r, [acmeKeyCheck]).map((f) => [f.severity ?? 'fail', f.message]);

describe('closure-acme-key', () => {
  it("passes the real repository, and the keys Let's Encrypt signs", () => {
    expect(findings(repo)).toEqual([]);
    for (const key of [{}, { algorithm: 'RSA' }, { size: 3072 }, { algorithm: 'RSA', size: 4096 }, { algorithm: 'ECDSA' }, { algorithm: 'ECDSA', size: 384 }])
      expect(findings(withKey(key)), JSON.stringify(key)).toEqual([]);
  });

  it('fails RSA of another size, P-521, and Ed25519', () => {
    expect(findings(withKey({ size: 8192 }))).toEqual([
      [
        'fail',
        expect.stringMatching(
          /^Certificate portfolio-tls asks ClusterIssuer letsencrypt for an RSA key of 8192 bits, and Let's Encrypt signs only RSA keys of 2048, 3072 or 4096 bits .*badCSR.*Secret portfolio-tls holds none/,
        ),
      ],
    ]);
    expect(findings(withKey({ algorithm: 'ECDSA', size: 521 }))).toEqual([
      ['fail', expect.stringMatching(/an ECDSA key of 521 bits, and Let's Encrypt signs only ECDSA keys on P-256 or P-384/)],
    ]);
    expect(findings(withKey({ algorithm: 'Ed25519' }))).toEqual([['fail', expect.stringMatching(/an Ed25519 key, which no public CA signs/)]]);
  });

  it("says another CA asked for a key Let's Encrypt does not sign not judged, and holds it to Ed25519 alike", () => {
    const zerossl = 'https://acme.zerossl.com/v2/DV90';
    expect(findings(withKey({ size: 8192 }, zerossl))).toEqual([
      [
        'not-judged',
        expect.stringMatching(/RSA key of 8192 bits, which the CA at https:\/\/acme\.zerossl\.com\/v2\/DV90 may not sign: whether it signs it is not judged/),
      ],
    ]);
    expect(findings(withKey({ algorithm: 'ECDSA' }, zerossl))).toEqual([]);
    expect(findings(withKey({ algorithm: 'Ed25519' }, zerossl))).toEqual([['fail', expect.stringMatching(/Ed25519/)]]);
  });
});

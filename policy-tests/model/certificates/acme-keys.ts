/**
 * The keys a public ACME CA signs. Let's Encrypt's are its CPS's subscriber profile as boulder enforces it (goodkey's
 * LetsEncryptCPS): RSA of exactly 2048, 3072 or 4096 bits, ECDSA on P-256 or P-384; a CSR with any other key is
 * refused at finalize (badCSR: "key size not supported", "unsupported key type"). cert-manager's own validation takes
 * RSA of 2048 to 8192 bits, P-521 and Ed25519, so the Certificate is accepted and its Order fails. No public CA signs
 * Ed25519 (the Baseline Requirements' 6.1.5 allow RSA and ECDSA keys only). Another CA is taken to sign the keys
 * Let's Encrypt signs, the ones every public CA issues for; any other key it is asked for is not judged.
 */
import { dig, obj, str } from '../core/dig.ts';
import type { Path } from '../core/positions.ts';
import type { Resource } from '../core/manifest.ts';

const LETS_ENCRYPT = { server: 'https://acme-v02.api.letsencrypt.org/directory', RSA: [2048, 3072, 4096], ECDSA: [256, 384] } as const;

/**
 * Why the CA behind an ACME directory refuses the key a Certificate asks for (cert-manager's defaults where it says
 * none: RSA of 2048 bits; ECDSA on P-256), with the field that asks for it; `unknown` where another CA is asked for a
 * key Let's Encrypt does not sign; undefined where it signs it.
 */
export function acmeKeyRefusal(cert: Resource, server: string): { path: Path; message: string; unknown?: true } | undefined {
  const key = obj(dig(cert.object, ['spec', 'privateKey']));
  const algorithm = str(key.algorithm) || 'RSA';
  const at = (field: string): Path => (key[field] === undefined ? ['spec', 'privateKey'] : ['spec', 'privateKey', field]);
  if (algorithm === 'Ed25519')
    return { path: at('algorithm'), message: 'an Ed25519 key, which no public CA signs (the Baseline Requirements allow RSA and ECDSA keys only)' };
  // Another algorithm is cert-manager's to refuse (its CRD's enum).
  if (algorithm !== 'RSA' && algorithm !== 'ECDSA') return undefined;
  const size = typeof key.size === 'number' && key.size > 0 ? key.size : LETS_ENCRYPT[algorithm][0];
  if ((LETS_ENCRYPT[algorithm] as readonly number[]).includes(size)) return undefined;
  if (server !== LETS_ENCRYPT.server)
    return { path: at('size'), message: `an ${algorithm} key of ${size} bits, which the CA at ${server} may not sign`, unknown: true };
  const signed = algorithm === 'RSA' ? 'RSA keys of 2048, 3072 or 4096 bits' : 'ECDSA keys on P-256 or P-384';
  return { path: at('size'), message: `an ${algorithm} key of ${size} bits, and Let's Encrypt signs only ${signed} (its CPS, as boulder's goodkey holds it)` };
}

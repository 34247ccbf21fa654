/**
 * media-vpn-sidecars knows what each gluetun release does with DNS_KEEP_NAMESERVER: kept from 3.40.2 to 3.41.1;
 * before 3.40.2 kept only with DNS over TLS off (the VPN loop hangs otherwise); gone after 3.41.1; and a tag that
 * names no version is not judged, and said so.
 */
import { describe, expect, it } from 'vitest';
import { mediaPodChecks } from '../../checks/media/pods.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const check = mediaPodChecks.find((c) => c.id === 'media-vpn-sidecars')!;
const vpn = repo.resources.find((r) => r.kind === 'Deployment' && r.name === 'gluetun')!;

type Container = { name: string; image: string; env: { name: string; value?: string }[] };

/** The real repository with the VPN container's image and extra environment changed. */
function withGluetun(image: string, env: { name: string; value: string }[] = []): Repo {
  const object = structuredClone(vpn.object) as { spec: { template: { spec: { containers: Container[] } } } };
  const gluetun = object.spec.template.spec.containers.find((c) => c.name === 'gluetun')!;
  gluetun.image = image;
  gluetun.env.push(...env);
  return { ...repo, resources: repo.resources.map((r) => (r === vpn ? ({ ...r, object } as Resource) : r)) };
}

const judged = (r: Repo) => runPolicy(r, [check]).map((f) => [f.severity ?? 'error', f.message.replace(/:.*/, '')]);

describe('media-vpn-sidecars: gluetun releases and DNS_KEEP_NAMESERVER', () => {
  it('keeps the cluster resolver from 3.40.2 to 3.41.1', () => {
    for (const tag of ['v3.40.2', 'v3.40.4', 'v3.41.0', 'v3.41.1']) expect(judged(withGluetun(`docker.io/qmcgaw/gluetun:${tag}`))).toEqual([]);
  });

  it('before 3.40.2, only with DNS over TLS off', () => {
    expect(judged(withGluetun('docker.io/qmcgaw/gluetun:v3.40.1'))).toEqual([
      [
        'error',
        'gluetun 3.40.1 with DNS_KEEP_NAMESERVER=on and DNS over TLS on (DOT, on unless off) never reports its DNS loop running, and its VPN loop waits for it once the tunnel is up',
      ],
    ]);
    expect(judged(withGluetun('docker.io/qmcgaw/gluetun:v3.40.1', [{ name: 'DOT', value: 'off' }]))).toEqual([]);
  });

  it('not after 3.41.1, where the option is gone', () => {
    expect(judged(withGluetun('docker.io/qmcgaw/gluetun:v3.41.2'))).toEqual([['error', 'gluetun 3.41.2 has no DNS_KEEP_NAMESERVER (removed after 3.41.1)']]);
  });

  it('does not judge a tag that names no version, and counts it', () => {
    expect(judged(withGluetun('docker.io/qmcgaw/gluetun:latest'))).toEqual([['not-judged', "gluetun's image docker.io/qmcgaw/gluetun"]]);
  });
});

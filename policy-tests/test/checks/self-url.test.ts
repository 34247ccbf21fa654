/**
 * The addresses a program publishes for itself (`selfUrl`), on the real Plex Deployment: each item of its
 * comma-separated customConnections is held to what reaches Plex: a name to the Ingresses that route to its Service,
 * an address to the ones its LoadBalancer Services ask for; an address nothing of the repository gives it (a node's, a
 * router's forward) is said not judged, never passed.
 */
import { describe, expect, it } from 'vitest';
import { imageNeedsCheck } from '../../checks/images/index.ts';
import { runChecks } from '../../model/checks/runner.ts';
import { objects, type Obj } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { traefikProxiesByClass } from '../../model/traefik/proxies.ts';

const repo = await loadRepo(REPO_ROOT);
const plex = repo.resources.find((r) => r.kind === 'Deployment' && r.name === 'plex')!;
const service = repo.resources.find((r) => r.kind === 'Service' && r.name === 'plex')!;

/** The public proxy's listeners as its chart renders them: web on 80, websecure on 443 with TLS. */
const ARGS = ['--entryPoints.web.address=:8000/tcp', '--entryPoints.websecure.address=:8443/tcp', '--entryPoints.websecure.http.tls=true'];
const PORTS = [
  { name: 'web', port: 80, targetPort: 'web' },
  { name: 'websecure', port: 443, targetPort: 'websecure' },
];

/** Plex told to advertise `value`, its Service made a LoadBalancer asking for `address` where given, beside `more` resources. */
function judged(value: string, address?: string, more: Resource[] = renderedProxy(PORTS, ARGS)): string[] {
  const deployment = structuredClone(plex.object) as Obj;
  const container = objects((((deployment.spec as Obj).template as Obj).spec as Obj).containers)[0]!;
  container.env = objects(container.env).map((e) => (e.name === 'PLEX_ADVERTISE_URL' ? { ...e, value } : e));
  const changed = [{ ...plex, object: deployment } as Resource];
  if (address) {
    const object = structuredClone(service.object) as Obj;
    (object.metadata as Obj).annotations = { 'metallb.io/loadBalancerIPs': address };
    (object.spec as Obj).type = 'LoadBalancer';
    changed.push({ ...service, object } as Resource);
  }
  const resources = [...repo.resources.filter((r) => r !== plex && (!address || r !== service)), ...changed, ...more];
  return runChecks({ ...repo, resources }, [imageNeedsCheck])
    .findings.filter((f) => f.message.includes('PLEX_ADVERTISE_URL'))
    .map((f) => `${f.severity ?? 'error'}: ${f.message}`);
}

describe('selfUrl on Plex', () => {
  it('passes the names the Ingresses route to it', () => {
    expect(judged('https://plex.example.net:443')).toEqual([]);
    expect(judged('https://plex.example.net:443,  https://plex.example.net')).toEqual([]);
  });

  it('fails each item of the list whose host no Ingress routes to it, naming the one meant', () => {
    expect(judged('https://plex.example.net:443,https://plex.exmaple.net')).toEqual([
      expect.stringMatching(
        /^error: container plex gives .* PLEX_ADVERTISE_URL with host plex\.exmaple\.net, .*not that host \(did you mean "plex\.example\.net"\?\)/,
      ),
    ]);
  });

  it('holds an address to the LoadBalancer Services of the pod, and says one they do not ask for not judged', () => {
    expect(judged('https://plex.example.net,http://192.168.1.60:32400', '192.168.1.60')).toEqual([]);
    expect(judged('https://plex.example.net,http://192.168.1.60:32400')).toEqual([
      expect.stringMatching(
        /^not-judged: container plex's PLEX_ADVERTISE_URL names host 192\.168\.1\.60, which no LoadBalancer Service of Deployment plex asks for/,
      ),
    ]);
    expect(judged('https://plex.example.net,http://[fd00::60]:32400', 'fd00::60')).toEqual([]);
  });

  it('leaves a value in no form it takes to envFormat', () => {
    expect(judged('plex.example.net:443')).toEqual([
      expect.stringMatching(/^error: container plex sets PLEX_ADVERTISE_URL to "plex\.example\.net:443", but .* takes it only in the form/),
    ]);
  });
});

/** The public proxy as its chart renders it (trimmed to what the rule reads): its LoadBalancer Service's ports, each to an entry point, and the flags its workload runs with. */
function renderedProxy(ports: { name: string; port: number; targetPort: string | number }[], args: string[]): Resource[] {
  const app = traefikProxiesByClass(repo).get('gateway')!.appName;
  const rendered = (kind: string, object: Obj, i: number) =>
    ({
      file: 'apps/platform/ingress-public/application.yaml',
      doc: 0,
      apiVersion: kind === 'Service' ? 'v1' : 'apps/v1',
      kind,
      name: 'traefik-public',
      namespace: 'ingress',
      object: { metadata: { name: 'traefik-public', namespace: 'ingress' }, ...object },
      positions: { at: () => ({ line: 1, col: 1 }) },
      rendered: { id: `${app}#${i}`, app, source: 'chart traefik 41.3.0' },
    }) as unknown as Resource;
  return [
    rendered('Service', { spec: { type: 'LoadBalancer', ports }, kind: 'Service' }, 0),
    rendered(
      'Deployment',
      { kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'traefik', image: 'docker.io/traefik:v3.7.11', args }] } } } },
      1,
    ),
  ];
}

describe("selfUrl's port and scheme, against the proxy that serves the host", () => {
  it('passes https on 443 and http on 80, a port named by its entry point or by the number it listens on', () => {
    expect(judged('https://plex.example.net:443', undefined, renderedProxy(PORTS, ARGS))).toEqual([]);
    expect(judged('http://plex.example.net', undefined, renderedProxy(PORTS, ARGS))).toEqual([]);
    expect(judged('https://plex.example.net', undefined, renderedProxy([{ name: 'websecure', port: 443, targetPort: 8443 }], ARGS))).toEqual([]);
  });

  it('fails a port the proxy does not listen on, and a scheme its entry point does not speak there', () => {
    const listening = /the proxy that serves its host listens at http on 80, https on 443: every client/;
    expect(judged('https://plex.example.net:444', undefined, renderedProxy(PORTS, ARGS))).toEqual([expect.stringMatching(listening)]);
    expect(judged('http://plex.example.net:443', undefined, renderedProxy(PORTS, ARGS))).toEqual([expect.stringMatching(listening)]);
  });

  it('says the port not judged where the proxy is not rendered', () => {
    expect(judged('https://plex.example.net:443', undefined, [])).toEqual([
      expect.stringMatching(/^not-judged: container plex's PLEX_ADVERTISE_URL names https:\/\/plex\.example\.net:443: whether its proxy listens/),
    ]);
  });
});

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
import { withCanary } from '../support/canary.ts';
import { judgedWithGrafana } from '../support/chart-render.ts';
import { dnsEgressCheck } from '../../checks/network-policy/dns-egress.ts';

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

  it("fails a dial a rule by address was to allow: a block, even the pods' own network, selects no pod, nor does a CIDR group", () => {
    const found = findings(withGluetunEgress([{ toCIDR: ['10.244.0.0/16'] }]));
    expect(found.length).toBe(3);
    expect(found[0]).toEqual([
      'fail',
      expect.stringMatching(
        /^Deployment gluetun dials http:\/\/sonarr.media.svc:8989 .*CiliumNetworkPolicy gluetun-egress\) let it reach none of them on that port \(an address block selects no pod: Cilium gives a pod's address its endpoint's identity\): the connection times out$/,
      ),
    ]);
    // A block on another port says nothing of this connection: no word of it in the finding.
    const otherPort = findings(withGluetunEgress([{ toCIDR: ['10.244.0.0/16'], toPorts: [{ ports: [{ port: '6443' }] }] }]));
    expect(otherPort[0]).toEqual(['fail', expect.not.stringMatching(/address block/)]);
    const grouped = findings(withGluetunEgress([{ toCIDRSet: [{ cidrGroupRef: 'pods' }] }]));
    expect(grouped[0]).toEqual(['fail', expect.stringMatching(/let it reach none of them/)]);
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

  it("reads a NetworkPolicy's egress rules as Cilium does, whatever its policyTypes says", () => {
    // The API reads media-within with policyTypes [Ingress] as ingress only; Cilium still enforces its egress rule,
    // which lets the apps call each other past the namespace's default-deny.
    const resources = repo.resources.map((r) =>
      r.kind === 'NetworkPolicy' && r.name === 'media-within'
        ? ({ ...r, object: { ...r.object, spec: { ...(r.object.spec as object), policyTypes: ['Ingress'] } } } as Resource)
        : r,
    );
    expect(findings({ ...repo, resources })).toEqual([]);
  });

  it('judges an address in a ConfigMap the pod mounts or reads variables from, at the key that holds it', () => {
    const configMap = (name: string, data: Record<string, string>) =>
      ({
        ...repo.resources.find((r) => r.kind === 'ConfigMap')!,
        kind: 'ConfigMap',
        apiVersion: 'v1',
        name,
        namespace: 'portfolio',
        object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'portfolio' }, data },
      }) as unknown as Resource;
    const reading = (how: 'volume' | 'envFrom') =>
      repo.resources.map((r) => {
        if (r.kind !== 'Deployment' || r.name !== 'portfolio-api') return r;
        const object = structuredClone(r.object) as { spec: { template: { spec: { volumes?: unknown[]; containers: Record<string, unknown>[] } } } };
        const pod = object.spec.template.spec;
        if (how === 'volume') pod.volumes = [...(pod.volumes ?? []), { name: 'upstream', configMap: { name: 'upstream' } }];
        else pod.containers[0]!.envFrom = [{ configMapRef: { name: 'upstream' } }];
        return { ...r, object } as Resource;
      });
    const upstream = configMap('upstream', { 'upstream.yaml': 'feed: http://sonarr.media.svc:8989/api\n' });
    for (const how of ['volume', 'envFrom'] as const)
      expect(findings({ ...repo, resources: [...reading(how), upstream] })).toEqual([
        ['fail', expect.stringMatching(/^Deployment portfolio-api dials http:\/\/sonarr\.media\.svc:8989 .*let it reach none of them on that port/)],
      ]);
    // Not read by any pod, or only in its metadata: nothing dials it.
    expect(findings({ ...repo, resources: [...repo.resources, upstream] })).toEqual([]);
  });

  it('reaches the pods the operator makes for a Prometheus, behind its Service, on its web port by name', () => {
    const template = repo.resources.find((r) => r.kind === 'Service')!;
    const make = (kind: string, apiVersion: string, name: string, body: Record<string, unknown>) =>
      ({
        ...template,
        kind,
        apiVersion,
        name,
        namespace: 'monitoring',
        object: { apiVersion, kind, metadata: { name, namespace: 'monitoring' }, ...body },
      }) as unknown as Resource;
    const prometheus = make('Prometheus', 'monitoring.coreos.com/v1', 'k8s', { spec: {} });
    const service = make('Service', 'v1', 'prom', { spec: { selector: { prometheus: 'k8s' }, ports: [{ name: 'web', port: 9090, targetPort: 'web' }] } });
    const resources = repo.resources.map((r) => {
      if (r.kind !== 'Deployment' || r.name !== 'portfolio-api') return r;
      const object = structuredClone(r.object) as { spec: { template: { spec: { containers: Record<string, unknown>[] } } } };
      const c = object.spec.template.spec.containers[0]!;
      c.env = [...((c.env as unknown[]) ?? []), { name: 'METRICS_QUERY_URL', value: 'http://prom.monitoring.svc:9090' }];
      return { ...r, object } as Resource;
    });
    expect(findings({ ...repo, resources: [...resources, prometheus, service] })).toEqual([
      [
        'fail',
        expect.stringMatching(
          /^Deployment portfolio-api dials http:\/\/prom\.monitoring\.svc:9090 \(port web of the pods of Prometheus k8s\), and the egress policies/,
        ),
      ],
    ]);
    // Without the operator's pods behind it (no Prometheus), nothing is dialled that the gate can place.
    expect(findings({ ...repo, resources: [...resources, service] })).toEqual([]);
  });

  it("fails a dial whose Service also balances to pods of another workload the caller's egress leaves out, naming that workload", () => {
    const leftOut = withCanary(repo, (r) => {
      if (r.kind !== 'CiliumNetworkPolicy' || r.name !== 'media-egress') return r;
      const object = structuredClone(r.object) as { spec: { egress: { toEndpoints?: Record<string, unknown>[] }[] } };
      const toVpn = object.spec.egress.find((rule) => JSON.stringify(rule.toEndpoints ?? []).includes('media-vpn'))!;
      toVpn.toEndpoints![0]!.matchExpressions = [{ key: 'k8s:track', operator: 'DoesNotExist' }];
      return { ...r, object } as Resource;
    });
    const partly = findings(leftOut);
    expect(partly.length).toBeGreaterThan(0);
    expect(partly).toContainEqual([
      'fail',
      expect.stringMatching(
        /^Deployment radarr dials \S+ .*CiliumNetworkPolicy media-egress\) do not let it reach the pods of Deployment gluetun-canary on that port: the Service balances its connections among its pods, and though others let it through, each one it sends to the pods of Deployment gluetun-canary times out$/,
      ),
    ]);
  });
});

describe('the dial checks and a Grafana datasources sidecar whose selection is not read', () => {
  it('say the addresses in the datasources it loads not judged, each check that reads the dials', async () => {
    const sidecar = {
      name: 'grafana-sc-datasources',
      env: [
        { name: 'LABEL', value: 'grafana_datasource' },
        { name: 'FOLDER', value: '/etc/grafana/provisioning/datasources' },
        { name: 'LABEL_VALUE', valueFrom: { secretKeyRef: { name: 'made-elsewhere', key: 'v' } } },
      ],
    };
    // One run of both: the dials are read once for the view, and each check still says it.
    const { notJudged } = await judgedWithGrafana([egressPathCheck, dnsEgressCheck], sidecar, []);
    expect(
      notJudged.filter((m) => /^the addresses in the datasources Deployment grafana's grafana-sc-datasources loads are not judged: its LABEL_VALUE/.test(m)),
    ).toHaveLength(2);
  });
});

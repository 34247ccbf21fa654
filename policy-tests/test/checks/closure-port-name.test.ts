/**
 * closure-port-name resolves a named port as Kubernetes does: a probe's or a hook's against its own container's
 * ports (a sibling's port is no help), a Service's targetPort against the ports of the selected pods' containers
 * and sidecars (restartable init containers), by name and protocol; a port given by number, and a Service whose
 * pods the gate does not see, are left alone.
 */
import { describe, expect, it } from 'vitest';
import { portNameClosureCheck } from '../../checks/closure/port-names.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const template = repo.resources.find((r) => r.kind === 'Deployment')!;

const resource = (kind: string, name: string, spec: object): Resource =>
  ({ ...template, kind, name, object: { apiVersion: kind === 'Service' ? 'v1' : 'apps/v1', kind, metadata: { name, namespace: 'lab' }, spec } }) as Resource;

const deployment = (name: string, pod: object): Resource =>
  resource('Deployment', name, { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: pod } });

const messages = (extra: Resource[]): string[] =>
  runPolicy({ ...repo, resources: [...repo.resources, ...extra] } as Repo, [portNameClosureCheck]).map((f) => f.message);

describe('closure-port-name', () => {
  it('passes the real repository', () => {
    expect(messages([])).toEqual([]);
  });

  it("holds each probe and hook to its own container's ports, and leaves numbered ports alone", () => {
    const app = deployment('app', {
      containers: [
        {
          name: 'web',
          ports: [{ name: 'http', containerPort: 8080 }],
          livenessProbe: { httpGet: { path: '/', port: 'http' } },
          readinessProbe: { tcpSocket: { port: 'admin' } },
          startupProbe: { httpGet: { path: '/', port: 9090 } },
          lifecycle: { preStop: { httpGet: { path: '/drain', port: 'drain' } } },
        },
        { name: 'sidecar', ports: [{ name: 'admin', containerPort: 9000 }] },
      ],
    });
    expect(messages([app])).toEqual([
      "Deployment app: container web's readinessProbe sends to port admin, which the container does not declare (http): the kubelet fails it every time",
      "Deployment app: container web's preStop hook sends to port drain, which the container does not declare (http): the kubelet fails it every time",
    ]);
  });

  it("finds a Service's named port on a sidecar, by name and protocol, and not on a one-shot init container", () => {
    const pods = deployment('dns', {
      initContainers: [
        { name: 'proxy', restartPolicy: 'Always', ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }] },
        { name: 'setup', ports: [{ name: 'setup', containerPort: 8000 }] },
      ],
      containers: [{ name: 'main', ports: [{ name: 'http', containerPort: 8080 }] }],
    });
    const svc = resource('Service', 'dns', {
      selector: { app: 'dns' },
      ports: [
        { name: 'dns', port: 53, targetPort: 'dns', protocol: 'UDP' },
        { name: 'dns-tcp', port: 53, targetPort: 'dns' },
        { name: 'setup', port: 8000, targetPort: 'setup' },
        { name: 'plain', port: 80, targetPort: 8080 },
        { name: 'typo', port: 81, targetPort: 8081 },
        { name: 'same-number', port: 8080 },
      ],
    });
    const elsewhere = resource('Service', 'operator-made', { selector: { app: 'not-here' }, ports: [{ port: 80, targetPort: 'web' }] });
    expect(messages([pods, svc, elsewhere])).toEqual([
      expect.stringMatching(/^Service dns's port dns-tcp sends to targetPort dns \(TCP\), which no pod it selects declares \(Deployment dns\)/),
      expect.stringMatching(/^Service dns's port setup sends to targetPort setup \(TCP\)/),
      expect.stringMatching(
        /^Service dns's port typo sends to port 8081 \(TCP\), which no pod it selects declares \(Deployment dns\): a mistyped number leads nowhere/,
      ),
    ]);
  });
});

/**
 * workload-port-clash: two containers running together in one pod cannot both bind a port and protocol. A one-shot
 * init container has exited by then; a sidecar (restartable init container) has not. TCP and UDP on one number are
 * two ports.
 */
import { describe, expect, it } from 'vitest';
import { workloadChecks } from '../../checks/workload-hygiene/hygiene.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const check = workloadChecks.find((c) => c.id === 'workload-port-clash')!;
const base = repo.resources.find((r) => r.kind === 'Deployment')!;

const pod = (name: string, spec: object): Resource =>
  ({ ...base, kind: 'Pod', name, namespace: 'lab', object: { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'lab' }, spec } }) as Resource;
const port = (containerPort: number, protocol?: string) => ({ containerPort, ...(protocol ? { protocol } : {}) });

const messages = (extra: Resource[]) => runPolicy({ ...repo, resources: [...repo.resources, ...extra] } as Repo, [check]).map((f) => f.message);

describe('workload-port-clash', () => {
  it('passes the real repository', () => {
    expect(messages([])).toEqual([]);
  });

  it('finds a clash between containers and sidecars, not with a one-shot init container or across protocols', () => {
    const extra = [
      pod('dns', {
        initContainers: [
          { name: 'setup', ports: [port(53)] },
          { name: 'proxy', restartPolicy: 'Always', ports: [port(8080)] },
        ],
        containers: [
          { name: 'server', ports: [port(53), port(53, 'UDP'), port(8080)] },
          { name: 'metrics', ports: [port(9100)] },
        ],
      }),
    ];
    expect(messages(extra)).toEqual(['Pod dns: containers proxy and server both declare port 8080/TCP, in one network namespace: one of them cannot bind it']);
  });
});

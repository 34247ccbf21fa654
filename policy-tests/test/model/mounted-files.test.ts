import { describe, expect, it } from 'vitest';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { mountedFileProblem } from '../../model/cluster/mounted-files.ts';

const repo = await loadRepo(REPO_ROOT);
const resource = (kind: string, name: string, object: Record<string, unknown>) =>
  ({ kind, name, namespace: 'lab', object: { kind, metadata: { name, namespace: 'lab' }, ...object } }) as unknown as Resource;

const written = resource('ExternalSecret', 'conf', { spec: { target: { name: 'conf' }, data: [{ secretKey: 'a.pem' }, { secretKey: 'b.yml' }] } });
const container = {
  volumeMounts: [
    { name: 'whole', mountPath: '/etc/whole' },
    { name: 'items', mountPath: '/etc/items/' },
    { name: 'one', mountPath: '/etc/one.pem', subPath: 'a.pem' },
    { name: 'scratch', mountPath: '/tmp' },
  ],
};
const workload = resource('Deployment', 'app', {
  spec: {
    template: {
      spec: {
        containers: [container],
        volumes: [
          { name: 'whole', secret: { secretName: 'conf' } },
          { name: 'items', secret: { secretName: 'conf', items: [{ key: 'a.pem', path: 'certs/ca.pem' }] } },
          { name: 'one', secret: { secretName: 'conf' } },
          { name: 'scratch', emptyDir: {} },
        ],
      },
    },
  },
});
const problem = (file: string) => mountedFileProblem({ repo, resources: [written, workload] }, workload, container, file);

describe('the file a container reads, as the kubelet puts it there', () => {
  it('finds a key under a whole-volume mount, an item at its path, and a subPath file', () => {
    expect(problem('/etc/whole/a.pem')).toBeUndefined();
    expect(problem('/etc/items/certs/ca.pem')).toBeUndefined();
    expect(problem('/etc/one.pem')).toBeUndefined();
  });

  it('says why a file is not there: a key the Secret lacks, a path no item projects, no mount at all', () => {
    expect(problem('/etc/whole/ca.pem')).toBe('/etc/whole/ca.pem would be key ca.pem of Secret conf, which has only a.pem, b.yml');
    expect(problem('/etc/items/a.pem')).toBe('/etc/items/a.pem is no file the Secret volume items puts at /etc/items/');
    expect(problem('/etc/whole/sub/a.pem')).toMatch(/is no file the Secret volume whole puts/);
    expect(problem('/opt/ca.pem')).toBe('/opt/ca.pem is on no volume the container mounts');
  });

  it('leaves what it cannot know: a volume of another kind, a Secret whose keys are not in the repository', () => {
    expect(problem('/tmp/ca.pem')).toBeUndefined();
    expect(mountedFileProblem({ repo, resources: [workload] }, workload, container, '/etc/whole/ca.pem')).toBeUndefined();
  });
});

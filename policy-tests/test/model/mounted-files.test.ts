import { describe, expect, it } from 'vitest';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { mountedFile, namedPaths } from '../../model/cluster/mounted-files.ts';

const repo = await loadRepo(REPO_ROOT);
const written = {
  kind: 'ExternalSecret',
  name: 'conf',
  namespace: 'lab',
  object: {
    kind: 'ExternalSecret',
    metadata: { name: 'conf', namespace: 'lab' },
    spec: { target: { name: 'conf' }, data: [{ secretKey: 'a.pem' }, { secretKey: 'b.yml' }] },
  },
} as unknown as Resource;
const container = {
  volumeMounts: [
    { name: 'whole', mountPath: '/etc/whole' },
    { name: 'items', mountPath: '/etc/items/' },
    { name: 'one', mountPath: '/etc/one.pem', subPath: 'a.pem' },
    { name: 'scratch', mountPath: '/tmp' },
    { name: 'maybe', mountPath: '/etc/maybe' },
  ],
};
const spec = {
  containers: [container],
  volumes: [
    { name: 'whole', secret: { secretName: 'conf' } },
    { name: 'items', secret: { secretName: 'conf', items: [{ key: 'a.pem', path: 'certs/ca.pem' }] } },
    { name: 'one', secret: { secretName: 'conf' } },
    { name: 'scratch', emptyDir: {} },
    { name: 'maybe', configMap: { name: 'conf', optional: true } },
  ],
};
const source = (file: string, resources: Resource[] = [written]) => mountedFile({ repo, resources }, { spec, namespace: 'lab' }, container, file);

describe('the file a container reads, as the kubelet puts it there', () => {
  it('finds a key under a whole-volume mount, an item at its path, and a subPath file', () => {
    expect(source('/etc/whole/a.pem')).toEqual({ on: 'Secret', name: 'conf' });
    expect(source('/etc/items/certs/ca.pem')).toEqual({ on: 'Secret', name: 'conf' });
    expect(source('/etc/one.pem')).toEqual({ on: 'Secret', name: 'conf' });
    // A program given the volume's folder.
    expect(source('/etc/whole')).toEqual({ on: 'Secret', name: 'conf' });
    expect(source('/etc/items/')).toEqual({ on: 'Secret', name: 'conf' });
  });

  it('says why a file is not there: a key the Secret lacks, a path no item projects, a folder a volume has not', () => {
    expect(source('/etc/whole/ca.pem')).toMatchObject({ problem: '/etc/whole/ca.pem would be key ca.pem of Secret conf, which has only a.pem, b.yml' });
    expect(source('/etc/items/a.pem')).toMatchObject({ problem: '/etc/items/a.pem is no file the Secret volume items puts at /etc/items/' });
    expect(source('/etc/whole/sub/a.pem')).toMatchObject({ problem: expect.stringMatching(/is no file the Secret volume whole puts/) });
  });

  it("tells the image's files and other volumes apart, and leaves a Secret whose keys are not in the repository", () => {
    expect(source('/opt/ca.pem')).toEqual({ on: 'image' });
    expect(source('/tmp/ca.pem')).toEqual({ on: 'volume' });
    // An optional source: the key the file would be, for a caller that knows what writes it at run time.
    expect(source('/etc/maybe/x')).toEqual({ on: 'volume', optional: { kind: 'ConfigMap', name: 'conf', key: 'x' } });
    expect(source('/etc/whole/ca.pem', [])).toEqual({ on: 'Secret', name: 'conf' });
  });

  it('reads the paths a program is given, not the paths inside URLs', () => {
    expect(namedPaths('--config.file=/etc/pve/pve.yml')).toEqual(['/etc/pve/pve.yml']);
    expect(namedPaths('done < /folders/folders.tsv\ncat /a/b,/c')).toEqual(['/folders/folders.tsv', '/a/b', '/c']);
    expect(namedPaths('http://loki.monitoring.svc:3100/loki/api/v1/push')).toEqual([]);
  });
});

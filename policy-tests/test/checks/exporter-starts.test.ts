/** media-exporter-starts on a broken copy of the real repository; what exportarr takes passes (an alias, its flags). */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy } from '../support/helpers.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { appendConfigMap, swap } from '../mutations/edits.ts';
import { exporterStartsMutations, qbittorrentExporterMutations } from '../mutations/exporter-starts.ts';

describeMutations('media-exporter-starts bites on a broken copy of the real repository', exporterStartsMutations);
describeMutations('media-exporter-starts bites on the qBittorrent exporter of a broken copy', qbittorrentExporterMutations);

describe("media-exporter-starts reads an exporter's envFrom sources", () => {
  const SONARR = 'apps/media/sonarr/deployment.yaml';
  /** exportarr's port and address moved into a ConfigMap its envFrom names (or a Secret made outside git). */
  const moved = (source: string, data?: Record<string, string>) => (c: Parameters<ReturnType<typeof swap>>[0]) => {
    swap(
      SONARR,
      '          env:\n            - name: PORT\n              value: "9707"\n            - name: URL\n              value: http://localhost:8989\n',
      `          envFrom:\n            - ${source}:\n                name: exportarr-settings\n          env:\n`,
    )(c);
    if (data) appendConfigMap(SONARR, { name: 'exportarr-settings', namespace: 'media', data })(c);
  };
  it('judges the settings it gives as the env it is: a port the container declares passes, another fails at the envFrom entry', async () => {
    expect(await onBrokenCopy('media-exporter-starts', moved('configMapRef', { PORT: '9707', URL: 'http://localhost:8989' }))).toEqual({
      failed: [],
      warned: [],
      notJudged: [],
    });
    const { failed } = await onBrokenCopy('media-exporter-starts', moved('configMapRef', { PORT: '9708', URL: 'http://localhost:8989' }));
    expect(failed.map((f) => f.message)).toEqual([expect.stringContaining('exportarr listens on 9708, a port the container does not declare (9707)')]);
  });
  it('says not judged where a source whose keys are unknown may set a setting it finds unset', async () => {
    const { failed, notJudged } = await onBrokenCopy('media-exporter-starts', moved('secretRef'));
    expect(failed).toEqual([]);
    // The address it requires, and the port it listens on by default: either may be a key of the Secret.
    expect(notJudged).toEqual([
      expect.stringMatching(/url is required: .*, unless an envFrom source whose keys the repository does not say sets it: not judged$/),
      expect.stringMatching(
        /listens on 8081 \(its default: the port is not set\).*, unless an envFrom source whose keys the repository does not say sets it: not judged$/,
      ),
    ]);
  });
});

describe('media-exporters reads the API key as the kubelet sets it', () => {
  const SONARR = 'apps/media/sonarr/deployment.yaml';
  const keyFrom = (writer: 'ExternalSecret' | 'Secret') => (c: Parameters<ReturnType<typeof swap>>[0]) => {
    swap(
      SONARR,
      '          env:\n            - name: PORT\n              value: "9707"\n            - name: URL\n              value: http://localhost:8989\n            - name: APIKEY\n              valueFrom:\n                secretKeyRef:\n                  name: sonarr-api-key\n                  key: api-key\n',
      '          envFrom:\n            - secretRef:\n                name: sonarr-exporter-env\n          env:\n            - name: PORT\n              value: "9707"\n            - name: URL\n              value: http://localhost:8989\n',
    )(c);
    const written =
      writer === 'ExternalSecret'
        ? 'apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: sonarr-exporter-env\n  namespace: media\nspec:\n  secretStoreRef: {kind: ClusterSecretStore, name: homelab}\n  target: {name: sonarr-exporter-env}\n  data:\n    - secretKey: APIKEY\n      remoteRef: {key: sonarr/api-key}\n'
        : 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: sonarr-exporter-env\n  namespace: media\n';
    c.write(SONARR, `${c.read(SONARR)}---\n${written}`);
  };
  it('takes APIKEY from a Secret its envFrom names when an ExternalSecret writes it, and fails one made outside git', async () => {
    expect((await onBrokenCopy('media-exporters', keyFrom('ExternalSecret'))).failed).toEqual([]);
    expect((await onBrokenCopy('media-exporters', keyFrom('Secret'))).failed.map((f) => f.message)).toEqual([
      "sonarr's exporter must take APIKEY from a Secret written by an ExternalSecret",
    ]);
  });
});

describe('media-exporter-starts passes', () => {
  it("sonarr's alias, and its port and URL given as flags over the env", async () => {
    const flags = swap(
      'apps/media/sonarr/deployment.yaml',
      '          args: ["sonarr"]\n',
      '          args: ["s", "--port", "9707", "-u", "http://127.0.0.1:8989"]\n',
    );
    expect(await onBrokenCopy('media-exporter-starts', flags)).toEqual({ failed: [], warned: [], notJudged: [] });
  });

  it('a flag the kubelet expands from the env, $(APP_URL), read as the URL it becomes (it failed as no URL)', async () => {
    const expanded = (c: Parameters<ReturnType<typeof swap>>[0]) => {
      swap('apps/media/sonarr/deployment.yaml', '          args: ["sonarr"]\n', '          args: ["sonarr", "--url=$(APP_URL)"]\n')(c);
      swap(
        'apps/media/sonarr/deployment.yaml',
        '            - name: PORT\n              value: "9707"\n',
        '            - name: PORT\n              value: "9707"\n            - name: APP_URL\n              value: http://localhost:8989\n',
      )(c);
    };
    expect(await onBrokenCopy('media-exporter-starts', expanded)).toEqual({ failed: [], warned: [], notJudged: [] });
  });
});

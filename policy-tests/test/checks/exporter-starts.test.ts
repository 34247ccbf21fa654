/** media-exporter-starts on a broken copy of the real repository; what exportarr takes passes (an alias, its flags). */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy } from '../support/helpers.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { swap } from '../mutations/edits.ts';
import { exporterStartsMutations, qbittorrentExporterMutations } from '../mutations/exporter-starts.ts';

describeMutations('media-exporter-starts bites on a broken copy of the real repository', exporterStartsMutations);
describeMutations('media-exporter-starts bites on the qBittorrent exporter of a broken copy', qbittorrentExporterMutations);

describe('media-exporter-starts passes', () => {
  it("sonarr's alias, and its port and URL given as flags over the env", async () => {
    const flags = swap(
      'apps/media/sonarr/deployment.yaml',
      '          args: ["sonarr"]\n',
      '          args: ["s", "--port", "9707", "-u", "http://127.0.0.1:8989"]\n',
    );
    expect(await onBrokenCopy('media-exporter-starts', flags)).toEqual({ failed: [], warned: [], notJudged: [] });
  });
});

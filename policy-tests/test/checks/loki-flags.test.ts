/**
 * monitoring-loki-config's reading of Loki's command line on a rendered Loki built here (the chart's ConfigMap and
 * StatefulSet, trimmed to what the rule reads): the chart's own arguments pass; a flag Loki does not register fails on
 * the rendered argument where no values line wrote it; a flag a prefix may make is said not judged; a container the
 * chart gives another command is not read as Loki's.
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { lokiConfigCheck } from '../../checks/monitoring/loki-config.ts';
import { runChecks } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { lokiReference } from '../../model/loki/config.ts';

const repo = await loadRepo(REPO_ROOT);
const version = (lokiReference(repo) as { version: string }).version;
const CHART_ARGS = ['-config.file=/etc/loki/config/config.yaml', '-config.expand-env=true', '-memberlist.advertise-addr=$(POD_IP)', '-target=all'];

const rendered = (kind: string, object: Record<string, unknown>, i: number): Resource =>
  ({
    file: 'monitoring/loki/application.yaml',
    doc: 0,
    apiVersion: kind === 'StatefulSet' ? 'apps/v1' : 'v1',
    kind,
    name: 'loki',
    namespace: 'monitoring',
    object: { apiVersion: kind === 'StatefulSet' ? 'apps/v1' : 'v1', kind, metadata: { name: 'loki', namespace: 'monitoring' }, ...object },
    positions: { at: () => ({ line: 1, col: 1 }) },
    rendered: { id: `loki#${i}`, app: 'loki', source: 'chart loki 18.11.0' },
  }) as Resource;

/** The command-line findings (failed and not judged) for a rendered Loki container given `args` and, if any, `command`. */
function judged(args: string[], command?: string[]) {
  const container = {
    name: 'loki',
    image: `docker.io/grafana/loki:${version}`,
    args,
    ...(command ? { command } : {}),
    volumeMounts: [{ name: 'config', mountPath: '/etc/loki/config' }],
  };
  const volumes = [{ name: 'config', configMap: { name: 'loki' } }];
  const resources = [
    rendered('ConfigMap', { data: { 'config.yaml': stringify({ auth_enabled: false }) } }, 0),
    rendered('StatefulSet', { spec: { template: { spec: { containers: [container], volumes } } } }, 1),
  ];
  const found = runChecks({ ...repo, resources: [...repo.resources, ...resources] }, [lokiConfigCheck]).findings.filter((f) =>
    f.message.startsWith('container loki of StatefulSet loki:'),
  );
  return { failed: found.filter((f) => f.severity === undefined), notJudged: found.filter((f) => f.severity === 'not-judged') };
}

describe("monitoring-loki-config: Loki's command line, rendered", () => {
  it("passes the chart's arguments and known flags with values their types read", () => {
    expect(judged([...CHART_ARGS, '-log.level=debug', '-ingester.max-chunk-age=2h'])).toEqual({ failed: [], notJudged: [] });
  });

  it('fails a misspelt flag on the rendered argument, with the nearest flag', () => {
    const { failed } = judged([...CHART_ARGS, '-log.levle=debug']);
    expect(failed).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(
          /^container loki of StatefulSet loki: flag provided but not defined: -log\.levle \(did you mean "-log\.level"\?\): Loki exits 2 at start/,
        ),
      }),
    ]);
  });

  it("takes the first path of -config.file the container holds where that is the chart's config.yaml, and leaves a missing one to closure-secret-key", () => {
    expect(judged([...CHART_ARGS, '-config.file=/etc/loki/config/loki.yaml, /etc/loki/config/config.yaml'])).toEqual({ failed: [], notJudged: [] });
    expect(judged([...CHART_ARGS, '-config.file=/etc/loki/config/loki.yaml'])).toEqual({ failed: [], notJudged: [] });
  });

  it('says not judged a -config.file Loki reads from its image, and an empty one', () => {
    expect(judged([...CHART_ARGS, '--config.file', '/etc/loki/local-config.yaml']).notJudged).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/reads its configuration from \/etc\/loki\/local-config\.yaml if its image holds it/) }),
    ]);
    expect(judged([...CHART_ARGS, '-config.file=']).notJudged).toEqual([expect.objectContaining({ message: expect.stringMatching(/-config\.file is empty/) })]);
  });

  it('says not judged a flag a prefix may make, and reads nothing of a container given another command', () => {
    expect(judged([...CHART_ARGS, '-s3.buckets=logs']).notJudged).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/ending s3\.buckets under prefixes the gate does not know: not judged/) }),
    ]);
    expect(judged([...CHART_ARGS, '-log.levle=debug'], ['/bin/sh', '-c'])).toEqual({ failed: [], notJudged: [] });
  });
});

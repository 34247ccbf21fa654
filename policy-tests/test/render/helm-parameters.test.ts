/**
 * An Application's Helm parameters as Argo CD hands them to Helm (util/helm/cmd.go at v3.5.1: every comma of a value
 * escaped but a list's, so one parameter is one value) and as Helm's strvals types them: rendered by the pinned Helm,
 * and the values the gate's checks read for them (model/helm/strvals.ts; a file parameter, its file's text) held to
 * what the chart received.
 */
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { schemaLayer } from '../../gate/pipeline.ts';
import { applications } from '../../model/argocd/argocd.ts';
import { inlineValues } from '../../model/helm/inline-values.ts';
import { mergedValues } from '../../model/helm/merged-values.ts';
import { argoSetArgument, helmRefusesName, helmSetValue, strvalsPath } from '../../model/helm/strvals.ts';
import { loadRepo } from '../../model/repository/repo.ts';
import { renderRepo } from '../../render/render.ts';
import { fixtureRepo, repoApp } from '../../../test-support/render-fixtures.ts';

/** Each parameter as an Application writes it: name, value, forceString. */
const PARAMETERS: [string, string | undefined, boolean][] = [
  ['csv', 'a,b', false],
  ['escaped', 'a\\,b', false],
  ['list', '{x,2,true}', false],
  ['strings', '{1,2}', true],
  ['flag', 'False', false],
  ['count', '007', false],
  ['zero', '0', false],
  ['n', '42', false],
  ['negative', '-5', false],
  ['fraction', '1.5', false],
  ['huge', '12345678901234567890', false],
  ['forced', '42', true],
  ['backslash', 'a\\b', false],
  ['empty', '', false],
  ['gone', 'null', false],
  ['nested.key\\.dotted', 'v', false],
  ['items[1]', 'second', false],
  ['who', '$ARGOCD_APP_NAME-$$1', false],
  // No value written: Argo CD's is the empty string.
  ['unset', undefined, false],
];

describe("an Application's Helm parameters", () => {
  it('reach the chart as Argo CD hands them and Helm types them, and the checks read what the chart received', async () => {
    const repo = fixtureRepo();
    try {
      repo.write('apps/web/chart/Chart.yaml', 'apiVersion: v2\nname: web\nversion: 1.0.0\n');
      repo.write(
        'apps/web/chart/templates/cm.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  values: {{ toJson .Values | quote }}\n',
      );
      const parameters = PARAMETERS.map(
        ([name, value, forced]) =>
          `        - name: ${JSON.stringify(name)}${value === undefined ? '' : `\n          value: ${JSON.stringify(value)}`}${forced ? '\n          forceString: true' : ''}`,
      );
      // A file parameter: the file's text, as it is (never typed).
      repo.write('apps/web/chart/files/start.sh', '#!/bin/sh\necho 1,2 true\n');
      const files = '      fileParameters:\n        - name: script\n          path: files/start.sh';
      repo.write('apps/web/application.yaml', repoApp('web', `    path: apps/web/chart\n    helm:\n      parameters:\n${parameters.join('\n')}\n${files}`));
      const loaded = await loadRepo(repo.root);
      const layer = await schemaLayer();
      const [render] = (await renderRepo(loaded, { builtinApiVersions: layer.builtinApiVersions(), env: process.env })).renders;
      expect(render!.status, render!.message).toBe('rendered');
      const received = JSON.parse(String((render!.resources[0]!.object as { data: { values: string } }).data.values)) as unknown;
      expect(received).toEqual({
        csv: 'a,b',
        escaped: 'a,b',
        list: ['x', 2, true],
        strings: ['1', '2'],
        flag: false,
        count: '007',
        zero: 0,
        n: 42,
        negative: -5,
        fraction: '1.5',
        huge: '12345678901234567890',
        forced: '42',
        backslash: 'ab',
        empty: '',
        gone: null,
        nested: { 'key.dotted': 'v' },
        items: [null, 'second'],
        who: 'web-$1',
        unset: '',
        script: '#!/bin/sh\necho 1,2 true\n',
      });
      const [app] = applications(loaded);
      expect(mergedValues(inlineValues(app!, app!.sources[0]!, loaded)).data).toEqual(received);
      // Without the repository to read it from, a file parameter is a placeholder that names it.
      expect(mergedValues(inlineValues(app!, app!.sources[0]!)).data).toMatchObject({ script: '<contents of files/start.sh>' });
    } finally {
      rmSync(repo.root, { recursive: true, force: true });
    }
  });

  it("escape every comma but a list's, as Argo CD does, and read a value Helm would read more from as none", () => {
    expect(argoSetArgument('a,b,c')).toBe('a\\,b\\,c');
    expect(argoSetArgument('a\\,b')).toBe('a\\,b');
    expect(argoSetArgument('{a,b}')).toBe('{a,b}');
    expect(argoSetArgument('{a,b')).toBe('{a\\,b');
    expect(helmSetValue('{a,b', false)).toBeUndefined();
    expect(helmSetValue('{a}x', false)).toBeUndefined();
    expect(helmSetValue('TRUE', false)).toBe(true);
    expect(helmSetValue('TRUE', true)).toBe('TRUE');
  });

  it("leave out a name Helm refuses, past strvals' limits, without building what it names", () => {
    expect(helmRefusesName(strvalsPath('items[65536]'))).toBe(false);
    expect(helmRefusesName(strvalsPath('items[65537]'))).toBe(true);
    expect(helmRefusesName(strvalsPath('items[1000000000]'))).toBe(true);
    expect(helmRefusesName(strvalsPath(Array.from({ length: 31 }, () => 'a').join('.')))).toBe(false);
    expect(helmRefusesName(strvalsPath(Array.from({ length: 32 }, () => 'a').join('.')))).toBe(true);
  });
});

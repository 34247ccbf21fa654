/**
 * Argo CD's tests of the source its repo-server makes of a folder's source parameter files
 * (TestGetAppDetailsWithAppParameterFile on testdata/app-parameters), read as data and judged through the gate's
 * merge (model/argocd/source-parameters.ts): the kustomize images each asserts, or the error it requires.
 */
import { parseErrorLine } from '../../model/core/findings.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sourceParameterFiles } from '../../model/argocd/repo-server.ts';
import { mergeSourceParameters } from '../../model/argocd/source-parameters.ts';
import { walkPaths } from '../../model/repository/directory-source.ts';
import { parseDataFile } from '../../model/repository/repo.ts';

/**
 * The app-details requests on a folder of testdata/app-parameters (TestGetAppDetailsWithAppParameterFile): the
 * source Argo CD makes of the folder's parameter files, for the app the request names, and the kustomize images it
 * asserts, or the error it requires.
 */
export interface ParameterCase {
  test: string;
  /** The folder of testdata/app-parameters the request reads. */
  folder: string;
  /** The Application's name the request carries (its own parameter file), or none. */
  appName?: string;
  /** What the test asserts: an error, or none and the merged source's kustomize images. */
  expect: { error: boolean; images?: string[] };
}

export function parameterCases(test: string, body: string): ParameterCase[] {
  if (!/GetAppDetails\(/.test(body)) return [];
  const folder = /runWithTempTestdata\(t, "([^"]+)"/.exec(body)?.[1];
  if (!folder) return [];
  const appName = /AppName:\s*"([^"]*)"/.exec(body)?.[1];
  const images = /assert\.Equal\(t, \[\]string\{([^}]*)\}, details\.Kustomize\.Images\)/.exec(body)?.[1];
  const expect = /require\.Error\(t, err\)/.test(body)
    ? { error: true }
    : { error: false, ...(images === undefined ? {} : { images: [...images.matchAll(/"([^"]*)"/g)].map((m) => m[1]!) }) };
  return [{ test, folder, expect, ...(appName ? { appName } : {}) }];
}

/** One such case (`dir` is reposerver/repository): the folder's files merged for the app the request names, held to what the test asserts. */
export function judgeParameterCase(dir: string, c: ParameterCase): { ok: boolean; why: string } {
  const appPath = join(dir, 'testdata/app-parameters', c.folder);
  const files = sourceParameterFiles(new Set(walkPaths(appPath, '')), '', c.appName ?? '').map((f) => parseDataFile(f, readFileSync(join(appPath, f), 'utf8')));
  const { source, problems } = mergeSourceParameters({ repoURL: '', path: '.' }, files);
  const failed = files.some((f) => f.errors.length > 0) || problems.some((p) => p.fails);
  const images = (source.kustomize as { images?: string[] } | undefined)?.images ?? [];
  const problem =
    c.expect.error !== failed
      ? c.expect.error
        ? 'Argo CD fails the source; the gate merges it'
        : `Argo CD merges the source; the gate fails it: ${problems.find((p) => p.fails)?.message ?? files.flatMap((f) => f.errors.map((e) => parseErrorLine(f.file, e)))[0]}`
      : c.expect.images && JSON.stringify(c.expect.images) !== JSON.stringify(images)
        ? `images: Argo CD ${c.expect.images.join(', ')}, the gate ${images.join(', ') || '(none)'}`
        : '';
  return { ok: problem === '', why: problem };
}

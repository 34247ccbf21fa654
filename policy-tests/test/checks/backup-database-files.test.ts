/**
 * backup-jobs' database files beyond its mutations, on copies of the real repository (its backup CronJobs are
 * kustomize's, so the gate renders them): a data folder the gate cannot work out, a command line without the option
 * that moves it or a variable from a Secret, is said not judged, never passed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allFindings, runGate } from '../../gate/gate.ts';
import { REPO_ROOT } from '../../model/repository/repo.ts';
import { copyGateOptions, useCopyWith } from '../support/helpers.ts';

const TAUTULLI = 'apps/media/tautulli/deployment.yaml';
const JELLYSEERR = 'apps/media/jellyseerr/deployment.yaml';
const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');

/** What backup-jobs says of a database on a copy: its failures and what it does not judge. */
async function said(root: string): Promise<string[]> {
  const result = await runGate(copyGateOptions(root));
  return [
    ...allFindings(result).filter((f) => f.check === 'backup-jobs'),
    ...result.notJudged.filter((f) => f.check === 'backup-jobs' && f.message.includes('database')).map((f) => ({ ...f, message: `not judged: ${f.message}` })),
  ].map((f) => f.message);
}

describe('backup-jobs: a command line without the option that moves the data folder', () => {
  const copy = useCopyWith(TAUTULLI, read(TAUTULLI).replace('["python", "Tautulli.py", "--datadir", "/config"]', '["python", "Tautulli.py"]'));
  it('is said not judged', async () => {
    expect(await said(copy().root)).toEqual([
      expect.stringMatching(/^not judged: target tautulli: whether container tautulli writes its database at \/config\/tautulli\.db is not judged/),
    ]);
  });
});

describe('backup-jobs: a data folder set from a Secret', () => {
  const copy = useCopyWith(
    JELLYSEERR,
    read(JELLYSEERR).replace(
      '              value: "Europe/Oslo"\n',
      '              value: "Europe/Oslo"\n            - name: CONFIG_DIRECTORY\n              valueFrom:\n                secretKeyRef:\n                  name: jellyseerr-api-key\n                  key: api-key\n',
    ),
  );
  it('is said not judged', async () => {
    expect(await said(copy().root)).toEqual([expect.stringMatching(/^not judged: .*its data folder is set from what the gate does not read/)]);
  });
});

import { describe, expect, it } from 'vitest';
import { ENV_HELP } from '../backup/cli.ts';
import { BACKUP_ENVIRONMENT, ENGINE_ENVIRONMENT } from '../../policy-tests/model/apps/backup-environment.ts';

describe("the gate's reading of the backup image's environment", () => {
  it('names what the commands read, as their help says, for each command a job runs', () => {
    const names = BACKUP_ENVIRONMENT['backup']!.flat();
    const engines = Object.values(ENGINE_ENVIRONMENT).flatMap((byCommand) => Object.values(byCommand));
    for (const name of new Set([...Object.values(BACKUP_ENVIRONMENT), ...engines].flat(2))) expect(ENV_HELP.replace(/\s+/g, ' ')).toContain(name);
    // The off-site copy and the manifest key are what a nightly job cannot run without.
    expect(names).toEqual(expect.arrayContaining(['RESTIC_REPOSITORY', 'RESTIC_PASSWORD', 'BACKUP_MANIFEST_KEY']));
    expect(Object.keys(BACKUP_ENVIRONMENT).sort()).toEqual(['backup', 'backup-check', 'restore-test']);
  });
});

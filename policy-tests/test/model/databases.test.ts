/**
 * The SQLite databases an app writes (`databases`), as the container starts it: the image's data folder, or the one a
 * variable or a command-line option moves it to; what the gate does not read leaves the files not known.
 */
import { describe, expect, it } from 'vitest';
import { databasePaths, DATABASES_FIELD, type Databases } from '../../model/programs/databases.ts';
import type { VariableSetting } from '../../model/cluster/environment.ts';

const variables =
  (set: Record<string, VariableSetting>) =>
  (name: string): VariableSetting | undefined =>
    set[name];

describe('databasePaths', () => {
  const sonarr: Databases = { dir: '/config', files: ['sonarr.db'] };
  const jellyseerr: Databases = { dir: '/app/config', files: ['db/db.sqlite3'], dirEnv: 'CONFIG_DIRECTORY' };
  const tautulli: Databases = { dir: '/config', files: ['tautulli.db'], dirOption: '--datadir' };

  it('gives the files under the image data folder where nothing moves it', () => {
    expect(databasePaths(sonarr, { variable: variables({}) })).toEqual(['/config/sonarr.db']);
    expect(databasePaths(jellyseerr, { variable: variables({}) })).toEqual(['/app/config/db/db.sqlite3']);
    expect(databasePaths(tautulli, { variable: variables({}) })).toEqual(['/config/tautulli.db']);
  });

  it('follows the variable that moves the folder: set, empty (the default, as the program reads a falsy one), or not read', () => {
    expect(databasePaths(jellyseerr, { variable: variables({ CONFIG_DIRECTORY: { value: '/data/' } }) })).toEqual(['/data/db/db.sqlite3']);
    expect(databasePaths(jellyseerr, { variable: variables({ CONFIG_DIRECTORY: { value: '' } }) })).toEqual(['/app/config/db/db.sqlite3']);
    expect(databasePaths(jellyseerr, { variable: variables({ CONFIG_DIRECTORY: 'held' }) })).toBeUndefined();
    expect(databasePaths(jellyseerr, { variable: variables({ CONFIG_DIRECTORY: { value: 'data' } }) })).toBeUndefined();
  });

  it('follows the option on a command line the container gives, in either form, and knows no folder where it is left out', () => {
    const line = (...words: (string | null)[]) => ({ variable: variables({}), words });
    expect(databasePaths(tautulli, line('python', 'Tautulli.py', '--datadir', '/config'))).toEqual(['/config/tautulli.db']);
    expect(databasePaths(tautulli, line('python', 'Tautulli.py', '--datadir=/srv/t'))).toEqual(['/srv/t/tautulli.db']);
    expect(databasePaths(tautulli, line('python', 'Tautulli.py'))).toBeUndefined();
    expect(databasePaths(tautulli, line('python', null, '--datadir', '/config'))).toBeUndefined();
  });

  it('refuses facts that cannot say where the files are', () => {
    const bad = [
      { dir: 'config', files: ['a.db'] },
      { dir: '/config', files: [] },
      { dir: '/config', files: ['/config/a.db'] },
      { dir: '/config', files: ['../a.db'] },
      { dir: '/config', files: ['a.db'], dirEnv: 'A B' },
      { dir: '/config', files: ['a.db'], dirOption: 'datadir' },
      { dir: '/config', files: ['a.db'], dirEnv: 'A', dirOption: '--a' },
    ];
    expect(bad.map((v) => DATABASES_FIELD.valid(v))).toEqual(bad.map(() => false));
    expect([sonarr, jellyseerr, tautulli].every((v) => DATABASES_FIELD.valid(v))).toBe(true);
  });
});

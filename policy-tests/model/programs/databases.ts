/**
 * The SQLite databases an app writes (`databases`): files under its data folder, which is one folder at the image's
 * own start (`dir`), moved by a variable (`dirEnv`: Jellyseerr's CONFIG_DIRECTORY) or by an option of its command
 * line (`dirOption`: Tautulli's --datadir). A backup of another path finds no file there, and takes nothing of the app.
 */
import type { VariableSetting } from '../cluster/environment.ts';

export interface Databases {
  dir: string;
  files: string[];
  dirEnv?: string;
  dirOption?: string;
}

const isRelative = (f: unknown) => typeof f === 'string' && f !== '' && !f.startsWith('/') && !f.split('/').includes('..');

export const DATABASES_FIELD = {
  keys: ['dir', 'files', 'dirEnv', 'dirOption'],
  valid: (v: unknown): boolean => {
    const { dir, files, dirEnv, dirOption } = (v ?? {}) as Record<string, unknown>;
    return (
      typeof dir === 'string' &&
      dir.startsWith('/') &&
      Array.isArray(files) &&
      files.length > 0 &&
      files.every(isRelative) &&
      (dirEnv === undefined || (typeof dirEnv === 'string' && /^\w+$/.test(dirEnv))) &&
      (dirOption === undefined || (typeof dirOption === 'string' && /^--?[\w-]+$/.test(dirOption))) &&
      (dirEnv === undefined || dirOption === undefined)
    );
  },
  says: 'databases is {dir, files, dirEnv? or dirOption?}: the data folder at the image start (absolute), the database files under it (relative), and the variable or the command-line option that moves the folder',
};

/** How a container starts the image: its variables, and its command line (undefined where it gives none: the image's own). */
export interface Started {
  variable: (name: string) => VariableSetting | undefined;
  words?: readonly (string | null)[];
}

/** The value an option is given on a command line (`--datadir X` or `--datadir=X`); undefined where it is not, or a word before it is not read. */
function optionValue(words: readonly (string | null)[], option: string): string | undefined {
  for (const [i, word] of words.entries()) {
    if (word === null) return undefined;
    if (word === option) return words[i + 1] ?? undefined;
    if (word.startsWith(`${option}=`)) return word.slice(option.length + 1);
  }
  return undefined;
}

/** The data folder as the container starts the app; undefined where it is not known (a value not read, a command without the option). */
function dataDir(fact: Databases, started: Started): string | undefined {
  if (fact.dirEnv) {
    const setting = started.variable(fact.dirEnv);
    if (setting === 'held' || setting === 'maybe') return undefined;
    // Unset or empty, the program's own folder (Jellyseerr reads an empty CONFIG_DIRECTORY as unset).
    return setting?.value || fact.dir;
  }
  return fact.dirOption && started.words ? optionValue(started.words, fact.dirOption) : fact.dir;
}

/** The database files the container's app writes, each an absolute path; undefined where its data folder is not known. */
export function databasePaths(fact: Databases, started: Started): string[] | undefined {
  const dir = dataDir(fact, started);
  if (dir === undefined || !dir.startsWith('/')) return undefined;
  return fact.files.map((file) => `${dir.replace(/\/+$/, '')}/${file}`);
}

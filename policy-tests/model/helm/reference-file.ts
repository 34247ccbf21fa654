/**
 * A reference the repository keeps of what a program reads (Loki's and Tempo's structs, gluetun's settings, Alloy's
 * components), written by its `npm run <program>:reference` command: read once per repository, a parse error or the
 * reader's complaint said as the reference's problem, none where the repository keeps no such file.
 */
import { parseErrorLine } from '../core/findings.ts';
import type { DataFile } from '../repository/data-file.ts';
import type { Repo } from '../repository/repo.ts';
import { perRepo } from '../repository/per-repo.ts';

export type ReferenceRead<T> = ({ ok: true; data: DataFile } & T) | { ok: false; data: DataFile; problem: string };

export function referenceFile<T extends object>(file: string, read: (doc: unknown) => T | { problem: string }): (repo: Repo) => ReferenceRead<T> | undefined {
  return perRepo((repo: Repo): ReferenceRead<T> | undefined => {
    const data = repo.dataFiles.get(file);
    if (!data) return undefined;
    if (data.errors[0]) return { ok: false, data, problem: parseErrorLine(data.file, data.errors[0]) };
    const r = read(data.data);
    return 'problem' in r && typeof r.problem === 'string' ? { ok: false, data, problem: r.problem } : { ok: true, data, ...(r as T) };
  });
}

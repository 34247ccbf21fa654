/** Findings inside non-manifest data files (settings, facts), at the key a path names. */
import type { Path } from '../model/positions.ts';
import type { DataFile } from '../model/repo.ts';
import type { CheckContext } from './types.ts';

export function failIn(ctx: CheckContext, file: DataFile, path: Path, message: string): void {
  const { line, col } = file.positions.at(path, 'key');
  ctx.failAt(file.file, line, col, message);
}

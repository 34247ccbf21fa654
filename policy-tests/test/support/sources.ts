/** Source files read from the working tree for the tests that judge the code itself (imports, shared workers). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dirs` whose name matches `pattern`, by path from `root`, never entering a folder named in `skip`. */
export function readSources(root: string, dirs: readonly string[], pattern: RegExp, skip: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!skip.has(entry.name)) walk(rel);
      } else if (pattern.test(entry.name)) out.set(rel, readFileSync(join(root, rel), 'utf8'));
    }
  };
  for (const dir of dirs) walk(dir);
  return out;
}

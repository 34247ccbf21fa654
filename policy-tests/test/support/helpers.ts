/** Test helpers: a throwaway copy of the real repository that a test may break. */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { parseAllDocuments, type Document } from 'yaml';
import { allFindings, runGate, type GateOptions } from '../../gate/gate.ts';
import { formatFinding, type Finding } from '../../model/core/findings.ts';
import { CHART_LOCK_FILE, MANIFEST_ROOTS, REPO_ROOT } from '../../model/repository/repo.ts';

/** How a copy is judged: from its root, as on a machine that never pulled a chart (an empty chart cache under the copy). */
export const copyGateOptions = (root: string): GateOptions => ({ root, cwd: root, env: { ...process.env, HOMELAB_CHART_CACHE: join(root, '.no-charts') } });

export interface RepoCopy {
  root: string;
  /** Edits one YAML document of a file through the yaml Document API (layout and comments survive). */
  edit(file: string, doc: number, change: (d: Document) => void): void;
  write(file: string, text: string): void;
  /** Commits a symlink at `file` holding `target` as written; reset removes it. */
  link(file: string, target: string): void;
  /** Deletes every file under a folder (or one file); reset puts them back. */
  remove(path: string): void;
  read(file: string): string;
  gate(options?: GateOptions): Promise<Finding[]>;
  /** Undoes every write and edit, so one copy can serve many tests. */
  reset(): void;
  /** Deletes the copy. */
  dispose(): void;
}

export function copyRepo(): RepoCopy {
  const root = mkdtempSync(join(tmpdir(), 'gate-repo-'));
  // Original text of every file touched since the last reset (undefined: it did not exist).
  const originals = new Map<string, string | undefined>();
  const remember = (file: string) => {
    if (!originals.has(file)) originals.set(file, existsSync(join(root, file)) ? readFileSync(join(root, file), 'utf8') : undefined);
  };
  // The manifests, and the code a metrics-catalog entry is read from (its pin.code).
  for (const r of [...MANIFEST_ROOTS, 'portfolio-api/src/metrics.ts', CHART_LOCK_FILE]) {
    if (existsSync(join(REPO_ROOT, r))) cpSync(join(REPO_ROOT, r), join(root, r), { recursive: true, filter: (src) => !src.includes('node_modules') });
  }
  return {
    root,
    edit(file, doc, change) {
      remember(file);
      const path = join(root, file);
      const docs = parseAllDocuments(readFileSync(path, 'utf8'));
      if (!Array.isArray(docs) || !docs[doc]) throw new Error(`${file} has no document ${doc}`);
      change(docs[doc]!);
      writeFileSync(
        path,
        docs
          .map((d, i) => {
            const text = d.toString();
            return i === 0 || text.startsWith('---') ? text : `---\n${text}`;
          })
          .join(''),
      );
    },
    write(file, text) {
      remember(file);
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), text);
    },
    link(file, target) {
      if (existsSync(join(root, file))) throw new Error(`${file} exists: a link is only added`);
      originals.set(file, undefined);
      mkdirSync(dirname(join(root, file)), { recursive: true });
      symlinkSync(target, join(root, file));
    },
    remove(path) {
      const full = join(root, path);
      const files = statSync(full).isDirectory()
        ? readdirSync(full, { recursive: true, withFileTypes: true })
            .filter((e) => e.isFile())
            .map((e) => relative(root, join(e.parentPath, e.name)))
        : [path];
      for (const file of files) {
        remember(file);
        rmSync(join(root, file));
      }
    },
    read: (file) => readFileSync(join(root, file), 'utf8'),
    async gate(options = {}) {
      // An empty chart cache unless the test brings one.
      return allFindings(await runGate({ ...copyGateOptions(root), ...options }));
    },
    reset() {
      for (const [file, text] of originals) {
        if (text === undefined) rmSync(join(root, file), { force: true });
        else {
          mkdirSync(dirname(join(root, file)), { recursive: true });
          writeFileSync(join(root, file), text);
        }
      }
      originals.clear();
    },
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** Line (1-based) of the first line of `file` in `copy` containing `needle`. */
/** A copy of the real repository with `file` written as `text`, made before the enclosing describe's tests and removed after. */
export function useCopyWith(file: string, text: string): () => RepoCopy {
  let copy: RepoCopy | undefined;
  beforeAll(() => {
    copy = copyRepo();
    copy.write(file, text);
  });
  afterAll(() => copy?.dispose());
  return () => copy!;
}

export function lineOf(copy: RepoCopy, file: string, needle: string): number {
  // A needle ending in a newline must match a whole (trimmed) line.
  const whole = needle.endsWith('\n') ? needle.trim() : undefined;
  const index = copy
    .read(file)
    .split('\n')
    .findIndex((l) => (whole ? l.trim() === whole : l.includes(needle)));
  if (index === -1) throw new Error(`${needle} not in ${file}`);
  return index + 1;
}

export function describeFindings(findings: readonly Finding[]): string {
  return findings.map(formatFinding).join('\n') || '(no findings)';
}

export function checkIds(findings: readonly Finding[]): string[] {
  return [...new Set(findings.map((f) => f.check))].sort();
}

/** What one check (or a few, judged in one run) makes of a broken copy of the real repository, offline (no chart cache): its failures, warnings and gaps. */
export async function onBrokenCopy(
  check: string | readonly string[],
  breakIt: (copy: RepoCopy) => void,
): Promise<{ failed: Finding[]; warned: string[]; notJudged: string[] }> {
  const checks = typeof check === 'string' ? [check] : check;
  const copy = copyRepo();
  try {
    breakIt(copy);
    const result = await runGate(copyGateOptions(copy.root));
    const mine = <T extends { check: string }>(list: readonly T[]) => list.filter((f) => checks.includes(f.check));
    return {
      failed: mine(allFindings(result)),
      warned: mine(result.warnings).map((f) => f.message),
      notJudged: mine(result.notJudged).map((f) => f.message),
    };
  } finally {
    copy.dispose();
  }
}

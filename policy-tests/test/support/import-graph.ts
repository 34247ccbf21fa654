/**
 * The import graph of the gate and the scripts, read with the TypeScript
 * compiler's pre-processor, and the two rules the layout promises: imports
 * only run down the floors, and no file reaches itself through its imports.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { readSources } from './sources.ts';

/** The one file of the gate that scripts/ and bench/ may import. */
export const FRONT_DOOR = 'policy-tests/index.ts';

/** Floors from the bottom up; a file may import from its own floor or a lower one. */
export const FLOORS = [
  'policy-tests/model',
  'policy-tests/render',
  'policy-tests/schema',
  'policy-tests/admission',
  'policy-tests/checks',
  'policy-tests/gate',
  FRONT_DOOR,
  'scripts',
  'bench',
] as const;

export function floorOf(file: string): number {
  return FLOORS.findIndex((f) => file === f || file.startsWith(`${f}/`));
}

/** Every .ts/.mts file under the floors (tests excluded: they sit beside the floors and may import any of them). */
export function floorSources(root: string): Map<string, string> {
  const files = FLOORS.filter((f) => /\.m?ts$/.test(f));
  const out = readSources(
    root,
    FLOORS.filter((f) => !files.includes(f)),
    /\.m?ts$/,
    new Set(['node_modules', 'test', 'dist']),
  );
  for (const file of files) out.set(file, readFileSync(join(root, file), 'utf8'));
  return out;
}

/** Relative imports of each file, resolved to repository paths. */
export function importGraph(sources: ReadonlyMap<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of sources) {
    const { importedFiles } = ts.preProcessFile(text, true, true);
    graph.set(
      file,
      importedFiles
        .map((i) => i.fileName)
        .filter((name) => name.startsWith('.'))
        .map((name) => normalize(join(dirname(file), name))),
    );
  }
  return graph;
}

export function importProblems(sources: ReadonlyMap<string, string>): string[] {
  const graph = importGraph(sources);
  const problems: string[] = [];
  // Above the front door, the gate is one file: its floors behind it may move without touching a script.
  for (const [file, imports] of graph) {
    if (floorOf(file) <= floorOf(FRONT_DOOR)) continue;
    for (const target of imports) {
      if (target.startsWith('policy-tests/') && target !== FRONT_DOOR)
        problems.push(`${file} imports ${target}; scripts and benchmarks enter the gate through ${FRONT_DOOR}`);
    }
  }
  for (const [file, imports] of graph) {
    const from = floorOf(file);
    for (const target of imports) {
      const to = floorOf(target);
      if (to > from) problems.push(`${file} imports ${target}, a higher floor (${FLOORS[to]} over ${FLOORS[from]})`);
    }
  }
  // Depth-first search with colours: a grey node met again closes a circle.
  const colour = new Map<string, 'grey' | 'black'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    colour.set(file, 'grey');
    stack.push(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (colour.get(target) === 'grey') problems.push(`circle of imports: ${[...stack.slice(stack.indexOf(target)), target].join(' -> ')}`);
      else if (!colour.has(target)) visit(target);
    }
    stack.pop();
    colour.set(file, 'black');
  };
  for (const file of [...graph.keys()].sort()) if (!colour.has(file)) visit(file);
  return problems;
}

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
  // The front door's namespaces (charts, render, docs, facts): faces that name what the floors below offer.
  'policy-tests/front',
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

const CHECKS = 'policy-tests/checks';
const MODEL = 'policy-tests/model';
/** The most modules one room of the model floor holds. */
export const MODEL_ROOM_LIMIT = 15;

/**
 * Checks share only through the floor below: a check module imports no other
 * check module outside its own folder, and the registry reaches a folder only
 * through its index.ts.
 */
function sidewaysProblems(graph: ReadonlyMap<string, string[]>): string[] {
  const problems: string[] = [];
  for (const [file, imports] of graph) {
    if (!file.startsWith(`${CHECKS}/`)) continue;
    for (const target of imports) {
      if (!target.startsWith(`${CHECKS}/`)) continue;
      const folder = dirname(target);
      if (file === `${CHECKS}/registry.ts`) {
        if (folder !== CHECKS && target !== `${folder}/index.ts`)
          problems.push(`${file} imports ${target}; the registry reaches ${folder}/ through its index.ts`);
      } else if (folder === CHECKS || folder !== dirname(file))
        problems.push(`${file} imports ${target}, another check module outside its folder; share through policy-tests/model`);
    }
  }
  return problems;
}

/** The model floor in rooms: every module in a folder, no folder over the limit. */
function roomProblems(files: Iterable<string>): string[] {
  const rooms = new Map<string, number>();
  const problems: string[] = [];
  for (const file of files) {
    if (!file.startsWith(`${MODEL}/`)) continue;
    const room = dirname(file);
    if (room === MODEL) problems.push(`${file} stands on the model floor outside a room; put it in the room that owns it`);
    rooms.set(room, (rooms.get(room) ?? 0) + 1);
  }
  for (const [room, count] of rooms) if (count > MODEL_ROOM_LIMIT) problems.push(`${room} holds ${count} modules, over ${MODEL_ROOM_LIMIT}; split the room`);
  return problems;
}

const ADMISSION = 'policy-tests/admission';
/**
 * The admission layer's addresses: its index.ts, and the conformance harness that measures it against Kubernetes'
 * own tests (a door of its own, so that a run of the gate does not load the harness).
 */
export const ADMISSION_DOORS = new Set([`${ADMISSION}/index.ts`, `${ADMISSION}/upstream/conformance.ts`]);

/** Nothing outside admission/ reaches into its rooms: the layer is judged, measured and changed behind its address. */
function admissionProblems(graph: ReadonlyMap<string, string[]>): string[] {
  const problems: string[] = [];
  for (const [file, imports] of graph) {
    if (file.startsWith(`${ADMISSION}/`)) continue;
    for (const target of imports)
      if (target.startsWith(`${ADMISSION}/`) && !ADMISSION_DOORS.has(target))
        problems.push(`${file} imports ${target}; the admission layer is reached through ${ADMISSION}/index.ts`);
  }
  return problems;
}

export function importProblems(sources: ReadonlyMap<string, string>): string[] {
  const graph = importGraph(sources);
  const problems: string[] = [...sidewaysProblems(graph), ...roomProblems(graph.keys()), ...admissionProblems(graph)];
  // The gate reads the repository as data: it imports no code of the repository outside policy-tests/ (a worker's limits are a data file).
  for (const [file, imports] of graph) {
    if (floorOf(file) >= floorOf(FRONT_DOOR)) continue;
    for (const target of imports)
      if (floorOf(target) === -1 && !target.startsWith('policy-tests/') && /\.m?ts$/.test(target))
        problems.push(`${file} imports ${target}, code outside the gate; read it as data`);
  }
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

/** The most names the front door may export: a namespace counts as one. */
export const FRONT_DOOR_LIMIT = 25;

/** The front door's exported names, a namespace (`export * as x`) as one, with the module each namespace faces. */
export function frontDoorNames(door: string): { names: string[]; namespaces: Map<string, string> } {
  const names = [...door.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((m) =>
    m[1]!
      .split(',')
      .map((s) =>
        s
          .trim()
          .replace(/^type /, '')
          .split(' as ')
          .pop()!
          .trim(),
      )
      .filter(Boolean),
  );
  const namespaces = new Map([...door.matchAll(/export \* as (\w+) from '\.\/([^']+)'/g)].map((m) => [m[1]!, `policy-tests/${m[2]!}`]));
  return { names: [...names, ...namespaces.keys()], namespaces };
}

/** Problems of the front door: over its limit of names. */
export function frontDoorProblems(door: string): string[] {
  const { names } = frontDoorNames(door);
  return names.length > FRONT_DOOR_LIMIT ? [`${FRONT_DOOR} exports ${names.length} names, over ${FRONT_DOOR_LIMIT}; group them in a namespace`] : [];
}

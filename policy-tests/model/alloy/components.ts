/**
 * Which top-level blocks Alloy v1.18.1 takes in a configuration (`internal/runtime/source.go`'s `sourceFromBody` and
 * `internal/component/registry.go`'s `Get`): its config blocks, `declare` and the modules `import.*` brings in, its
 * services' blocks, and the components registered in its source, each at its stability level (a component below
 * the `--stability.level` the chart gives is refused, a community one unless community components are on). The
 * components are the reference the repository keeps (`monitoring/alloy/facts/components.yaml`, written by
 * `npm run alloy:reference`).
 */
import { isMap } from '../core/dig.ts';
import { referenceFile } from '../helm/reference-file.ts';
import type { AlloyStatement } from './parser.ts';
import type { AlloySchemas } from './arguments.ts';

export const ALLOY_REFERENCE = 'monitoring/alloy/facts/components.yaml';

/** featuregate's levels, lowest first (a component at a level below the minimum is refused). */
export const STABILITY_LEVELS = ['experimental', 'public-preview', 'generally-available'] as const;
export type Stability = (typeof STABILITY_LEVELS)[number];

export interface AlloyComponents {
  version: string;
  /** The alloy chart release the reference was read for (its pin). */
  chartVersion: string;
  /**
   * Each component's stability level (a community one's is not checked, and may be absent), the schema of its
   * arguments, and the schema of its exports (`none` where it exports nothing; absent where the reference does not say).
   */
  components: Readonly<Record<string, { stability?: Stability; community?: boolean; arguments?: string; exports?: string }>>;
  services: readonly string[];
  /**
   * The identifiers of Alloy's standard library, in every scope: each a function, or a namespace with the names it
   * holds; and the experimental names. Absent in a reference written before them.
   */
  stdlib?: { identifiers: Readonly<Record<string, readonly string[] | 'function'>>; experimental: readonly string[] };
  /** The structs the components' arguments decode into (model/alloy/arguments.ts); none in a reference written before them. */
  schemas: AlloySchemas;
}

/**
 * A schema field's kind (model/alloy/arguments.ts): an attribute with the type its value decodes into (values.ts), a
 * block, repeated blocks or an enum's block with its schema; a label; an open schema; the type's own code that runs on
 * a decoded value (`(runs)`: its Validate, or its UnmarshalAlloy).
 */
const FIELD_KIND = /^(?:attr(?: required)?(?: (\S+))?|(?:block|blocks|enum)(?: required)? (\S+)|label|open|Validate|UnmarshalAlloy)$/;
const ATTR_TYPE = /^(?:string|number|bool|duration|text(?:\([^()]+\))?|secret|map|any|opaque(?:\([^()]+\))?|list\((.+)\)|object\(([^()]+)\))$/;

/** Whether an attribute's type is one values.ts reads, each struct it names a schema of the reference. */
const attrTypeKnown = (type: string, known: (ref: string) => boolean): boolean => {
  const m = ATTR_TYPE.exec(type);
  return m !== null && (m[1] === undefined || attrTypeKnown(m[1], known)) && (m[2] === undefined || known(m[2]));
};

/** The blocks `sourceFromBody` keeps as configuration, not components. */
const CONFIG_BLOCKS = ['declare', 'logging', 'tracing', 'argument', 'export', 'foreach', 'import.file', 'import.string', 'import.http', 'import.git'];

export function alloyComponentsOf(doc: unknown): AlloyComponents | { problem: string } {
  if (!isMap(doc) || typeof doc.version !== 'string' || !isMap(doc.components) || !Array.isArray(doc.services))
    return { problem: 'it has no version, components and services' };
  for (const [name, c] of Object.entries(doc.components))
    if (!isMap(c) || (c.community !== true && !STABILITY_LEVELS.includes(c.stability as Stability)))
      return { problem: `component ${name} has no stability level Alloy knows` };
  const chartVersion = isMap(doc.pin) && typeof doc.pin.version === 'string' ? doc.pin.version : '';
  const schemas = doc.schemas ?? {};
  if (!isMap(schemas) || !Object.values(schemas).every(isMap)) return { problem: 'schemas is not a map of schemas' };
  const known = (ref: string) => ref === 'opaque' || ref === 'map' || ref in schemas;
  for (const [id, s] of Object.entries(schemas))
    for (const [name, kind] of Object.entries(s as Record<string, unknown>)) {
      const m = typeof kind === 'string' ? FIELD_KIND.exec(kind) : null;
      if (!m || (m[2] !== undefined && !known(m[2])) || (m[1] !== undefined && !attrTypeKnown(m[1], known)))
        return { problem: `schema ${id} gives ${name} the kind ${JSON.stringify(kind)}, which the decoder has no reading of` };
    }
  for (const field of ['arguments', 'exports'] as const) {
    const unknown = Object.entries(doc.components).find(
      ([, c]) => isMap(c) && c[field] !== undefined && (typeof c[field] !== 'string' || !(known(c[field]) || (field === 'exports' && c[field] === 'none'))),
    );
    if (unknown) return { problem: `component ${unknown[0]}'s ${field} name no schema of the reference` };
  }
  const stdlib = stdlibOf(doc.stdlib);
  if (stdlib === null) return { problem: 'stdlib is not a map of identifiers (each a function or a list of names) and a list of experimental names' };
  return {
    version: doc.version,
    chartVersion,
    components: doc.components as AlloyComponents['components'],
    services: doc.services.map(String),
    schemas: schemas as AlloySchemas,
    ...(stdlib ? { stdlib } : {}),
  };
}

/** The reference's standard library: undefined where it has none, null where it is not one. */
function stdlibOf(raw: unknown): AlloyComponents['stdlib'] | null {
  if (raw === undefined) return undefined;
  if (!isMap(raw) || !isMap(raw.identifiers) || !Array.isArray(raw.experimental) || !raw.experimental.every((e) => typeof e === 'string')) return null;
  const identifiers = raw.identifiers as Record<string, unknown>;
  const valid = Object.values(identifiers).every((v) => v === 'function' || (Array.isArray(v) && v.every((n) => typeof n === 'string')));
  return valid ? { identifiers: identifiers as Record<string, readonly string[] | 'function'>, experimental: raw.experimental as string[] } : null;
}

export const alloyComponents = referenceFile(ALLOY_REFERENCE, alloyComponentsOf);

/**
 * Why Alloy refuses each top-level block of a configuration it parsed (an unknown component, one below the minimum
 * stability, a community one while they are off), with the block's line; `declare`d components and those of an
 * imported module are taken as they are (their definitions are not judged here).
 */
export function alloyBlockProblems(
  body: readonly AlloyStatement[],
  ref: AlloyComponents,
  o: { minStability: Stability; community: boolean },
): { line: number; message: string }[] {
  const blocks = body.filter((s) => s.kind === 'block');
  const declared = new Set(blocks.filter((b) => b.name.join('.') === 'declare').map((b) => b.label));
  const imported = new Set(blocks.filter((b) => b.name[0] === 'import').map((b) => b.label));
  const problems: { line: number; message: string }[] = [];
  const seen = new Map<string, number>();
  for (const b of blocks) {
    const name = b.name.join('.');
    // blockAlreadyDefined: a component's id is its name and label; a config or service block's, its name.
    const id = b.label ? `${name}.${b.label}` : name;
    if (seen.has(id)) problems.push({ line: b.line, message: `block ${id} already declared at line ${seen.get(id)!}` });
    else seen.set(id, b.line);
    if (CONFIG_BLOCKS.includes(name) || ref.services.includes(name) || declared.has(b.name[0]!) || imported.has(b.name[0]!)) continue;
    const c = ref.components[name];
    if (!c) problems.push({ line: b.line, message: `cannot find the definition of component name "${name}"` });
    else if (!b.label) problems.push({ line: b.line, message: `component "${name}" must have a label` });
    else if (c.community && !o.community)
      problems.push({
        line: b.line,
        message: `the component "${name}" is a community component. Use the --feature.community-components.enabled command-line flag to enable community components`,
      });
    else if (!c.community && STABILITY_LEVELS.indexOf(c.stability!) < STABILITY_LEVELS.indexOf(o.minStability))
      problems.push({
        line: b.line,
        message: `component "${name}" is at stability level "${c.stability}", which is below the minimum allowed stability level "${o.minStability}". Use --stability.level command-line flag to enable "${c.stability}" features`,
      });
  }
  return problems;
}

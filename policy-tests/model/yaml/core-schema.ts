/**
 * The `yaml` library's YAML 1.2 core schema for plain scalars (node_modules/yaml dist/schema/core: its regular
 * expressions and constructors, copied), and how its `toJS` names a map key. The gate's fast readers (js-yaml's
 * events for manifests, fast-manifest.ts; js-yaml's loader for render output, render/fast-yaml.ts) read a scalar
 * through these, so that what they build is what the `yaml` library builds.
 */

/** A tag of the core schema: its forms in the `yaml` library's order, each a test and how it makes the value. */
export interface CoreTag {
  tag: string;
  forms: readonly (readonly [RegExp, (source: string) => unknown])[];
}

/** node_modules/yaml dist/schema/core/schema.js, in its order (the first whose test matches resolves a plain scalar). */
export const CORE_TAGS: readonly CoreTag[] = [
  { tag: 'tag:yaml.org,2002:null', forms: [[/^(?:~|[Nn]ull|NULL)?$/, () => null]] },
  { tag: 'tag:yaml.org,2002:bool', forms: [[/^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/, (s) => s[0] === 't' || s[0] === 'T']] },
  {
    tag: 'tag:yaml.org,2002:int',
    forms: [
      [/^0o[0-7]+$/, (s) => parseInt(s.substring(2), 8)],
      [/^[-+]?[0-9]+$/, (s) => parseInt(s, 10)],
      [/^0x[0-9a-fA-F]+$/, (s) => parseInt(s.substring(2), 16)],
    ],
  },
  {
    tag: 'tag:yaml.org,2002:float',
    forms: [
      [
        /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
        (s) => (s.slice(-3).toLowerCase() === 'nan' ? NaN : s[0] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY),
      ],
      [/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/, (s) => parseFloat(s)],
      [/^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/, (s) => parseFloat(s)],
    ],
  },
];

const ALL_FORMS = CORE_TAGS.flatMap((t) => t.forms);

/** A plain scalar's value as the core schema resolves it: null, a boolean, a number, or the text itself. */
export function plainValue(source: string): unknown {
  for (const [test, make] of ALL_FORMS) if (test.test(source)) return make(source);
  return source;
}

/** A map key's name in the object `toJS` builds (null as '', a scalar as its String), or undefined for a collection. */
export function keyName(key: unknown): string | undefined {
  return key === null ? '' : typeof key === 'object' ? undefined : String(key as string | number | boolean | bigint);
}

/** What a plain object answers to before it holds anything: `name in map` for a plain map is its own keys and these. */
const INHERITED: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * Sets `name` on a plain object (`{}`) as the `yaml` library's toJS does: a name the object already answers to
 * (`__proto__`, `toString`, or a key it holds) is defined, not assigned.
 */
export function setKey(map: Record<string, unknown>, name: string, value: unknown): void {
  if (Object.hasOwn(map, name) || INHERITED.has(name)) Object.defineProperty(map, name, { value, writable: true, enumerable: true, configurable: true });
  else map[name] = value;
}

/**
 * Render output read fast. A cold render parses every chart's output, about 11 MB with every chart of the lock, and
 * the `yaml` library (which the loader needs for positions, comments and its exact errors) spent two seconds of the
 * main thread on it, a third of the cold render. Output needs no positions: a finding on a rendered object points
 * at the values key or the chart source (output.ts). js-yaml reads the same text seven times faster.
 *
 * It must read it to the same objects, and as Argo CD and Helm read it, with go-yaml v2: YAML 1.1, where a plain yes,
 * off or 0755 is a boolean or an octal (the `yaml` library's documents are set so: model/yaml/yaml11.ts `asYaml11`;
 * js-yaml resolves those scalars first). So js-yaml is given the `yaml` library's own YAML 1.2 core schema (its
 * regular expressions and constructors, node_modules/yaml dist/schema/core, copied in model/yaml/core-schema.ts, which
 * the manifests' fast reader reads by too) and its map keys (null as '', a scalar as its String), and it answers only where the two cannot differ: no alias (`maxAliases: 0`: the
 * `yaml` library's alias limits then apply), no merge key (`<<`), no tag written out but `!!str`, `!!seq`, `!!map`
 * and `!`, no collection as a key, nothing either parser refuses. Anything else returns undefined, and the caller parses the chunk with the
 * `yaml` library as before, which reports it in its own words. fast-yaml.test.ts holds the two equal on every
 * YAML file of the repository and on the corner cases of the schema. A chart's values.yaml, read for its interface
 * (charts.ts), is read the same way: kube-prometheus-stack's alone is five thousand lines.
 */
import { CORE_TAGS, keyName, setKey, type CoreTag } from '../model/yaml/core-schema.ts';
import { yaml11Bool, yaml11Number } from '../model/yaml/yaml11.ts';

/** YAML 1.1's readings, by the core tag they stand in. */
const YAML11_FIRST: Readonly<Record<string, (source: string) => unknown>> = {
  'tag:yaml.org,2002:bool': yaml11Bool,
  'tag:yaml.org,2002:int': yaml11Number,
};

type JsYaml = typeof import('js-yaml');

const never = () => false;

/** The reader, once a render has missed the cache: a run that renders nothing (a warm one) never loads js-yaml. */
let reader: ((text: string, json: boolean) => unknown[]) | undefined;

/** Loads js-yaml and builds the schema, once; until then fastDocuments and fastValue leave everything to the `yaml` library. */
export async function loadFastReader(): Promise<void> {
  reader ??= readerOf(await import('js-yaml'));
}

/** The reader with the `yaml` library's core schema and map keys. */
function readerOf({ defineMappingTag, defineScalarTag, loadAll, NOT_RESOLVED, Schema, seqTag, strTag }: JsYaml) {
  /**
   * A scalar tag of the core schema: its forms in the `yaml` library's order, each a test and how it makes the value.
   * js-yaml keeps one definition per tag name, so a tag's forms (the three ints, the three floats) are one resolver.
   */
  const core = (tagName: string, forms: CoreTag['forms']) => {
    // A plain yes, off, 0755 or 1_000 is what go-yaml v2 makes of it (model/yaml/yaml11.ts), as Argo CD and Helm read
    // output and values with it: tried first in its tag, so no scalar asks one resolver more.
    const yaml11 = YAML11_FIRST[tagName];
    return defineScalarTag(tagName, {
      implicit: true,
      // A tag written out (`!!int "1"`) is left to the `yaml` library: only plain scalars resolve here.
      resolve: (source, isExplicit) => {
        if (isExplicit) return NOT_RESOLVED;
        const eleven = yaml11?.(source);
        if (eleven !== undefined) return eleven;
        const form = forms.find(([test]) => test.test(source));
        return form ? form[1](source) : NOT_RESOLVED;
      },
      identify: never,
    });
  };

  const CORE_SCALARS = CORE_TAGS.map(({ tag, forms }) => core(tag, forms));

  const mapAsYamlMakesIt = defineMappingTag<Record<string, unknown>, Record<string, unknown>>('tag:yaml.org,2002:map', {
    create: () => ({}),
    identify: never,
    addPair: (container, key, value) => {
      const name = keyName(key);
      if (name === undefined) return 'a collection as a key: left to the yaml library';
      setKey(container, name, value);
      return '';
    },
    has: (container, key) => {
      const name = keyName(key);
      return name !== undefined && Object.prototype.hasOwnProperty.call(container, name);
    },
    keys: (container) => Object.keys(container),
    get: (container, key) => container[keyName(key) ?? ''],
  });

  const schema = new Schema([strTag, seqTag, mapAsYamlMakesIt, ...CORE_SCALARS]);
  return (text: string, json: boolean) => loadAll(text, { schema, json, maxAliases: 0 });
}

/**
 * The documents of one chunk of output as plain values (an empty document as null), or undefined where only the
 * `yaml` library may answer: a merge key, an alias, a tag, a collection key, or anything js-yaml refuses.
 */
export function fastDocuments(chunk: string): unknown[] | undefined {
  // json: a repeated key takes the later value, as the yaml library's uniqueKeys: false (output.ts) does.
  return fastLoad(chunk, true)?.map((d) => d ?? null);
}

/**
 * One document's value as the `yaml` library's parse() reads it, a repeated key refused as its uniqueKeys does (a
 * chart's values.yaml and Chart.yaml, charts.ts), or undefined where only that library may answer: as above, or a
 * text of more than one document.
 */
export function fastValue(text: string): { value: unknown } | undefined {
  const docs = fastLoad(text, false);
  return docs && docs.length <= 1 ? { value: docs[0] ?? null } : undefined;
}

function fastLoad(text: string, json: boolean): unknown[] | undefined {
  if (!reader || text.includes('<<')) return undefined;
  try {
    return reader(text, json);
  } catch {
    return undefined;
  }
}

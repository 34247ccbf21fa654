/**
 * An ApplicationSet's `templatePatch`, as Argo CD's controller applies it (applicationset/controllers/template
 * patch.go, v3.5.1): the patch's text rendered with the parameter set like any string of the template, read as YAML
 * (or JSON, where it starts with `{`), and applied to the made Application as a strategic merge patch on the
 * Application's Go type (strategic-merge-patch.ts over application-type.ts): maps merge, a null removes, lists are
 * replaced but ObjectMeta's finalizers (merged, each once), and the directives (`$patch: replace` or `delete`,
 * `$retainKeys`, `$setElementOrder/`, `$deleteFromPrimitiveList/`) do what apimachinery makes them do, a refusal
 * failing the Application in Argo CD's words. The result is decoded into the Go type, which drops a directive a
 * replaced list carried along. The project stays the template's: a patch cannot move an Application to another
 * project. A patch that merges into the Application's status or operation is not judged.
 */
import { isMap, type Obj } from '../core/dig.ts';
import { APPLICATION_PATCH_SCHEMA, dropLeftoverDirectives, UnmodelledField } from './application-type.ts';
import { PatchError, strategicMergePatch } from './strategic-merge-patch.ts';
import { GeneratorError, readYaml11, Unjudged } from './params.ts';

/** A patch's text as Argo CD's ConvertYAMLToJSON reads it: JSON where it starts with `{`, else YAML. */
function patchObject(text: string): Obj {
  let value: unknown;
  try {
    value = text.trim().startsWith('{') ? JSON.parse(text) : readYaml11(text);
  } catch (err) {
    throw new GeneratorError(`error while converting template to json: ${(err as Error).message.split('\n')[0]}`);
  }
  if (value === null || value === undefined) return {};
  if (!isMap(value))
    throw new GeneratorError(`invalid templatePatch: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type Application`);
  return value;
}

/** The fields json.Marshal writes of every Application, set or not: where the patch finds them, it merges into them. */
const ALWAYS_WRITTEN: readonly (readonly [string, string, unknown])[] = [
  ['spec', 'destination', {}],
  ['spec', 'project', ''],
];

function asMarshalled(app: Obj): Obj {
  const out: Obj = { ...app, metadata: isMap(app.metadata) ? app.metadata : {}, spec: isMap(app.spec) ? { ...app.spec } : {} };
  for (const [at, field, zero] of ALWAYS_WRITTEN) if ((out[at] as Obj)[field] === undefined) (out[at] as Obj)[field] = zero;
  return out;
}

/** What asMarshalled added and the patch left as it was, taken out again: the gate's Application says only what was set. */
function withoutAdded(app: Obj, patched: Obj): Obj {
  const spec = isMap(patched.spec) ? { ...patched.spec } : undefined;
  for (const [, field, zero] of ALWAYS_WRITTEN) {
    const before = isMap(app.spec) ? app.spec[field] : undefined;
    if (spec && before === undefined && JSON.stringify(spec[field]) === JSON.stringify(zero)) delete spec[field];
  }
  return spec ? { ...patched, spec } : patched;
}

/** The Application `app` with the rendered patch `text` applied. */
export function applyTemplatePatch(app: Obj, text: string): Obj {
  const patch = patchObject(text);
  let patched: Obj;
  try {
    patched = strategicMergePatch(asMarshalled(app), patch, APPLICATION_PATCH_SCHEMA);
  } catch (err) {
    if (err instanceof UnmodelledField) throw new Unjudged(`its templatePatch is ${err.message}, which the gate does not model`);
    if (!(err instanceof PatchError)) throw err;
    throw new GeneratorError(`error while applying templatePatch template to json ${JSON.stringify(JSON.stringify(sortedKeys(patch)))}: ${err.message}`);
  }
  const out = withoutAdded(app, dropLeftoverDirectives(patched) as Obj);
  // The project is the template's, whatever the patch says.
  const project = isMap(app.spec) ? app.spec.project : undefined;
  if (isMap(out.spec))
    out.spec = project === undefined ? Object.fromEntries(Object.entries(out.spec).filter(([k]) => k !== 'project')) : { ...out.spec, project };
  return out;
}

/** A value with its maps' keys in byte order, as Go marshals a map. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isMap(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((k) => [k, sortedKeys(value[k])]),
  );
}

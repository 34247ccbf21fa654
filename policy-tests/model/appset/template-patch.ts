/**
 * An ApplicationSet's `templatePatch`, as Argo CD's controller applies it (applicationset/controllers/template
 * patch.go, v3.5.1): the patch's text rendered with the parameter set like any string of the template, read as YAML
 * (or JSON, where it starts with `{`), and applied to the made Application as a strategic merge patch on the
 * Application's Go type, whose only merged list is `metadata.finalizers` (ObjectMeta's patchStrategy); maps merge, a
 * null removes, any other list or value replaces. The project stays the template's: a patch cannot move an
 * Application to another project. A patch directive (`$patch`, `$retainKeys`, ...) is not replayed: not judged.
 */
import { isMap, type Obj } from '../core/dig.ts';
import { mergePatch } from '../argocd/source-parameters.ts';
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

function directive(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.map(directive).find((d) => d !== undefined);
  if (!isMap(value)) return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (k.startsWith('$')) return k;
    const inner = directive(v);
    if (inner) return inner;
  }
  return undefined;
}

/** The Application `app` with the rendered patch `text` applied. */
export function applyTemplatePatch(app: Obj, text: string): Obj {
  const patch = patchObject(text);
  const found = directive(patch);
  if (found) throw new Unjudged(`its templatePatch holds the patch directive ${found}, which is not replayed here`);
  const out = mergePatch(app, patch);
  // ObjectMeta's finalizers merge (patchStrategy merge): the patch's are added to the app's, each once.
  const before = isMap(app.metadata) && Array.isArray(app.metadata.finalizers) ? app.metadata.finalizers : [];
  const added = isMap(patch.metadata) && Array.isArray(patch.metadata.finalizers) ? patch.metadata.finalizers : undefined;
  if (added && isMap(out.metadata)) out.metadata = { ...out.metadata, finalizers: [...new Set([...before, ...added])] };
  // The project is the template's, whatever the patch says.
  const project = isMap(app.spec) ? app.spec.project : undefined;
  if (isMap(out.spec))
    out.spec = project === undefined ? Object.fromEntries(Object.entries(out.spec).filter(([k]) => k !== 'project')) : { ...out.spec, project };
  return out;
}

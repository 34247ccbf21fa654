/**
 * How an ApplicationSet's strings are rendered with a parameter set (Argo CD's Render.Replace): fasttemplate here,
 * or Go's text/template and sprig by the engine the caller hands in (the render tier's, Helm's). Strings go to the
 * engine in batches, after model/appset/template.ts has said where Helm's engine and Argo CD's would part.
 */
import type { Obj } from '../core/dig.ts';
import { GeneratorError, Unjudged, type Params } from './params.ts';

export { GeneratorError, Unjudged };
import { fastReplace, goTemplateVerdict, renderTemplate, templatedStrings } from './template.ts';

/** One string for Go's engine to render with one parameter set. */
export interface GoTemplateJob {
  template: string;
  params: Params;
}

/** Renders each job with Go's text/template and sprig; throws the engine's error (Argo CD fails the ApplicationSet with it). */
export type GoTemplateEngine = (jobs: readonly GoTemplateJob[]) => Promise<string[]>;

/** An ApplicationSet's templating: goTemplate or fasttemplate, Go's options, and the engine (none under --no-render). */
export interface TemplateMode {
  goTemplate: boolean;
  options: readonly string[];
  engine: GoTemplateEngine | undefined;
}

/** Each job's text, fasttemplate here or Go's engine, after what the two engines would part on is said. */
export async function renderStrings(mode: TemplateMode, jobs: readonly GoTemplateJob[]): Promise<string[]> {
  if (!mode.goTemplate) {
    try {
      return jobs.map((j) => fastReplace(j.template, j.params));
    } catch (err) {
      throw new GeneratorError((err as Error).message);
    }
  }
  for (const job of jobs) {
    if (!job.template.includes('{{')) continue;
    const verdict = goTemplateVerdict(job.template, job.params, mode.options);
    if (verdict.fails) throw new GeneratorError(verdict.fails);
    if (verdict.unjudged) throw new Unjudged(verdict.unjudged);
  }
  const asked = jobs.filter((j) => j.template.includes('{{'));
  if (asked.length > 0 && !mode.engine) throw new Unjudged('its goTemplate needs Helm, which --no-render does not run');
  let texts: string[] = [];
  try {
    if (asked.length > 0) texts = await mode.engine!(asked);
  } catch (err) {
    // The gate's own failure (a limit met, the engine missing) says nothing of Argo CD's: not judged. Anything else is the template's.
    if ((err as { gate?: boolean }).gate) throw new Unjudged((err as Error).message);
    throw new GeneratorError((err as Error).message);
  }
  let next = 0;
  return jobs.map((j) => (j.template.includes('{{') ? texts[next++]! : j.template));
}

/**
 * `object` rendered with each parameter set (deeplyReplace): every string and map key put through the engine, the
 * strings of all sets in one batch. An empty set leaves the object as it is (RenderTemplateParams returns early).
 */
export async function renderObjects(mode: TemplateMode, object: unknown, sets: readonly Params[]): Promise<unknown[]> {
  const strings = [...templatedStrings(object)];
  const live = sets.map((p) => Object.keys(p).length > 0);
  const texts = await renderStrings(
    mode,
    sets.flatMap((params, i) => (live[i] ? strings.map((template) => ({ template, params })) : [])),
  );
  let at = 0;
  return sets.map((_, i) => {
    if (!live[i]) return object;
    const table = new Map(strings.map((t, j) => [t, texts[at + j]!]));
    at += strings.length;
    return renderTemplate(object, (t) => table.get(t)!);
  });
}

/** `values` rendered with each set and added to it (appendTemplatedValues): `values.<key>` flat, or a `values` map with goTemplate. */
export async function withValues(mode: TemplateMode, sets: readonly Params[], values: Obj): Promise<Params[]> {
  const entries = Object.entries(values).map(([k, v]) => [k, typeof v === 'string' ? v : String(v)] as const);
  if (entries.length === 0) return [...sets];
  const texts = await renderStrings(
    mode,
    sets.flatMap((params) => entries.map(([, template]) => ({ template, params }))),
  );
  return sets.map((p, i) => {
    const own = entries.map(([k], j) => [k, texts[i * entries.length + j]!] as const);
    return mode.goTemplate ? { ...p, values: Object.fromEntries(own) } : { ...p, ...Object.fromEntries(own.map(([k, v]) => [`values.${k}`, v])) };
  });
}

/**
 * The Applications Argo CD's ApplicationSet controller makes from each ApplicationSet the repository applies
 * (applicationset/controllers/template GenerateApplications, v3.5.1), put into the repository as Applications it
 * declares, so that everything the gate judges an Application by, and renders it with, judges them too. An
 * ApplicationSet the gate cannot expand as Argo CD would is left out and said: its outcome is read by
 * `argocd-applied-files` (model/appset/outcomes.ts) and by the rendered diff, never taken as fine.
 */
import type { Resource } from '../core/manifest.ts';
import type { PathSegment } from '../core/positions.ts';
import { isMap, obj, type Obj } from '../core/dig.ts';
import { selectorMatches } from '../core/label-selector.ts';
import type { Repo } from '../repository/repo.ts';
import { applications, isThisRepo, namespaceOrDestination, owningApplication, ROOT_APP_FILE } from '../argocd/argocd.ts';
import { flatten, gitDirectoryParams, gitFileParams, goPrint, GeneratorError, listParams, type GitItem, type Params } from './params.ts';
import { fastReplace, goTemplateVerdict, renderTemplate, templatedStrings } from './template.ts';
import { recordOutcome, type SetOutcome } from './outcomes.ts';

/** One string for Go's engine to render with one parameter set. */
export interface GoTemplateJob {
  template: string;
  params: Params;
}

/** Renders each job with Go's text/template and sprig; throws the engine's error (Argo CD fails the ApplicationSet with it). */
export type GoTemplateEngine = (jobs: readonly GoTemplateJob[]) => Promise<string[]>;

const RESOURCES_FINALIZER = 'resources-finalizer.argocd.argoproj.io';

/** The generators evaluated here; any other (clusters, pull requests, SCM providers, plugins, matrix, merge) is not. */
const EVALUATED = new Set(['list', 'git']);

class Unjudged extends Error {}

export const isApplicationSet = (r: Resource): boolean => r.kind === 'ApplicationSet' && r.apiVersion === 'argoproj.io/v1alpha1';

/**
 * The repository with every Application its ApplicationSets make. `engine` renders `goTemplate` strings; without
 * one (--no-render), an ApplicationSet that needs it is not judged.
 */
export async function expandApplicationSets(repo: Repo, engine: GoTemplateEngine | undefined): Promise<Repo> {
  const sets = repo.resources.filter(isApplicationSet);
  if (sets.length === 0) return repo;
  const made: Resource[][] = [];
  for (const set of sets) {
    const outcome = await expandOne(repo, set, engine);
    recordOutcome(repo.root, set, outcome);
    made.push(outcome.apps);
  }
  const groups = sets.flatMap((set, i) =>
    made[i]!.length === 0 ? [] : [{ file: set.file, resources: made[i]!, findings: [], text: '', renderedBy: made[i]![0]!.rendered!.app }],
  );
  return { ...repo, parsed: [...repo.parsed, ...groups], resources: [...repo.resources, ...groups.flatMap((g) => g.resources)] };
}

async function expandOne(repo: Repo, set: Resource, engine: GoTemplateEngine | undefined): Promise<SetOutcome> {
  const reads: string[] = [];
  try {
    const apps = await applicationsOf(repo, set, engine, reads);
    return { apps, reads };
  } catch (err) {
    if (err instanceof Unjudged) return { apps: [], reads, unjudged: err.message };
    return { apps: [], reads, fails: (err as Error).message };
  }
}

/** One ApplicationSet's expansion: the repository, its spec as read, the Go engine, and the files its generators read. */
interface Run {
  repo: Repo;
  s: SetSpec;
  engine: GoTemplateEngine | undefined;
  reads: string[];
}

interface SetSpec {
  goTemplate: boolean;
  options: string[];
  template: Obj;
  preserve: boolean;
}

async function applicationsOf(repo: Repo, set: Resource, engine: GoTemplateEngine | undefined, reads: string[]): Promise<Resource[]> {
  const spec = obj(set.object.spec);
  const home = applications(repo).find((a) => a.resource.file === ROOT_APP_FILE)?.resource.namespace ?? 'argocd';
  const namespace = namespaceOrDestination(repo, set);
  if (namespace !== home)
    throw new Unjudged(`it lives in namespace ${namespace ?? '(none)'}, not Argo CD's (${home}), where the controller may or may not read it`);
  if (spec.templatePatch !== undefined) throw new Unjudged('its templatePatch is not applied here');
  if (spec.goTemplate === true && !engine) throw new Unjudged('its goTemplate needs Helm, which --no-render does not run');
  const s: SetSpec = {
    goTemplate: spec.goTemplate === true,
    options: Array.isArray(spec.goTemplateOptions) ? spec.goTemplateOptions.map(String) : [],
    template: obj(spec.template),
    preserve: obj(spec.syncPolicy).preserveResourcesOnDeletion === true,
  };
  const generators = Array.isArray(spec.generators) ? spec.generators : [];
  const sets: Params[] = [];
  const run: Run = { repo, s, engine, reads };
  for (const [i, generator] of generators.entries()) sets.push(...(await generatorParams(run, obj(generator), i)));
  const rendered = await renderAll(s, sets, engine);
  const owner = owningApplication(repo, set)?.name ?? '';
  return rendered.map((object, i) => generated(set, object, i, { owner, namespace }));
}

async function generatorParams(run: Run, generator: Obj, index: number): Promise<Params[]> {
  const kinds = Object.keys(generator).filter((k) => k !== 'selector');
  const kind = kinds[0];
  if (kinds.length !== 1 || !EVALUATED.has(kind!))
    throw new Unjudged(`generator ${index} (${kinds.join(', ') || 'empty'}) is not evaluated here: only list and git generators are`);
  const body = obj(generator[kind!]);
  if (Object.keys(obj(body.template)).length > 0) throw new Unjudged(`generator ${index} carries a template of its own, which is not merged here`);
  let params: Params[];
  if (kind === 'list') params = listParams(body, run.s.goTemplate);
  else params = await gitParams(run, body);
  // A selector keeps the sets whose flattened parameters it matches (generator_spec_processor.go Transform).
  if (!isMap(generator.selector)) return params;
  const selector = generator.selector;
  return params.filter((p) => selectorMatches(selector, Object.fromEntries(Object.entries(flatten(p)).map(([k, v]) => [k, goPrint(v)]))));
}

async function gitParams({ repo, s, engine, reads }: Run, git: Obj): Promise<Params[]> {
  const repoURL = typeof git.repoURL === 'string' ? git.repoURL : '';
  if (!isThisRepo(repo, { repoURL } as never)) throw new Unjudged(`its git generator reads ${repoURL || 'no repository'}, not this one`);
  const revision = typeof git.revision === 'string' ? git.revision : '';
  const branch = repo.facts?.revision;
  if (revision !== branch && revision !== 'HEAD')
    throw new Unjudged(`its git generator reads revision ${revision || '(none)'}, not ${branch}, which the gate judges`);
  const items = (key: string): GitItem[] =>
    (Array.isArray(git[key]) ? git[key] : []).map((i: unknown) => ({
      path: typeof obj(i).path === 'string' ? (obj(i).path as string) : '',
      exclude: obj(i).exclude === true,
    }));
  const prefix = typeof git.pathParamPrefix === 'string' ? git.pathParamPrefix : '';
  let params: Params[];
  if (items('directories').length > 0) params = gitDirectoryParams(repo, items('directories'), s.goTemplate, prefix);
  else if (items('files').length > 0) {
    const found = gitFileParams(repo, items('files'), s.goTemplate, prefix);
    reads.push(...found.files);
    params = found.params;
  } else throw new GeneratorError('ApplicationSet is empty');
  const values = Object.entries(obj(git.values)).map(([k, v]) => [k, String(v)] as const);
  if (values.length === 0) return params;
  // Each value rendered with its set's parameters, then added as values.<key> (appendTemplatedValues).
  const texts = await renderStrings(
    s,
    params.flatMap((p) => values.map(([, v]) => ({ template: v, params: p }))),
    engine,
  );
  return params.map((p, i) => {
    const own = values.map(([k], j) => [k, texts[i * values.length + j]!] as const);
    return s.goTemplate ? { ...p, values: Object.fromEntries(own) } : { ...p, ...Object.fromEntries(own.map(([k, v]) => [`values.${k}`, v])) };
  });
}

/** Each job's text, fasttemplate here or Go's engine in the render tier, after what the two engines would part on is said. */
async function renderStrings(s: SetSpec, jobs: { template: string; params: Params }[], engine: GoTemplateEngine | undefined): Promise<string[]> {
  if (!s.goTemplate) return jobs.map((j) => fastReplace(j.template, j.params));
  for (const job of jobs) {
    if (!job.template.includes('{{')) continue;
    const verdict = goTemplateVerdict(job.template, job.params, s.options);
    if (verdict.fails) throw new GeneratorError(verdict.fails);
    if (verdict.unjudged) throw new Unjudged(verdict.unjudged);
  }
  const asked = jobs.filter((j) => j.template.includes('{{'));
  const texts = asked.length > 0 ? await engine!(asked) : [];
  let next = 0;
  return jobs.map((j) => (j.template.includes('{{') ? texts[next++]! : j.template));
}

/** The template rendered with each parameter set, as the Application objects Argo CD's controller creates. */
async function renderAll(s: SetSpec, sets: readonly Params[], engine: GoTemplateEngine | undefined): Promise<Obj[]> {
  const strings = [...templatedStrings(s.template)];
  const texts = await renderStrings(
    s,
    sets.flatMap((params) => strings.map((template) => ({ template, params }))),
    engine,
  );
  return sets.map((_, i) => {
    const table = new Map(strings.map((t, j) => [t, texts[i * strings.length + j]!]));
    const out = renderTemplate(s.template, (t) => table.get(t)!) as Obj;
    const metadata = obj(out.metadata);
    const finalizers =
      Array.isArray(metadata.finalizers) && metadata.finalizers.length > 0 ? metadata.finalizers : s.preserve ? undefined : [RESOURCES_FINALIZER];
    return { metadata: { ...metadata, ...(finalizers ? { finalizers } : {}) }, spec: out.spec ?? {} };
  });
}

/** Where a path of a made Application sits in the ApplicationSet: under its template. */
function templatePath(path: readonly PathSegment[]): PathSegment[] {
  if (path[0] === 'apiVersion' || path[0] === 'kind') return [...path];
  return ['spec', 'template', ...path];
}

/** A made Application, as a resource of the ApplicationSet's file that the app applying the file rendered. */
function generated(set: Resource, made: Obj, index: number, { owner, namespace }: { owner: string; namespace: string }): Resource {
  const metadata = obj(made.metadata);
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  const object = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    // The ApplicationSet's namespace, whatever the template says (the appsets-in-any-namespace boundary).
    metadata: { ...metadata, name, namespace },
    spec: made.spec,
  };
  return {
    file: set.file,
    doc: set.doc,
    ...(set.item === undefined ? {} : { item: set.item }),
    apiVersion: object.apiVersion,
    kind: object.kind,
    name,
    namespace,
    object,
    positions: { at: (path, target) => set.positions.at(templatePath(path), target) },
    rendered: { id: `ApplicationSet/${set.name}#${index}`, app: owner, source: `ApplicationSet ${set.name}` },
  };
}

/**
 * An ApplicationSet's generators evaluated as Argo CD's controller evaluates them (applicationset/generators,
 * v3.5.1): list, git (this repository, at the branch the gate judges), and a matrix or a merge of those. A matrix's
 * second generator is rendered with each of the first's parameter sets first (InterpolateGenerator). A selector keeps
 * the sets whose flattened parameters it matches. Other generators (clusters, pull requests, SCM providers, plugins,
 * cluster decision resources) are not evaluated here: the ApplicationSet is not judged.
 */
import { isMap, obj, type Obj } from '../core/dig.ts';
import { selectorMatches } from '../core/label-selector.ts';
import { goFilepathMatch } from '../core/glob.ts';
import { IN_CLUSTER_NAME, IN_CLUSTER_SERVER, isThisRepoURL } from '../argocd/argocd.ts';
import { clusterSecrets, clusterSecretWriters } from '../argocd/clusters.ts';
import { cmdParamsSwitch, HIDDEN_DIRECTORIES_KEY } from '../argocd/refusals.ts';
import { secretValue } from '../core/secrets.ts';
import type { Repo } from '../repository/repo.ts';
import {
  checkoutDirectories,
  GIT_FOLDERS,
  directoryParams,
  fileParams,
  flatten,
  gitFiles,
  listParams,
  matchedDirectories,
  readCheckoutFile,
  sanitizeName,
  type GitItem,
  type Params,
} from './params.ts';
import { goPrint } from '../go/fmt.ts';
import { GeneratorError, renderObjects, renderStrings, Unjudged, withValues, type TemplateMode } from './renderer.ts';

/** One ApplicationSet's evaluation: the repository, its templating, and the files its git generators read. */
export interface Run {
  repo: Repo;
  mode: TemplateMode;
  reads: string[];
}

const KINDS = ['list', 'git', 'clusters', 'matrix', 'merge'];

/**
 * The most parameter sets one generator may make here: a pull request's matrix of two lists of a thousand would make
 * a million Applications for the gate to render (Argo CD would make them too, and the cluster hold them).
 */
export const MAX_PARAMETER_SETS = 1000;

function bounded(sets: Params[], where: string): Params[] {
  if (sets.length > MAX_PARAMETER_SETS)
    throw new Unjudged(`${where} makes ${sets.length} parameter sets, more than the ${MAX_PARAMETER_SETS} the gate expands`);
  return sets;
}

/** The parameter sets of one generator; `where` names it in messages, `top` whether it stands in `spec.generators`. */
export async function generatorParams(run: Run, generator: Obj, where: string, top = true): Promise<Params[]> {
  const kinds = Object.keys(generator).filter((k) => k !== 'selector' && generator[k] !== null);
  const kind = kinds[0];
  // A generator of no kind Argo CD knows (the API server prunes an unknown one) makes nothing at the top, and fails a matrix or a merge.
  if (kinds.length === 0) {
    if (top) return [];
    throw new GeneratorError(`${where}: child generator generated no parameters`);
  }
  if (kinds.length !== 1 || !KINDS.includes(kind!))
    throw new Unjudged(`${where} (${kinds.join(', ')}) is not evaluated here: only list, git, clusters, matrix and merge generators are`);
  const body = obj(generator[kind!]);
  // A top-level generator's own template is merged over the ApplicationSet's where its sets are rendered
  // (generator-template.ts); a nested one's is not used (the matrix and merge take its parameters alone).
  let params: Params[];
  if (kind === 'list') params = bounded(listParams(body, run.mode.goTemplate), where);
  else if (kind === 'git') params = await gitParams(run, body);
  else if (kind === 'clusters') params = await clusterParams(run, body);
  else if (kind === 'matrix') params = await matrixParams(run, body, where);
  else params = await mergeParams(run, body, where);
  params = bounded(params, where);
  if (!isMap(generator.selector)) return params;
  const selector = generator.selector;
  return params.filter((p) => selectorMatches(selector, Object.fromEntries(Object.entries(flatten(p)).map(([k, v]) => [k, goPrint(v)]))));
}

/** The body of a generator (its one kind's), where its own template stands. */
export function generatorBody(generator: Obj): Obj {
  const kind = Object.keys(generator).find((k) => k !== 'selector' && generator[k] !== null);
  return kind === undefined ? {} : obj(generator[kind]);
}

async function gitParams(run: Run, git: Obj): Promise<Params[]> {
  const { repo, mode } = run;
  const repoURL = typeof git.repoURL === 'string' ? git.repoURL : '';
  if (!isThisRepoURL(repo, repoURL)) throw new Unjudged(`its git generator reads ${repoURL || 'no repository'}, not this one`);
  const revision = typeof git.revision === 'string' ? git.revision : '';
  const branch = repo.facts?.revision;
  if (revision !== branch && revision !== 'HEAD')
    throw new Unjudged(`its git generator reads revision ${revision || '(none)'}, not ${branch}, which the gate judges`);
  const items = (key: string): GitItem[] =>
    (Array.isArray(git[key]) ? git[key] : []).map((i: unknown) => ({
      path: typeof obj(i).path === 'string' ? (obj(i).path as string) : '',
      exclude: obj(i).exclude === true,
    }));
  const [directories, files] = [items('directories'), items('files')];
  const prefix = typeof git.pathParamPrefix === 'string' ? git.pathParamPrefix : '';
  let params: Params[];
  if (directories.length > 0) {
    // With hidden folders listed, the repo-server's walk lists its checkout's .git folders too, which the gate has not.
    if (cmdParamsSwitch(repo, HIDDEN_DIRECTORIES_KEY) && directories.some((d) => !d.exclude && GIT_FOLDERS.some((g) => goFilepathMatch(d.path, g))))
      throw new Unjudged(
        `its git generator lists folders where ${HIDDEN_DIRECTORIES_KEY} is true, and a pattern of it matches the checkout's .git folders, which the repo-server lists then and the gate cannot see`,
      );
    const dirs = matchedDirectories(checkoutDirectories(repo), directories);
    run.reads.push(...dirs.map((d) => `${d}/`));
    params = directoryParams(dirs, directories, mode.goTemplate, prefix);
  } else if (files.length > 0) {
    const found = gitFiles(repo, files);
    run.reads.push(...found);
    params = fileParams(
      found.map((path) => ({ path, text: readCheckoutFile(repo, path) })),
      mode.goTemplate,
      prefix,
    );
  } else throw new GeneratorError('ApplicationSet is empty');
  return withValues(mode, params, obj(git.values));
}

/**
 * The clusters generator (cluster.go): a set for each cluster Secret of Argo CD's namespace the selector matches, as
 * the repository declares them (the clusters the gate knows, model/argocd/clusters.ts), and the local cluster last
 * where the selector is empty and no Secret holds it. A cluster Secret an ExternalSecret writes holds what the store
 * holds: not judged.
 */
async function clusterParams(run: Run, clusters: Obj): Promise<Params[]> {
  const { repo, mode } = run;
  if (clusterSecretWriters(repo).length > 0)
    throw new Unjudged("its clusters generator reads cluster Secrets an ExternalSecret writes, whose contents are the store's");
  const selector = obj(clusters.selector);
  const selects = Object.keys(obj(selector.matchLabels)).length > 0 || (Array.isArray(selector.matchExpressions) && selector.matchExpressions.length > 0);
  const byName = new Map<string, Params>();
  for (const secret of clusterSecrets(repo)) {
    const labels = obj(obj(secret.object.metadata).labels);
    if (!selectorMatches(selector, labels)) continue;
    const name = secretValue(secret.object, 'name') ?? '';
    const metadata = obj(secret.object.metadata);
    const [annotations, own] = [obj(metadata.annotations), labels];
    const base: Params = {
      name,
      nameNormalized: sanitizeName(name),
      server: secretValue(secret.object, 'server') ?? '',
      project: secretValue(secret.object, 'project') ?? '',
    };
    if (mode.goTemplate) base.metadata = { ...(Object.keys(annotations).length ? { annotations } : {}), ...(Object.keys(own).length ? { labels: own } : {}) };
    else {
      for (const [k, v] of Object.entries(annotations)) base[`metadata.annotations.${k}`] = v;
      for (const [k, v] of Object.entries(own)) base[`metadata.labels.${k}`] = v;
    }
    byName.set(name, base);
  }
  const sets = [...byName.values()];
  if (!selects && !sets.some((p) => p.server === IN_CLUSTER_SERVER))
    sets.push({ name: IN_CLUSTER_NAME, nameNormalized: IN_CLUSTER_NAME, server: IN_CLUSTER_SERVER, project: '' });
  const valued = await withValues(mode, sets, obj(clusters.values));
  return clusters.flatList === true ? [{ clusters: valued }] : valued;
}

/** Two generators' sets crossed (matrix.go): the second rendered with each of the first's sets, then the two joined. */
async function matrixParams(run: Run, matrix: Obj, where: string): Promise<Params[]> {
  const children = Array.isArray(matrix.generators) ? matrix.generators.map(obj) : [];
  if (children.length < 2) throw new GeneratorError(`${where}: Matrix generator must have at least two child generators`);
  if (children.length > 2) throw new GeneratorError(`${where}: Matrix generator must not have more than two child generators`);
  const out: Params[] = [];
  for (const a of await generatorParams(run, children[0]!, `${where} matrix child 0`, false)) {
    const second = (await interpolated(run, children[1]!, a)) as Obj;
    for (const b of await generatorParams(run, second, `${where} matrix child 1`, false)) {
      out.push(joined(run.mode, a, b, where));
      bounded(out, where);
    }
  }
  return out;
}

/**
 * A matrix's second generator rendered with one set of the first (InterpolateGenerator): every string, but a git
 * generator's `values`, which with goTemplate keep their text where the set lacks a key (they are rendered later with
 * the generator's own sets).
 */
async function interpolated(run: Run, child: Obj, params: Params): Promise<unknown> {
  if (!JSON.stringify(child).includes('{{') || Object.keys(params).length === 0) return child;
  const git = obj(child.git);
  const values = obj(git.values);
  const bare = isMap(child.git) ? { ...child, git: { ...git, values: {} } } : child;
  const [rendered] = (await renderObjects(run.mode, bare, [params])) as Obj[];
  if (!isMap(child.git) || Object.keys(values).length === 0) return rendered;
  const strict: TemplateMode = { ...run.mode, options: [...run.mode.options.filter((o) => !o.startsWith('missingkey=')), 'missingkey=error'] };
  const kept: Obj = {};
  for (const [k, v] of Object.entries(values)) {
    try {
      [kept[k]] = await renderStrings(strict, [{ template: String(v), params }]);
    } catch (err) {
      if (!(err instanceof GeneratorError) || !/map has no entry for key|can't evaluate field/.test(err.message)) throw err;
      kept[k] = v;
    }
  }
  return { ...rendered, git: { ...obj(rendered!.git), values: kept } };
}

/**
 * Two sets joined: without goTemplate as strings, a key both hold with two texts failing (CombineStringMaps); with it,
 * the first's keys over the second's (mergo with override). A key both hold with two values that are not both plain
 * texts, numbers or truths is not judged: mergo's deep merge of them is not replayed here.
 */
function joined(mode: TemplateMode, a: Params, b: Params, where: string): Params {
  if (!mode.goTemplate) {
    const out: Params = Object.fromEntries(Object.entries(a).map(([k, v]) => [k, goPrint(v)]));
    for (const [k, v] of Object.entries(b)) {
      const text = goPrint(v);
      if (k in out && out[k] !== text) throw new GeneratorError(`${where}: found duplicate key ${k} with different value, a: ${String(out[k])} ,b: ${text}`);
      out[k] = text;
    }
    return out;
  }
  return overridden(b, a, where);
}

/** `base` with `over`'s keys put over it, where that is plain (see `joined`). */
function overridden(base: Params, over: Params, where: string): Params {
  const out: Params = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (!(k in out) || JSON.stringify(out[k]) === JSON.stringify(v)) {
      out[k] = v;
      continue;
    }
    const plain = (x: unknown) => (typeof x === 'string' && x !== '') || (typeof x === 'number' && x !== 0) || x === true;
    if (!plain(v) || !plain(out[k])) throw new Unjudged(`${where}: two parameter sets hold ${k} with values mergo merges in ways not replayed here`);
    out[k] = v;
  }
  return out;
}

/** Sets matched by their merge keys (merge.go): the first generator's, each overridden by the later ones' set of the same keys. */
async function mergeParams(run: Run, merge: Obj, where: string): Promise<Params[]> {
  const children = Array.isArray(merge.generators) ? merge.generators.map(obj) : [];
  if (children.length < 2) throw new GeneratorError(`${where}: Merge requires at least two generators`);
  const keys = [...new Set(Array.isArray(merge.mergeKeys) ? merge.mergeKeys.map(String) : [])].sort();
  if (keys.length === 0) throw new GeneratorError(`${where}: No merge keys were specified`);
  const byKey = (sets: Params[]) => {
    const out = new Map<string, Params>();
    for (const set of sets) {
      const key = JSON.stringify(Object.fromEntries(keys.map((k) => [k, set[k] ?? null])));
      if (out.has(key)) throw new GeneratorError(`${where}: Found duplicate param sets; each must be unique per merge key. Duplicate key was ${key}`);
      out.set(key, set);
    }
    return out;
  };
  const all: Params[][] = [];
  for (const [i, child] of children.entries()) all.push(await generatorParams(run, child, `${where} merge child ${i}`, false));
  const base = byKey(all[0]!);
  for (const sets of all.slice(1))
    for (const [key, over] of byKey(sets)) {
      const found = base.get(key);
      if (found) base.set(key, run.mode.goTemplate ? overridden(found, over, where) : { ...found, ...over });
    }
  return [...base.values()];
}

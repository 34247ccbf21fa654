/**
 * The pull request Renovate proposes each dependency in: its group's name, or
 * none (a pull request of its own), and, for a dependency given the releases
 * to choose from, the branches it proposes them in. Renovate settles groups
 * and branches during its lookup, which asks the registries; this runs the
 * same functions of the pinned Renovate offline: the repository's config
 * merged over Renovate's defaults, its presets resolved (the built-in ones
 * need no network), then applyPackageRules and the groupName template for each
 * dependency as its extraction found it; with releases, the lookup's buckets
 * (groupReleasesIntoBuckets, the newest release of each), then each update as
 * flattenUpdates makes it (the rules applied again with its update type, and
 * applyUpdateConfig, which names its branch).
 *
 * Run by renovate.ts with the repository as its working directory and the
 * config file as its argument (`groups.mjs <config> [--questions-later]`);
 * reads {"deps": [{depName, datasource, manager, packageFile, currentValue?,
 * releases?}]} as JSON on stdin and writes [{group: string | null, rules,
 * proposals?: [{version, updateType, branch, approval, automerge}]}, ...] as
 * JSON on stdout, in order: `rules` are the names of the config file's own
 * packageRules (matchPackageNames, matchDepNames, each alone, as Renovate's
 * matchers read it with its rule's datasource, manager and file matchers)
 * that take the dependency, each as `rule.key.place`. The config and its presets are resolved while
 * stdin is read; with --questions-later (the caller is still extracting the
 * dependencies it will ask about) the lookup's modules are loaded meanwhile
 * too, so the wait costs the caller nothing.
 */
import { readFile } from 'node:fs/promises';

const renovate = new URL('../../tools/renovate/node_modules/', import.meta.url);
/** @param {string} path @returns {Promise<any>} a module of the pinned Renovate (it ships no types for its internals) */
const load = (path) => import(new URL(path, renovate).href);

const [json5, presets, packageRules, utils, defaults, template, logger, matchers] = await Promise.all([
  load('json5/lib/index.js'),
  load('renovate/dist/config/presets/index.js'),
  load('renovate/dist/util/package-rules/index.js'),
  load('renovate/dist/config/utils.js'),
  load('renovate/dist/config/defaults.js'),
  load('renovate/dist/util/template/index.js'),
  load('renovate/dist/logger/index.js'),
  load('renovate/dist/util/package-rules/matchers.js'),
]);
/** The lookup's and flattenUpdates' modules, loaded only when a dependency comes with releases: they load every datasource and manager (two seconds). */
/** @type {Promise<any> | undefined} */
let lookupModules;
const lookup = () => (lookupModules ??= loadLookup());
async function loadLookup() {
  const [buckets, updateType, versioning, datasource, configModule, flatten] = await Promise.all([
    load('renovate/dist/workers/repository/process/lookup/bucket.js'),
    load('renovate/dist/workers/repository/process/lookup/update-type.js'),
    load('renovate/dist/modules/versioning/index.js'),
    load('renovate/dist/modules/datasource/common.js'),
    load('renovate/dist/config/index.js'),
    load('renovate/dist/workers/repository/updates/flatten.js'),
  ]);
  return { buckets, updateType, versioning, datasource, configModule, flatten };
}
// Renovate's functions log as they go; its logger, set up, keeps to LOG_LEVEL (warn) on stderr.
await logger.init();

const [configFile, ...flags] = process.argv.slice(2);
if (!configFile) throw new Error('usage: groups.mjs <config file> [--questions-later]');
// Handled here, awaited where a dependency needs them: a failed load is reported by the question that asks for it.
if (flags.includes('--questions-later')) lookup().catch(() => undefined);

/** @returns {Promise<{ deps: { depName?: string, datasource?: string, manager: string, packageFile: string, currentValue?: string, releases?: string[] }[] }>} */
async function questions() {
  /** @type {Buffer[]} */
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
// The config file read once: its own rules as written, and resolved with its presets over Renovate's defaults.
// The rules are copied before the merge reads the parsed file (their callbacks run in this order), so nothing it does reaches them.
const written = readFile(configFile, 'utf8').then((t) => json5.default.parse(t));
const ownRules = written.then((w) => structuredClone(w.packageRules ?? []));
const resolved = written.then((w) => presets.resolveConfigPresets(utils.mergeChildConfig(defaults.getConfig(), w)));
const [{ deps }, { config }, own] = await Promise.all([questions(), resolved, ownRules]);

/** The matchers of a rule that a dependency as extracted is judged by: its names, and what narrows them (an update's type is not known yet). */
const NAME_MATCHERS = ['matchPackageNames', 'matchDepNames'];
const STATIC_MATCHERS = [...NAME_MATCHERS, 'matchDatasources', 'matchManagers', 'matchFileNames'];
/** @param {Record<string, unknown>} rule */
const namesOf = (rule) => Object.fromEntries(Object.entries(rule).filter(([k]) => STATIC_MATCHERS.includes(k)));

/**
 * Whether Renovate's matchers take the dependency for the rule (matchesRule, lib/util/package-rules/index.ts: a
 * matcher that does not apply says nothing, one that does decides).
 * @param {Record<string, unknown>} dep @param {Record<string, unknown>} rule
 */
async function matches(dep, rule) {
  for (const matcher of matchers.default) {
    const found = await matcher.matches(dep, rule);
    if (found !== null && found !== undefined && !found) return false;
  }
  return true;
}

/**
 * The names of the config file's own rules that take the dependency, each alone in its rule's place (`i.key.j`: the
 * rule's place, its matcher, the name's place): a name one of whose rule's others takes is still a name of nothing.
 * @param {Record<string, unknown>} dep
 */
async function namesTaking(dep) {
  const places = [];
  for (const [i, rule] of own.entries()) {
    if (!rule || typeof rule !== 'object') continue;
    for (const key of NAME_MATCHERS) {
      const names = Array.isArray(rule[key]) ? rule[key] : [];
      // A negated name narrows its rule, and is not a name to be taken alone.
      for (const [j, name] of names.entries())
        if (typeof name === 'string' && !name.startsWith('!') && (await matches(dep, { ...namesOf(rule), [key]: [name] }))) places.push(`${i}.${key}.${j}`);
    }
  }
  return places;
}
const UPDATE_TYPES = ['major', 'minor', 'patch', 'pin', 'digest', 'lockFileMaintenance', 'replacement'];

/**
 * The updates Renovate proposes for a dependency at `currentValue` given `releases`: per bucket its newest release,
 * with the branch, and whether it waits for approval on the dashboard or merges itself.
 * @param {any} depConfig the dependency's config, its package rules applied
 * @param {string} currentValue
 * @param {string[]} releases
 */
async function proposals(depConfig, currentValue, releases) {
  const { buckets, updateType, versioning, datasource, configModule, flatten } = await lookup();
  const api = versioning.get(depConfig.versioning ?? datasource.getDefaultVersioning(depConfig.datasource));
  /** @type {Record<string, { version: string }[]>} */
  const bucketed = buckets.groupReleasesIntoBuckets(
    depConfig,
    currentValue,
    releases.filter((v) => api.isVersion(v) && api.isGreaterThan(v, currentValue)).map((version) => ({ version })),
    api,
  );
  const out = [];
  for (const [bucket, list] of Object.entries(bucketed)) {
    const newVersion = /** @type {string} */ (
      list
        .map((r) => r.version)
        .sort((a, b) => api.sortVersions(a, b))
        .at(-1)
    );
    const type = updateType.classifyRelease(api, currentValue, newVersion);
    const update = { bucket, updateType: type, newVersion, newValue: newVersion, newMajor: api.getMajor(newVersion), newMinor: api.getMinor(newVersion) };
    let u = utils.mergeChildConfig(depConfig, { ...update, [`is${type[0].toUpperCase()}${type.slice(1)}`]: true });
    u = await packageRules.applyPackageRules(await configModule.applyDatasourceDefaultConfig(u), 'datasource-merge');
    u = utils.mergeChildConfig(u, u[type]);
    for (const t of UPDATE_TYPES) delete u[t];
    u = flatten.applyUpdateConfig(await packageRules.applyPackageRules(u, 'update-type-merge'));
    if (u.enabled === false) continue;
    out.push({
      version: newVersion,
      updateType: type,
      branch: u.branchName,
      approval: u.dependencyDashboardApproval === true,
      automerge: u.automerge === true,
    });
  }
  return out.sort((a, b) => api.sortVersions(a.version, b.version));
}

const answers = [];
for (const dep of deps) {
  const asked = { ...dep, packageName: dep.depName };
  const applied = await packageRules.applyPackageRules({ ...config, ...asked });
  const group = typeof applied.groupName === 'string' && applied.groupName !== '' ? template.compile(applied.groupName, applied) : null;
  const rules = await namesTaking(asked);
  answers.push(dep.releases && dep.currentValue ? { group, rules, proposals: await proposals(applied, dep.currentValue, dep.releases) } : { group, rules });
}
process.stdout.write(`${JSON.stringify(answers)}\n`);

/**
 * The pull request Renovate proposes each dependency in: its group's name, or
 * none (a pull request of its own). Renovate settles groups during its lookup,
 * which asks the registries; this runs the same functions of the pinned
 * Renovate offline: the repository's config merged over Renovate's defaults,
 * its presets resolved (the built-in ones need no network), then
 * applyPackageRules and the groupName template, for each dependency as its
 * extraction found it.
 *
 * Run by renovate.ts with the repository as its working directory; reads
 * {"configFile", "deps": [{depName, datasource, manager, packageFile}]} as
 * JSON on stdin and writes [group or null, ...] as JSON on stdout, in order.
 */
import { readFile } from 'node:fs/promises';

const renovate = new URL('../../tools/renovate/node_modules/', import.meta.url);
/** @param {string} path @returns {Promise<any>} a module of the pinned Renovate (it ships no types for its internals) */
const load = (path) => import(new URL(path, renovate).href);

const [json5, presets, packageRules, utils, defaults, template, logger] = await Promise.all([
  load('json5/lib/index.js'),
  load('renovate/dist/config/presets/index.js'),
  load('renovate/dist/util/package-rules/index.js'),
  load('renovate/dist/config/utils.js'),
  load('renovate/dist/config/defaults.js'),
  load('renovate/dist/util/template/index.js'),
  load('renovate/dist/logger/index.js'),
]);
// Renovate's functions log as they go; its logger, set up, keeps to LOG_LEVEL (warn) on stderr.
await logger.init();

/** @type {Buffer[]} */
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
/** @type {{ configFile: string, deps: { depName?: string, datasource?: string, manager: string, packageFile: string }[] }} */
const { configFile, deps } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const repoConfig = json5.default.parse(await readFile(configFile, 'utf8'));
const { config } = await presets.resolveConfigPresets(utils.mergeChildConfig(defaults.getConfig(), repoConfig));

/** @type {(string | null)[]} */
const groups = [];
for (const dep of deps) {
  const applied = await packageRules.applyPackageRules({ ...config, ...dep, packageName: dep.depName });
  groups.push(typeof applied.groupName === 'string' && applied.groupName !== '' ? template.compile(applied.groupName, applied) : null);
}
process.stdout.write(`${JSON.stringify(groups)}\n`);

/**
 * The settings an image reads from its environment, each a need of one container (`Held`): those it reads only
 * together, those it cannot start without, those it reads only from a release, and those it takes in one form only.
 * Each failure says its own mend.
 */
import { objects, str } from '../../model/core/dig.ts';
import { mountHolds } from '../../model/programs/http-paths.ts';
import { compareReleases, imageRelease, type ContainerRef } from '../../model/core/workloads.ts';
import { envNamePattern, type EnvNeed } from '../../model/repository/image-facts.ts';
import { holdsValue, textOf, valuePath, type Held } from './variables.ts';
import { secretShown } from '../../model/cluster/environment.ts';
import { mistyped } from '../../model/core/did-you-mean.ts';

/** Where a finding about a variable's value points: an env entry's value, else the envFrom entry that sets it. */

export function envTogetherNeed({ ctx, resource, c, image, need, env, variable }: Held): void {
  for (const pair of need.envTogether ?? [])
    for (const [name, path] of env) {
      const shared = envNamePattern(pair.set).exec(name)?.[1];
      if (shared === undefined) continue;
      const needed = pair.needs.replace('*', shared);
      const held = holdsValue(variable(needed));
      if (held) continue;
      const at = { resource, path };
      if (held === undefined)
        ctx.notJudged(at, `container ${c.name} sets ${name} without ${needed} in its env; whether its envFrom sources hold ${needed} is not known`);
      else
        ctx.fail(
          at,
          `container ${c.name} sets ${name} without ${needed}: ${image} ignores the one without the other (${need.source}), so it starts and does nothing there`,
          `set ${needed} beside ${name}`,
        );
    }
}

/** Where the container's env sets a variable empty (its last entry of the name), where the image reads the empty text as written. */
function setEmptyAt(c: ContainerRef, variable: Held['variable'], name: string): (string | number)[] | undefined {
  if (textOf(variable(name)) !== '') return undefined;
  const index = objects(c.container.env).findLastIndex((e) => e.name === name);
  return index < 0 ? undefined : [...c.at, 'env', index, objects(c.container.env)[index]!.value === undefined ? 'name' : 'value'];
}

export function envFormatNeed({ ctx, resource, c, image, need, env, variable }: Held): void {
  for (const rule of need.envFormat ?? []) {
    // Set empty, the value is no longer the image's default: the program reads the empty text, and may refuse it.
    const emptyAt = rule.empty ? setEmptyAt(c, variable, rule.name) : undefined;
    if (emptyAt && !new RegExp(rule.pattern).test(''))
      ctx.fail(
        { resource, path: emptyAt },
        `container ${c.name} sets ${rule.name} empty, but ${image} reads it as written and takes it only in the form ${rule.pattern} (${need.source}): the empty text replaces the image's default, and is refused`,
        `set ${rule.name} in that form, or leave it out for the image's default`,
      );
    for (const [name, path] of env) {
      if (!envNamePattern(rule.name).test(name)) continue;
      const at = { resource, path: valuePath(path) };
      const setting = variable(name);
      const value = textOf(setting);
      if (value === undefined)
        ctx.notJudged(at, `container ${c.name} sets ${name} from a source whose value is not read: whether it matches ${rule.pattern} is not known`);
      else if (!new RegExp(rule.pattern).test(value))
        ctx.fail(
          at,
          `container ${c.name} sets ${name} to ${secretShown(setting, JSON.stringify(value))}, but ${image} takes it only in the form ${rule.pattern} (${need.source}): it refuses or ignores this one`,
          `write ${name} in that form`,
        );
    }
  }
}

/** Whether a volume is mounted at one of `dirs`, inside one, or above one: the image could read its setting from a file there. */
const mountsUnder = (c: ContainerRef, dirs: readonly string[]): boolean =>
  objects(c.container.volumeMounts).some((m) => dirs.some((dir) => mountHolds(str(m.mountPath), dir) || mountHolds(dir, str(m.mountPath))));

/**
 * A setting that makes or unmakes a need, as the image reads it: the container's text, else (unset or empty) the
 * image's default, and undefined where the value is not read (a Secret's, or an envFrom source's that may set it).
 */
function conditionValue(variable: Held['variable'], rule: EnvNeed, name: string): { value: string; byDefault: boolean } | undefined {
  const setting = variable(name);
  if (setting === 'held' || setting === 'maybe') return undefined;
  const text = textOf(setting);
  if (text !== undefined && text !== '') return { value: text, byDefault: false };
  const fallback = rule.defaults?.[name];
  return fallback === undefined ? undefined : { value: fallback, byDefault: true };
}

/** Whether a needed setting holds a value under its name or an older one the image reads; undefined where a source may give it. */
function neededHeld(variable: Held['variable'], rule: EnvNeed, name: string): boolean | undefined {
  const held = [name, ...(rule.aliases?.[name] ?? [])].map((n) => holdsValue(variable(n)));
  return held.includes(true) ? true : held.includes(undefined) ? undefined : false;
}

export function conditionalEnvNeed({ ctx, resource, c, image, need, variable }: Held): void {
  const where = { resource, path: [...c.at, c.container.env === undefined ? 'name' : 'env'] };
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  for (const rule of need.envNeeds ?? []) {
    const when = Object.entries(rule.when ?? {});
    const whenNot = Object.entries(rule.whenNot ?? {});
    const value = (name: string) => conditionValue(variable, rule, name);
    const matches = (name: string, values: string[]) => values.some((v) => value(name) !== undefined && same(v, value(name)!.value));
    const applies =
      when.every(([name, values]) => matches(name, values)) && whenNot.every(([name, values]) => value(name) !== undefined && !matches(name, values));
    if (!applies) continue;
    const missing = rule.needs.filter((name) => !neededHeld(variable, rule, name));
    if (missing.length === 0) continue;
    const shown = [...when, ...whenNot].map(([name]) => `${name}=${value(name)!.value}${value(name)!.byDefault ? ' (unset: the image default)' : ''}`);
    const because = shown.length > 0 ? ` with ${shown.join(', ')}` : '';
    if (missing.some((name) => neededHeld(variable, rule, name) === undefined) || (rule.orFilesUnder && mountsUnder(c, rule.orFilesUnder)))
      ctx.notJudged(
        where,
        `container ${c.name} runs ${image}${because} and no ${missing.join(' or ')} in its env; whether its envFrom sources or mounted files give ${missing.length > 1 ? 'them' : 'it'} is not read`,
      );
    else
      ctx.fail(
        where,
        `container ${c.name} runs ${image}${because} but without ${missing.join(' and ')}, which it needs${because ? ' then' : ''} (${need.source})`,
        `set ${missing.join(' and ')} in the container's env`,
      );
  }
}

export function envSinceNeed({ ctx, resource, c, image, need, env }: Held): void {
  for (const rule of need.envSince ?? [])
    for (const [name, path] of env) {
      if (!envNamePattern(rule.name).test(name)) continue;
      const at = { resource, path };
      const release = imageRelease(image);
      if (!release) ctx.notJudged(at, `${image} names no release, so whether it reads ${name} (from ${rule.since}) is not known`);
      else if (compareReleases(release, rule.since) < 0)
        ctx.fail(
          at,
          `container ${c.name} sets ${name}, which ${image} does not read before ${rule.since} (${need.source}): the setting is ignored`,
          `run a release from ${rule.since} on, or set what this release reads instead`,
        );
    }
}

/**
 * A variable one keystroke (or its letters' case) from one the program reads, and not itself one, where the facts list
 * every variable the program reads (`variables`): nothing reads it, and the setting it meant stays at its default (the
 * API's APJ_KEY for API_KEY: writes stay disabled).
 */
export function slippedVariableNeed({ ctx, resource, c, image, need, env }: Held): void {
  if (!need.variables) return;
  for (const [name, path] of env) {
    if (need.variables.includes(name)) continue;
    const meant = need.variables.find((v) => mistyped(name, v));
    if (meant)
      ctx.fail(
        { resource, path },
        `container ${c.name} sets ${name}, which ${image} does not read (the variables it reads are in ${need.file}): ${meant} stays unset, and the program runs with its default`,
        `set ${meant}`,
      );
  }
}

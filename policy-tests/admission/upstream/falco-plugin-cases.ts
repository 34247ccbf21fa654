/**
 * Falco's own cases of its plugin requirements (falcosecurity/falco unit_tests/engine/test_plugin_requirements.cpp),
 * held to the gate's reading (model/falco/plugin-requirements.ts): each `check_requirements(error, <loaded plugins>,
 * <rules file>)` the test asserts true draws no refusal and every requirement met, and each it asserts false draws a
 * refusal of the rules file or a requirement the loaded plugins do not meet. A call the harness cannot read is
 * counted apart, never as agreement.
 */
import { parseTuning } from '../../model/falco/tuning.ts';
import { pluginRequirements, unmetRequirement, type PluginVersion } from '../../model/falco/plugin-requirements.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';

export interface FalcoPluginCase {
  test: string;
  loaded: PluginVersion[];
  rules: string;
  met: boolean;
}

/** Every `ASSERT_TRUE/FALSE(check_requirements(error, {{"name", "version"}, ...}, R"(...)"))` of the file. */
export function falcoPluginCases(src: string): { cases: FalcoPluginCase[]; unread: number } {
  const cases: FalcoPluginCase[] = [];
  let unread = 0;
  const tests = [...src.matchAll(/TEST\(\s*\w+,\s*(\w+)\s*\)/g)];
  // The rules file is a raw literal, or an empty one ("").
  const calls = [...src.matchAll(/ASSERT_(TRUE|FALSE)\(check_requirements\(error,\s*\{([^}]*(?:\}[^}]*)*?)\},\s*(?:R"\(([\s\S]*?)\)"|"()")\)\)/g)];
  for (const call of calls) {
    const test = tests.filter((t) => t.index! < call.index!).at(-1)?.[1] ?? 'unknown';
    const pairs = [...call[2]!.matchAll(/\{\s*"([^"]*)",\s*"([^"]*)"\s*\}/g)].map((m) => ({ name: m[1]!, version: m[2]! }));
    if (call[2]!.trim() !== '' && pairs.length === 0) unread++;
    else
      cases.push({ test: `${test} #${cases.filter((c) => c.test.startsWith(test)).length + 1}`, loaded: pairs, rules: call[3] ?? '', met: call[1] === 'TRUE' });
  }
  // A call the pattern does not match at all is unread too.
  return { cases, unread: unread + (src.match(/check_requirements\(error/g)?.length ?? 0) - calls.length };
}

/** Whether the gate finds the file loaded and every requirement met by the loaded plugins, and if not, why. */
export function pluginVerdict(c: FalcoPluginCase): { met: boolean; why?: string } {
  const file = parseTuning('test', 'test', c.rules);
  if (file.errors.length) return { met: false, why: file.errors[0]!.message };
  const { requirements, problems } = pluginRequirements(file.items);
  if (problems.length) return { met: false, why: problems[0]!.message };
  const unmet = requirements.map((r) => unmetRequirement(r, c.loaded)).find((why) => why !== undefined);
  return unmet ? { met: false, why: unmet } : { met: true };
}

export function falcoPluginAgreement(read: ReturnType<typeof falcoPluginCases>): Agreement {
  const a = emptyAgreement();
  for (const c of read.cases) {
    const verdict = pluginVerdict(c);
    count(a, {
      group: c.met ? 'met' : 'not met',
      ok: verdict.met === c.met,
      file: c.test,
      why: `the gate finds it ${verdict.met ? 'met' : `not met (${verdict.why})`}; Falco ${c.met ? 'does' : 'does not'}`,
    });
  }
  for (let i = 0; i < read.unread; i++)
    count(a, { group: 'not read', ok: false, file: `call ${i + 1}`, why: 'a check_requirements call the harness does not read' });
  return a;
}

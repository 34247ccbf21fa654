/**
 * What renovate:check does (scripts/renovate/command.ts is the command): Renovate's own validator and extraction on
 * the checkout, the repository's pins against what they match, and the report, one line each.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runToEnd } from '../lib/exec.ts';
import { facts, loadRepo, printable } from '../../policy-tests/index.ts';
import { coverage, EXEMPTIONS_FILE, parseExemptions, type Coverage } from './coverage.ts';
import { findRepositoryPins, type Pin } from './pins.ts';
import { extractDeps, RENOVATE_CONFIG_FILE, startAsking, validateConfig, type ExtractedDep } from './renovate.ts';
import { minorsQuestion, type SkippedMinor } from './one-minor.ts';
import { pairsQuestion, type SplitPair } from './release-pairs.ts';
import { unusedRulesQuestion, type UnusedRule } from './unused-rules.ts';

/** Everything the check found: the validator's problems, or the pins, what Renovate extracted, and the verdict. */
export type Inspection =
  | { problems: string[] }
  | {
      problems: [];
      pins: Pin[];
      deps: ExtractedDep[];
      result: Coverage;
      /** Files git does not track, which Renovate never reads. */ untracked: ReadonlySet<string>;
      /** Images released together that Renovate would propose apart. */ split: SplitPair[];
      /** Pins that move one minor at a time that Renovate would not offer step by step. */ skipped: SkippedMinor[];
      /** The config's rules that name packages no dependency has. */ unused: UnusedRule[];
    };

/** The files of the checkout git neither tracks nor ignores: Renovate reads only what git tracks. */
async function untrackedFiles(root: string): Promise<Set<string>> {
  const r = await runToEnd('git', ['-C', root, 'ls-files', '-z', '--others', '--exclude-standard'], { timeoutMs: 60_000 });
  return new Set(r.exitCode === 0 ? r.stdout.split('\0').filter(Boolean) : []);
}

/**
 * Validates the config, extracts and compares (one Renovate run each). The validator, the extraction and the start-up
 * of Renovate's functions run side by side (the last two are most of the wait): what a config the validator refuses
 * would have extracted is thrown away, and the runs stopped.
 */
export async function inspectRenovate(root: string, progress: (line: string) => void = () => undefined): Promise<Inspection> {
  progress(
    `validating ${RENOVATE_CONFIG_FILE} with renovate-config-validator --strict, and running Renovate's extraction on the repository beside it (offline; some seconds)`,
  );
  const stop = new AbortController();
  const asking = startAsking(root);
  const extracted = Promise.all([findRepositoryPins(root), extractDeps(root, stop.signal), untrackedFiles(root)]);
  // Awaited below once the config is valid, or settled in the finally block: a failure before then is not lost.
  extracted.catch(() => undefined);
  let asked = false;
  try {
    const problems = await validateConfig(root);
    if (problems.length) return { problems };
    const exemptionsPath = join(root, EXEMPTIONS_FILE);
    const exemptions = existsSync(exemptionsPath) ? parseExemptions(readFileSync(exemptionsPath, 'utf8')) : [];
    const [pins, deps, untracked] = await extracted;
    progress("applying Renovate's package rules to the images released together and the pins that move one minor at a time");
    const repo = await loadRepo(root);
    asked = true;
    const [split, skipped, unused] = await asking.ask<[SplitPair[], SkippedMinor[], UnusedRule[]]>([
      pairsQuestion(repo, deps),
      minorsQuestion(deps, facts.oneMinorAtATime(repo)),
      unusedRulesQuestion(root, deps),
    ]);
    return { problems: [], pins, deps, result: coverage(pins, deps, exemptions), untracked, split, skipped, unused };
  } finally {
    // Nothing left running: an answer not wanted any more is stopped, and waited for.
    if (!asked) {
      stop.abort();
      await Promise.allSettled([extracted, asking.cancel()]);
    }
  }
}

/** The report of an inspection, one line each, and its exit status. */
export function report(inspection: Inspection, print: (line: string) => void): number {
  // File names, pins and image names come from the pull request: a control character in one must not forge a line.
  const out = (line: string) => print(printable(line));
  for (const p of inspection.problems) out(`INVALID  ${p}`);
  if (!('result' in inspection)) return 1;
  const { pins, result } = inspection;
  out(`valid    ${RENOVATE_CONFIG_FILE} (renovate-config-validator --strict)`);
  for (const pin of result.uncovered)
    out(
      inspection.untracked.has(pin.file)
        ? `UNTRACKED ${pin.file}:${pin.line}: ${pin.key} ${pin.text} is in a file git does not track, which Renovate never reads: git add it first`
        : `UNCOVERED ${pin.file}:${pin.line}: ${pin.key} ${pin.text} is pinned, but no Renovate manager matches it (add a manager, or an entry with its reason to ${EXEMPTIONS_FILE})`,
    );
  for (const e of result.unusedExemptions) out(`STALE    ${EXEMPTIONS_FILE}: the entry for ${e.files} (${e.keys.join(', ')}) matches no pin; remove it`);
  for (const s of inspection.split)
    out(
      `SPLIT    ${s.file}: ${s.image} works with ${s.partner} only at one release, but Renovate proposes them apart (${s.groups.every((g) => g === undefined) ? 'each in a pull request of its own' : s.groups.map((g) => (g === undefined ? 'one alone' : `group ${g}`)).join(' and ')}), and the gate refuses each alone: give both one groupName in ${RENOVATE_CONFIG_FILE}`,
    );
  for (const s of inspection.skipped)
    out(
      s.step === 'minor'
        ? `SKIPS    ${s.file}: ${s.depName} ${s.from} would be offered ${s.proposed} in one pull request, past ${s.skipped}, but it moves one minor at a time (${s.why}): set separateMultipleMinor on its rule in ${RENOVATE_CONFIG_FILE} (one without matchUpdateTypes)`
        : `HOLDS    ${s.file}: ${s.depName} ${s.from} would get its patch ${s.skipped} only inside the pull request of ${s.proposed}, which waits for a person: offer the patch on its own (separateMultipleMinor or separateMinorPatch on its rule in ${RENOVATE_CONFIG_FILE})`,
    );
  for (const u of inspection.unused)
    out(
      `UNUSED   ${RENOVATE_CONFIG_FILE}:${u.line}: packageRules[${u.index}] names ${u.name}, and no dependency Renovate extracts is that one${u.meant ? ` (did you mean "${u.meant}"?)` : ''}: the rule does nothing for it; name a dependency the repository has, or remove the name`,
    );
  out(`Pins: ${pins.length} found - covered by Renovate: ${result.covered.length}, exempt: ${result.exempt.length}, uncovered: ${result.uncovered.length}`);
  return result.uncovered.length || result.unusedExemptions.length || inspection.split.length || inspection.skipped.length || inspection.unused.length ? 1 : 0;
}

/** Checks the repository at `root`; resolves to the exit status, having written its report through `out`. */
export async function checkRenovate(root: string, out: (line: string) => void, progress?: (line: string) => void): Promise<number> {
  return report(await inspectRenovate(root, progress), out);
}

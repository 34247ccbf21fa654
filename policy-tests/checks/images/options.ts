/**
 * A program's command line, held to what its image's facts list for it (`options`), read as its reader reads it:
 * Python's argparse (model/command-lines/argparse.ts), where an option the program does not have stops it with exit 2
 * before its own code runs; Node's or Python's (model/command-lines/script-command.ts), where a script the build does not
 * hold stops it at once; kingpin (model/command-lines/kingpin.ts), where a flag the Go program does not have, a value
 * its type refuses or one of the flags that print and exit stops it before it serves. Either way the container
 * restarts for good (an init container holds its pod back, or, ending with exit 0, lets it start with its work undone;
 * a Job's run fails, or ends as a success with nothing done), and the API server takes any words. Go's flag package (model/command-lines/go-flag.ts) the same,
 * exit 2, where a program reads its flags with it; pflag under cobra (model/command-lines/pflag.ts) and cxxopts
 * (model/command-lines/cxxopts.ts: Falco's options), exit 1, with what the program checks as it starts. A container
 * with no command gives its args to the image's ENTRYPOINT, where the facts name it (`entrypoint`).
 */
import { list } from '../../model/core/dig.ts';
import { nearestName, suggesting } from '../../model/core/did-you-mean.ts';
import { argparseRefusal } from '../../model/command-lines/argparse.ts';
import { cxxoptsRefusal } from '../../model/command-lines/cxxopts.ts';
import { goFlagRefusal } from '../../model/command-lines/go-flag.ts';
import { kingpinRefusal } from '../../model/command-lines/kingpin.ts';
import { pflagRefusal } from '../../model/command-lines/pflag.ts';
import { findsScript, missingScript, runScript, type ScriptRunner } from '../../model/command-lines/script-command.ts';
import type { ProgramOptions } from '../../model/command-lines/command-line.ts';
import type { Held } from './variables.ts';

/** The first word the reader refuses, with why, what follows and the mend; or one the gate cannot judge, with why. */
type Refusal =
  | { index: number; message: string; fix: string; effect: string; exit: number; another?: true }
  | { index: number; unjudged: string; another?: true };

/**
 * A parser's refusal, with the status it exits with (`started`: the program's own check once its flags are read), and
 * its own mend where it has one; or a word not judged (`another`: a command line of another command than the entry's).
 */
type ParserRefusal =
  | { index: number; message: string; exit: 0 | 1 | 2 | 255; started?: true; fix?: string; another?: true }
  | { index: number; unjudged: string; another?: true };

/** The first word the program's own option parser refuses, or that ends it. */
function parserRefusal(words: readonly string[], options: Exclude<ProgramOptions, ScriptRunner>): ParserRefusal | undefined {
  switch (options.parser) {
    case 'argparse': {
      const refused = argparseRefusal(words, options);
      return refused && { ...refused, exit: refused.exit ?? 2 };
    }
    case 'kingpin':
      return kingpinRefusal(words, options);
    case 'goflag':
      return goFlagRefusal(words, options);
    case 'pflag':
      return pflagRefusal(words, options);
    case 'cxxopts':
      return cxxoptsRefusal(words, options);
  }
}

/** The first word of `words` after the program the reader refuses, or cannot be judged; undefined where it takes them all. */
function refusal(words: readonly string[], options: ProgramOptions): Refusal | undefined {
  if ('flags' in options) {
    const refused = parserRefusal(words, options);
    if (!refused || 'unjudged' in refused) return refused;
    // Python's argparse and cxxopts name their words options, and argparse stops before the app starts; a Go parser, flags.
    const argparse = options.parser === 'argparse';
    const noun = argparse || options.parser === 'cxxopts' ? 'options' : 'flags';
    // Go's flag package stops a parse with exit 2: its exit 1 (255 from klog.Fatal) is the program's own check, as a
    // command's `started` is.
    const byProgram = (options.parser === 'goflag' && (refused.exit === 1 || refused.exit === 255)) || refused.started === true;
    const all = [...options.flags, ...options.withValue].join(', ');
    return {
      index: refused.index,
      message:
        refused.exit === 0
          ? `with which it exits before it serves (${refused.message}`
          : `which ${byProgram ? `it refuses once its ${noun} are read` : `its ${argparse ? 'argument' : noun.slice(0, -1)} parser refuses`} (${refused.message}`,
      effect: `it exits ${refused.exit} before it ${argparse ? 'starts' : 'serves'}`,
      exit: refused.exit,
      fix:
        refused.fix ??
        (refused.exit === 0
          ? `leave ${argparse ? 'the help option' : refused.message.split(' ')[0]} out of a serving container`
          : argparse
            ? `give ${options.program} only the options it has: ${all}`
            : `give ${options.program} only the ${noun} it has, as it reads them: ${all}`),
      ...(refused.another ? { another: true as const } : {}),
    };
  }
  const run = runScript(options.parser, words);
  const found = run && findsScript(options.parser, run.script, options.scripts);
  if (!run || found === true) return undefined;
  if (found === undefined)
    return { index: run.index, unjudged: 'a path from outside the working directory the facts list scripts from: whether the image holds it is not judged' };
  return {
    index: run.index,
    message: `a script the image's build does not make to run${suggesting(nearestName(run.script.replace(/^(\.\/)+/, ''), options.scripts))} (it makes ${options.scripts.join(', ')}`,
    effect: missingScript(options.parser),
    exit: 2,
    fix: `run one of the scripts the build makes: ${options.scripts.join(', ')}`,
  };
}

/**
 * What the exit does to the pod: a container restarts for good; an init container (not a sidecar) that fails holds the
 * pod's containers back, and one that exits 0 lets them start with its work undone (falcoctl's rules never installed);
 * a Job's container (its pod restarting Never or OnFailure) fails the run, or ends it as a success with nothing done.
 */
function afterExit(c: Held['c'], pod: Held['pod'], exit: number): string {
  const sidecar = c.init && c.container.restartPolicy === 'Always';
  if (c.init && !sidecar)
    return exit === 0
      ? ': the init container succeeds with its work undone, and the pod starts without it'
      : ', so the init container fails at every try and the pod never starts';
  if (sidecar || (pod.spec.restartPolicy ?? 'Always') === 'Always') return ', and the container restarts for good';
  return exit === 0 ? ': the run ends as a success with its work undone' : ', so the run fails, and the Job with it once its retries are spent';
}

/** Each word the container runs, with where it is written: its command's or its args, else the image's ENTRYPOINT's. */
function commandLine(c: Held['c'], entrypoint: string[] | undefined): { words: unknown[]; lead: number; own: boolean } {
  const command = list(c.container.command);
  const lead = command.length > 0 || !entrypoint ? command : entrypoint;
  return { words: [...lead, ...list(c.container.args)], lead: lead.length, own: lead === command };
}

export function optionsNeed({ ctx, resource, pod, c, image, need }: Held): void {
  const { words, lead, own } = commandLine(c, need.entrypoint);
  if (!need.options || !words.every((w) => typeof w === 'string')) return;
  const read = need.options.flatMap((options) => {
    const at = (words as string[]).findIndex((w) => w === options.program || w.endsWith(`/${options.program}`));
    return at === -1 ? [] : [{ options, at, refused: refusal((words as string[]).slice(at + 1), options) }];
  });
  // A program with an entry per command (falcoctl's artifact install and follow, external-secrets' root, webhook and
  // certcontroller): a line one of them reads is not another's; one none reads is said once, by the first entry; and a
  // word every entry stops at (before the commands part) is said once.
  const isAnother = (refused: Refusal | undefined) => refused !== undefined && 'another' in refused && refused.another === true;
  const said = new Set<string>();
  const anotherSaid = new Set<string>();
  for (const { options, at, refused } of read) {
    if (!refused) continue;
    if (isAnother(refused)) {
      if (anotherSaid.has(options.program) || read.some((r) => r.options.program === options.program && !isAnother(r.refused))) continue;
      anotherSaid.add(options.program);
    }
    const word = `${options.program} ${at + refused.index} ${'unjudged' in refused ? refused.unjudged : refused.message}`;
    if (said.has(word)) continue;
    said.add(word);
    const index = at + 1 + refused.index;
    const path = index >= lead ? [...c.at, 'args', index - lead] : own ? [...c.at, 'command', index] : c.at;
    // The kubelet replaces $(NAME) in a command with the container's variable before the program reads it.
    const expanded = /\$\([A-Za-z_][A-Za-z0-9_]*\)/.test(String(words[index]));
    if ('unjudged' in refused || expanded) {
      const why = 'unjudged' in refused ? refused.unjudged : 'which the kubelet expands from a variable: what the program reads is not judged';
      ctx.notJudged({ resource, path }, `container ${c.name} runs ${options.program} of ${image} with ${JSON.stringify(words[index])}, ${why}`);
      continue;
    }
    ctx.fail(
      { resource, path },
      `container ${c.name} runs ${options.program} of ${image} with ${JSON.stringify(words[index])}, ${refused.message}; ${need.source}): ${refused.effect}${afterExit(c, pod, refused.exit)}`,
      refused.fix,
    );
  }
}

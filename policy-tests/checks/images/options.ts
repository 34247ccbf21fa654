/**
 * A program's command line, held to the options its image's facts list for it (`options`): read as its parser reads
 * it (model/programs/argparse.ts), an option it does not have stops it with exit 2 before its own code runs, and the
 * container restarts for good. The API server takes any words.
 */
import { list } from '../../model/core/dig.ts';
import { argparseRefusal } from '../../model/programs/argparse.ts';
import type { Held } from './variables.ts';

export function optionsNeed({ ctx, resource, c, image, need }: Held): void {
  const command = list(c.container.command);
  const words = [...command, ...list(c.container.args)];
  if (!need.options || !words.every((w) => typeof w === 'string')) return;
  for (const options of need.options) {
    const at = (words as string[]).findIndex((w) => w === options.program || w.endsWith(`/${options.program}`));
    if (at === -1) continue;
    const refusal = argparseRefusal((words as string[]).slice(at + 1), options);
    if (!refusal) continue;
    const index = at + 1 + refusal.index;
    const path = index < command.length ? [...c.at, 'command', index] : [...c.at, 'args', index - command.length];
    ctx.fail(
      { resource, path },
      `container ${c.name} runs ${options.program} of ${image} with ${JSON.stringify(words[index])}, which its argument parser refuses (${refusal.message}; ${need.source}): it exits 2 before it starts, and the container restarts for good`,
      `give ${options.program} only the options it has: ${[...options.flags, ...options.withValue].join(', ')}`,
    );
  }
}

/** A program's options as the repository's image facts write them (`*\/facts/images.yaml`): their lists and patterns are what a reader's tests put to work. */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { REPO_ROOT } from '../policy-tests/model/repository/repo.ts';

/** The `options` entry of `program` (of its `subcommand`, where given) in the facts file at `factsFile` (repository-relative); throws where there is none. */
export function programOptions<T>(factsFile: string, program: string, subcommand?: string): T {
  const facts = parse(readFileSync(`${REPO_ROOT}/${factsFile}`, 'utf8')) as { images: { options?: { program: string; subcommand?: string }[] }[] };
  const found = facts.images.flatMap((i) => i.options ?? []).find((o) => o.program === program && (subcommand === undefined || o.subcommand === subcommand));
  if (!found) throw new Error(`${factsFile} lists no options of ${program} ${subcommand ?? ''}`);
  return found as T;
}

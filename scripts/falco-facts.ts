/**
 * Regenerates the upstream-names facts the Falco tuning checks read, from a
 * local copy of the upstream rules file:
 *   npm run falco:facts -- path/to/falco_rules.yaml --version 5.1.0
 * Only names are kept; the upstream rules themselves are never copied here.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { REPO_ROOT } from '../policy-tests/model/repo.ts';

export interface UpstreamFacts {
  ruleset: string;
  version: string;
  required_engine_version?: string;
  rules: string[];
  macros: string[];
  lists: string[];
}

/** Names in file order, each once: the facts the copy and hook checks need. */
export function upstreamFacts(rulesYaml: string, version: string): UpstreamFacts {
  const items = parse(rulesYaml, { maxAliasCount: 100 }) as unknown;
  if (!Array.isArray(items)) throw new Error('not a Falco rules file: expected a YAML list');
  const names = (key: string) => [...new Set(items.filter((i) => i && typeof i[key] === 'string').map((i) => String(i[key])))];
  const engine = items.find((i) => i && 'required_engine_version' in i)?.required_engine_version;
  return { ruleset: 'falco-rules', version, ...(engine !== undefined ? { required_engine_version: String(engine) } : {}), rules: names('rule'), macros: names('macro'), lists: names('list') };
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { version: { type: 'string' }, out: { type: 'string' } } });
  if (positionals.length !== 1 || !values.version) {
    process.stderr.write('usage: npm run falco:facts -- <falco_rules.yaml> --version <x.y.z> [--out <file>]\n');
    process.exit(1);
  }
  const facts = upstreamFacts(readFileSync(positionals[0]!, 'utf8'), values.version);
  const out = values.out ?? join(REPO_ROOT, 'security/falco/facts', `falco-rules-${values.version}-names.json`);
  writeFileSync(out, `${JSON.stringify(facts, null, 2)}\n`);
  process.stdout.write(`${out}: ${facts.rules.length} rules, ${facts.macros.length} macros, ${facts.lists.length} lists\n`);
}

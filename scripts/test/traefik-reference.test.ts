/**
 * npm run traefik:reference: the options read from a local clone of Traefik at a tag (its generated table of install
 * configuration options), and the refusals: no --from (a usage error), a tag the clone lacks, a file with no table.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { main, tableOptions } from '../platform/traefik-reference.ts';
import { capture } from '../../test-support/capture-io.ts';
import { taggedClone, type TaggedClone } from '../../test-support/tagged-clone.ts';

const TABLE = 'docs/content/reference/install-configuration/configuration-options.md';
const row = (option: string) => `| <a id="opt-${option.replace(/\W+/g, '-')}" href="#x" title="#x">${option}</a> | Something. | false |`;
const MARKDOWN = [
  '# Install Configuration Options',
  '',
  '| Field | Description | Default |',
  '|:--|:--|:--|',
  row('log.level'),
  row('entrypoints._name_.address'),
  row('log.level'),
  '',
].join('\n');

describe("Traefik's table of options", () => {
  it("reads each row's option once, sorted", () => {
    expect(tableOptions(MARKDOWN)).toEqual(['entrypoints._name_.address', 'log.level']);
  });
  it('refuses a file with no table', () => {
    expect(() => tableOptions('# nothing here\n')).toThrow(/has no table of options/);
  });
});

describe('traefik:reference', () => {
  let clone: TaggedClone;
  beforeAll(async () => {
    clone = await taggedClone('traefik', 'v3.7.9', { files: { [TABLE]: MARKDOWN }, rootDirs: ['apps/platform/facts'] });
  });
  afterAll(() => clone.dispose());

  it('writes the options of the tag', async () => {
    const { out, io } = capture();
    expect(await main(['--from', clone.upstream, '--ref', 'v3.7.9', '--root', clone.root], io)).toBe(0);
    expect(out.stdout).toBe('wrote apps/platform/facts/traefik-options.yaml: 2 options, Traefik 3.7.9\n');
    const written = parse(await readFile(join(clone.root, 'apps/platform/facts/traefik-options.yaml'), 'utf8'));
    expect(written).toMatchObject({ program: 'traefik', version: '3.7.9', source: { ref: 'v3.7.9' }, options: ['entrypoints._name_.address', 'log.level'] });
  });

  it('a tag the clone lacks is one line and exit 1; without --from a usage error', async () => {
    const missing = capture();
    expect(await main(['--from', clone.upstream, '--ref', 'v9.9.9', '--root', clone.root], missing.io)).toBe(1);
    expect(missing.out.stderr).toMatch(
      /^traefik:reference: cannot read docs\/content\/reference\/install-configuration\/configuration-options.md at v9.9.9 from .+\n$/,
    );
    const usage = capture();
    expect(await main(['--ref', 'v3.7.9', '--root', clone.root], usage.io)).toBe(2);
  });
});

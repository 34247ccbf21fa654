/**
 * A local chart's `.helmignore`, as Helm 4.2's loader applies it: the cases of Helm's own TestIgnore and TestParseFail
 * (pkg/ignore/rules_test.go at v4.2.3, ported by hand: each pattern, path, whether the fixture is a folder, and
 * Helm's answer), and the loader's walk, which skips an ignored folder whole.
 */
import { describe, expect, it } from 'vitest';
import { helmignoreRules, keptByHelmignore } from '../../render/helmignore.ts';

/** Which of Helm's fixtures (pkg/ignore/testdata) are folders. */
const FOLDERS = new Set(['cargo', 'cargo/', 'mast', 'mast/', '.', './', '']);

describe("a chart's .helmignore", () => {
  it.each([
    ['helm.txt', 'helm.txt', true],
    ['helm.*', 'helm.txt', true],
    ['helm.*', 'rudder.txt', false],
    ['*.txt', 'tiller.txt', true],
    ['*.txt', 'cargo/a.txt', true],
    ['cargo/*.txt', 'cargo/a.txt', true],
    ['cargo/*.*', 'cargo/a.txt', true],
    ['cargo/*.txt', 'mast/a.txt', false],
    ['ru[c-e]?er.txt', 'rudder.txt', true],
    ['templates/.?*', 'templates/.dotfile', true],
    ['.*', '.', false],
    ['.*', './', false],
    ['.*', '.joonix', true],
    ['.*', 'helm.txt', false],
    ['.*', '', false],
    ['cargo/', 'cargo', true],
    ['cargo/', 'cargo/', true],
    ['cargo/', 'mast/', false],
    ['helm.txt/', 'helm.txt', false],
    ['!helm.txt', 'helm.txt', false],
    ['!helm.txt', 'tiller.txt', true],
    ['!*.txt', 'cargo', true],
    ['!cargo/', 'mast/', true],
    ['/a.txt', 'a.txt', true],
    ['/a.txt', 'cargo/a.txt', false],
    ['/cargo/a.txt', 'cargo/a.txt', true],
  ] as const)("Helm's TestIgnore: %s on %s ignores it: %s", (pattern, path, expected) => {
    const rules = helmignoreRules(pattern);
    if (rules === 'refused') throw new Error(`${pattern} refused`);
    expect(rules.ignores(path, FOLDERS.has(path))).toBe(expected);
  });

  it("refuses what Helm's TestParseFail refuses, and then leaves the chart's files as they are (Helm fails the chart)", () => {
    for (const bad of ['foo/**/bar', '[z-']) expect(helmignoreRules(bad), bad).toBe('refused');
    expect(keptByHelmignore('[z-\n', ['templates/a.yaml'])).toEqual(['templates/a.yaml']);
  });

  it('skips a folder it ignores whole, keeps comments and blank lines out, and always ignores dot files directly in templates/', () => {
    const files = ['Chart.yaml', 'values.yaml', 'templates/a.yaml', 'templates/.draft.yaml', 'templates/tests/t.yaml', 'docs/readme.md', 'ci/values.yaml'];
    const text = '\uFEFF# comment\n\n  docs/  \ntests/\nci/*\r\n';
    expect(keptByHelmignore(text, files)).toEqual(['Chart.yaml', 'values.yaml', 'templates/a.yaml']);
    expect(keptByHelmignore(undefined, files)).toEqual(files.filter((f) => f !== 'templates/.draft.yaml'));
  });
});

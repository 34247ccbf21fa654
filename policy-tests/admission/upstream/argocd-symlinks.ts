/**
 * Argo CD's own cases of the symlinks its repo-server refuses before it reads any source (util/app/path/path_test.go:
 * every test that calls `CheckOutOfBoundsSymlinks` on a folder of `testdata/`), judged through the model's rule
 * (model/argocd/repo-server.ts `firstOutOfBoundsLink`): each expects no error, or the refusal of one link, named. The
 * links are the ones the folder holds, read by the caller, and the ones the test makes (`fileutil.CreateSymlink`).
 * A test this reader cannot follow is counted apart, never guessed.
 */
import { firstOutOfBoundsLink } from '../../model/argocd/repo-server.ts';
import type { CheckoutLink } from '../../model/repository/checkout-paths.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { callArgs, testUnits } from './argocd-repo-server.ts';

export interface SymlinkCase {
  test: string;
  /** The folder the test checks, relative to util/app/path. */
  folder: string;
  /** The paths it tells the walk to pass over. */
  skip: string[];
  /** Links the test makes in the folder before it checks (path within the folder, target). */
  made: CheckoutLink[];
  /** The link it expects refused, or undefined for no error. */
  refused?: string;
}

const strings = (text: string): string[] => [...text.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);

/** The cases of path_test.go: each test function that calls CheckOutOfBoundsSymlinks, or why it is not read. */
export function symlinkCases(src: string): { cases: SymlinkCase[]; unread: { test: string; why: string }[] } {
  const cases: SymlinkCase[] = [];
  const unread: { test: string; why: string }[] = [];
  for (const { name, body } of testUnits(src)) {
    const at = body.indexOf('CheckOutOfBoundsSymlinks(');
    if (at === -1) continue;
    const [first, ...rest] = callArgs(body, at + 'CheckOutOfBoundsSymlinks'.length);
    // The folder is a literal, or a constant the test declares.
    const folder = first!.startsWith('"') ? strings(first!)[0] : /^\w+$/.test(first!) ? new RegExp(`\\b${first} = "([^"]*)"`).exec(body)?.[1] : undefined;
    const skip = rest.flatMap(strings);
    if (folder === undefined || skip.length !== rest.length) {
      unread.push({ test: name, why: `a folder or skip path that is not a literal: CheckOutOfBoundsSymlinks(${[first, ...rest].join(', ')})` });
      continue;
    }
    const made = [...body.matchAll(/CreateSymlink\(t, ("(?:[^"\\]|\\.)*"), ("(?:[^"\\]|\\.)*")\)/g)].map((m) => ({
      target: strings(m[1]!)[0]!,
      path: strings(m[2]!)[0]!,
    }));
    const named = /assert\.Equal\(t, "([^"]*)", oobError\.File\)/.exec(body)?.[1];
    const noError = /(require|assert)\.NoError\(t, err\)/.test(body);
    if (named === undefined && !noError) {
      unread.push({ test: name, why: 'expects neither no error nor a named link' });
      continue;
    }
    cases.push({ test: name, folder: folder.replace(/^\.\//, ''), skip, made, ...(named === undefined ? {} : { refused: named }) });
  }
  return { cases, unread };
}

/** Each case judged on the links its folder holds (`linksOf`, read by the caller) and those the test makes. */
export function symlinkAgreement(cases: readonly SymlinkCase[], linksOf: (folder: string) => CheckoutLink[]): Agreement {
  const a = emptyAgreement();
  for (const c of cases) {
    const refused = firstOutOfBoundsLink([...linksOf(c.folder), ...c.made], c.skip);
    count(a, {
      group: 'CheckOutOfBoundsSymlinks',
      ok: refused === c.refused,
      file: `${c.test} (${c.folder})`,
      why: `the gate ${refused ? `refuses ${refused}` : 'refuses none'}, Argo CD ${c.refused ? `refuses ${c.refused}` : 'none'}`,
    });
  }
  return a;
}

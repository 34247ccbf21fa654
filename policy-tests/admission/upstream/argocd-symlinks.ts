/**
 * Argo CD's own cases of what its repo-server refuses of a checkout before it reads a source
 * (util/app/path/path_test.go), judged through the model (model/argocd/repo-server.ts):
 * - every test that calls `CheckOutOfBoundsSymlinks` on a folder of `testdata/` (`firstOutOfBoundsLink`): each
 *   expects no error, or the refusal of one link, named. The links are the ones the folder holds, read by the
 *   caller, and the ones the test makes (`fileutil.CreateSymlink`);
 * - every test that calls `Path` (`appPathProblem`): a source's path joined to the checkout, and the error expected
 *   in Argo CD's words, or none; what the folder holds at the path is read by the caller.
 * A test this reader cannot follow is counted apart, never guessed.
 */
import { appPathProblem, firstOutOfBoundsLink } from '../../model/argocd/repo-server.ts';
import type { CheckoutLink } from '../../model/repository/checkout-paths.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { testUnits } from './argocd-repo-server.ts';
import { callArgumentTexts } from './go-literals.ts';

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
    const [first, ...rest] = callArgumentTexts(body, at + 'CheckOutOfBoundsSymlinks'.length);
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

export interface PathCase {
  test: string;
  /** The checkout, relative to util/app/path. */
  root: string;
  path: string;
  /** Argo CD's error, or undefined for none. */
  error?: string;
}

/** The tests of path_test.go that call Path with literals and expect an error's text or none. */
export function pathCases(src: string): PathCase[] {
  return testUnits(src).flatMap(({ name, body }) => {
    const call = /\bPath\("((?:[^"\\]|\\.)*)", "((?:[^"\\]|\\.)*)"\)/.exec(body);
    if (!call) return [];
    const error = /require\.EqualError\(t, err, "((?:[^"\\]|\\.)*)"\)/.exec(body)?.[1];
    if (error === undefined && !/require\.NoError\(t, err\)/.test(body)) return [];
    return [{ test: name, root: call[1]!.replace(/^\.\//, ''), path: call[2]!, ...(error === undefined ? {} : { error }) }];
  });
}

/** Each case judged on what its checkout holds at the path (`holdsOf`, read by the caller). */
export function pathAgreement(cases: readonly PathCase[], holdsOf: (root: string, path: string) => { folder: boolean; file: boolean }): Agreement {
  const a = emptyAgreement();
  for (const c of cases) {
    const got = appPathProblem(c.path, holdsOf(c.root, c.path));
    count(a, { group: 'Path', ok: got === c.error, file: c.test, why: `the gate says ${got ?? 'nothing'}, Argo CD ${c.error ?? 'nothing'}` });
  }
  return a;
}

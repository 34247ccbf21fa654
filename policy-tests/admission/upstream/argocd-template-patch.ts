/**
 * Argo CD's own cases of an ApplicationSet's templatePatch (applicationset/controllers/template/patch_test.go at the
 * pinned tag: Test_ApplyTemplatePatch's table, and TestError), read as data and judged through the model
 * (model/appset/template-patch.ts applyTemplatePatch): each row's Application as a manifest, the patch applied, and
 * the result held to the row's expected Application; a patch Argo CD cannot read must fail here too. A row this
 * reader cannot follow is counted apart, never guessed.
 */
import { isDeepStrictEqual } from 'node:util';
import { applyTemplatePatch } from '../../model/appset/template-patch.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { asManifest, blockAt, builtinEnvironment, structTableRows } from './go-literals.ts';

type Obj = Record<string, unknown>;

const CONSTANTS: Readonly<Record<string, string>> = { 'appv1.ResourcesFinalizerName': 'resources-finalizer.argocd.argoproj.io' };

const ENV = builtinEnvironment(CONSTANTS);

/** An appv1.Application literal as the controller holds it: metadata and spec (TypeMeta is inline, and the patch keeps it). */
function application(go: unknown): Obj {
  const o = (go ?? {}) as Obj;
  return { metadata: asManifest(o.ObjectMeta ?? {}), spec: asManifest(o.Spec ?? {}) };
}

export interface TemplatePatchCase {
  test: string;
  app: Obj;
  patch: string;
  /** The Application the patch must make, or undefined where Argo CD must fail. */
  expected?: Obj;
}

/** The rows of Test_ApplyTemplatePatch, and TestError's patch that Argo CD cannot read. */
export function templatePatchCases(goSource: string): { cases: TemplatePatchCase[]; unread: { test: string; why: string }[] } {
  const cases: TemplatePatchCase[] = [];
  const unread: { test: string; why: string }[] = [];
  const at = goSource.indexOf('func Test_ApplyTemplatePatch(');
  if (at !== -1)
    for (const { text, row, why } of structTableRows(blockAt(goSource, goSource.indexOf('{', at)), /testCases/, ENV)) {
      const test = `Test_ApplyTemplatePatch/${/name:\s*"((?:[^"\\]|\\.)*)"/.exec(text)?.[1] ?? '(unnamed)'}`;
      if (!row) unread.push({ test, why: why ?? 'unread' });
      else cases.push({ test, app: application(row.appTemplate), patch: String(row.templatePatch), expected: application(row.expectedApp) });
    }
  const error = /func TestError\([\s\S]*?applyTemplatePatch\(app, "((?:[^"\\]|\\.)*)"\)/.exec(goSource);
  if (error) cases.push({ test: 'TestError', app: {}, patch: error[1]! });
  return { cases, unread };
}

/** Each case's patch applied through the model, held to Argo CD's result (or its failure). */
export function templatePatchAgreement(cases: readonly TemplatePatchCase[], unread: readonly { test: string; why: string }[] = []): Agreement {
  const a = emptyAgreement();
  for (const c of cases) {
    let got: Obj | undefined;
    let failed: string | undefined;
    try {
      got = applyTemplatePatch(c.app, c.patch);
    } catch (err) {
      failed = (err as Error).message;
    }
    const ok = c.expected === undefined ? failed !== undefined : failed === undefined && isDeepStrictEqual(got, c.expected);
    const why =
      c.expected === undefined
        ? 'Argo CD fails the patch; the model applied it'
        : failed !== undefined
          ? `the model failed: ${failed}`
          : `made ${JSON.stringify(got)}, Argo CD ${JSON.stringify(c.expected)}`;
    count(a, { group: c.expected === undefined ? 'refused' : 'applied', ok, file: c.test, why });
  }
  for (const u of unread) count(a, { group: 'not read', ok: false, file: u.test, why: `not read: ${u.why}` });
  return a;
}

/**
 * gitops-engine's hook tests (Argo CD's gitops-engine/pkg/sync/hook: hook_test.go, delete_policy_test.go,
 * helm/hook_test.go, helm/type_test.go, helm/delete_policy_test.go) judged through the model's reading of hooks
 * (model/controller/hooks.ts): each assertion on IsHook, Skip, Types or DeletePolicies of an object the test builds with
 * its helpers (NewPod, NewCRD, Annotate, example) is a case. A test whose objects or values come from a loop is
 * counted apart, never guessed.
 */
import { deletePolicies, HELM_DELETE_POLICIES, helmDeletePolicies, helmHookTypes, hookTypes, isSkipped, isSyncHook } from '../../model/controller/hooks.ts';
import { HELM_HOOK_PHASES } from '../../model/controller/waves.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { blockAt, GoParser, GoUnsupported, tokenize } from './go-literals.ts';

type Obj = { metadata: { annotations: Record<string, string> } };

/** The functions under test, by the name the tests call them: the hook package's, and the helm package's own. */
const UNDER_TEST: Record<string, (o: Obj) => unknown> = {
  IsHook: isSyncHook,
  Skip: isSkipped,
  Types: hookTypes,
  DeletePolicies: deletePolicies,
};
const UNDER_TEST_HELM: Record<string, (o: Obj) => unknown> = {
  IsHook: isSyncHook,
  Types: helmHookTypes,
  DeletePolicies: helmDeletePolicies,
};

/** The helm package's constants, as the annotation values they stand for. */
const HELM_NAMES: Record<string, string> = {
  PreInstall: 'pre-install',
  PreUpgrade: 'pre-upgrade',
  PostInstall: 'post-install',
  PostUpgrade: 'post-upgrade',
  BeforeHookCreation: 'before-hook-creation',
  HookSucceeded: 'hook-succeeded',
  HookFailed: 'hook-failed',
};

const annotate = (o: Obj, key: string, value: string): Obj => ({ metadata: { annotations: { ...o.metadata.annotations, [key]: value } } });
const sorted = (v: unknown) => (Array.isArray(v) ? [...(v as string[])].sort() : v);

/** One test function's assertions, each judged; what the reader cannot follow throws GoUnsupported. */
function judge(body: string, helm: boolean, record: (ok: boolean, what: string) => void): void {
  const vars = new Map<string, unknown>();
  const value = (name: string): unknown => {
    if (name === 't' || name === 'nil') return name === 'nil' ? null : undefined;
    if (vars.has(name)) return vars.get(name);
    const constant = /^common\.(?:HookType|HookDeletePolicy)(\w+)$/.exec(name)?.[1];
    if (constant) return constant;
    if (helm && HELM_NAMES[name]) return HELM_NAMES[name];
    throw new GoUnsupported(name);
  };
  const call = (name: string, args: unknown[]): unknown => {
    if (name === 'testingutils.NewPod' || name === 'testingutils.NewCRD' || name === 'NewPod' || name === 'NewCRD') return { metadata: { annotations: {} } };
    if (name === 'testingutils.Annotate' || name === 'Annotate') return annotate(args[0] as Obj, args[1] as string, args[2] as string);
    if (name === 'example') return annotate({ metadata: { annotations: {} } }, 'argocd.argoproj.io/hook', args[0] as string);
    const fn = (helm ? UNDER_TEST_HELM : UNDER_TEST)[name];
    if (fn) return { under: name, got: fn(args[0] as Obj) };
    // A helm constant's HookType() and DeletePolicy(): the model's mapping of the value it stands for.
    const method = helm ? /^(\w+)\.(HookType|DeletePolicy)$/.exec(name) : null;
    if (method && HELM_NAMES[method[1]!])
      return { under: `${method[1]}.${method[2]}`, got: (method[2] === 'HookType' ? HELM_HOOK_PHASES : HELM_DELETE_POLICIES)[HELM_NAMES[method[1]!]!] };
    const assert = /^assert\.(True|False|Nil|Empty|Equal|ElementsMatch)$/.exec(name)?.[1];
    if (!assert) throw new GoUnsupported(name);
    const result = args[args.length - 1] as { under?: string; got: unknown };
    if (!result?.under) throw new GoUnsupported(`${name} of no function under test`);
    // A helm type is a value of its own type in Go: its Types answer the helm names, which the model answers mapped.
    const expected = assert === 'True' ? true : assert === 'False' ? false : assert === 'Nil' || assert === 'Empty' ? [] : args[1];
    const got = result.got;
    const ok =
      assert === 'ElementsMatch' ? JSON.stringify(sorted(expected)) === JSON.stringify(sorted(got)) : JSON.stringify(expected ?? []) === JSON.stringify(got);
    record(
      ok,
      `${result.under}: the test ${assert === 'Nil' ? 'expects nil' : `expects ${JSON.stringify(expected)}`}, the model answers ${JSON.stringify(got)}`,
    );
    return undefined;
  };
  for (const statement of body.split('\n').map((l) => l.trim())) {
    if (statement === '' || statement.startsWith('//') || statement === 't.Parallel()') continue;
    const assign = /^(\w+) :?= (.+)$/.exec(statement);
    const parse = (text: string) => {
      const p = new GoParser(tokenize(text), { value, call });
      const v = p.expr();
      if (!p.done()) throw new GoUnsupported(text);
      return v;
    };
    if (assign) vars.set(assign[1]!, parse(assign[2]!));
    else parse(statement);
  }
}

/** The cases of one test file: every assertion of every test function, or the function counted apart. */
export function hookTestAgreement(files: readonly { name: string; go: string }[]): { agreement: Agreement; notFollowed: string[] } {
  const agreement = emptyAgreement();
  const notFollowed: string[] = [];
  for (const { name, go } of files)
    for (const m of go.matchAll(/^func (Test\w+)\(t \*testing\.T\) \{/gm)) {
      const cases: { ok: boolean; what: string }[] = [];
      try {
        judge(blockAt(go, m.index + m[0].length - 1), name.startsWith('helm/'), (ok, what) => cases.push({ ok, what }));
      } catch (err) {
        if (!(err instanceof GoUnsupported)) throw err;
        notFollowed.push(`${name} ${m[1]}: ${err.message}`);
        continue;
      }
      for (const c of cases) count(agreement, { group: `${name} ${m[1]}`, ok: c.ok, file: name, why: `${m[1]}: ${c.what}` });
    }
  return { agreement, notFollowed };
}

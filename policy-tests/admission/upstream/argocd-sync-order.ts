/**
 * gitops-engine's own cases of the order a sync applies its tasks in (gitops-engine/pkg/sync/sync_tasks_test.go:
 * TestSortSyncTask's sortedTasks, and the tests that sort named tasks, a Namespace or a CRD moved ahead of what needs
 * it), judged through the model's order (model/controller/waves.ts: `syncStep`, `adjustedSteps`, which moves a
 * Namespace or CRD as adjustDeps does, and `stepBefore`). Each test's expected order is held to the model's: no task the model puts strictly before another comes after it, and every
 * two tasks upstream tells apart by phase, wave or kind (not by name alone, which the model leaves open) the model
 * orders the same way. A task literal this reader cannot follow makes its test counted apart.
 */
import { adjustedSteps, kindRank, stepBefore, SYNC_PHASES, syncStep, type SyncStep } from '../../model/controller/waves.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { obj, type Obj } from '../../model/core/dig.ts';
import { str } from '../../model/argocd/app-source.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { asJson, blockAt, GoParser, GoUnsupported, tokenize } from './go-literals.ts';

export interface SortCase {
  test: string;
  /** The tasks in the order upstream expects them. */
  tasks: SyncStep[];
}

/** gitops-engine's phase constants (`common.SyncPhasePreSync`, ...) by the phase each names. */
const PHASES: Record<string, string> = Object.fromEntries(SYNC_PHASES.map((p) => [`common.SyncPhase${p}`, p]));

const ENV = {
  value: (name: string): unknown => {
    if (name in PHASES) return PHASES[name];
    throw new GoUnsupported(`unknown identifier ${name}`);
  },
  call: (name: string): unknown => {
    if (name === 'corev1.SchemeGroupVersion.String') return 'v1';
    throw new GoUnsupported(`unknown call ${name}`);
  },
};

const text = (v: unknown): string => str(v) ?? '';

/** One `syncTask` literal as the model's step: its target object read as a resource, in its own namespace, its phase the task's. */
function stepOf(task: Obj): SyncStep {
  const object = obj(obj(task.targetObj).Object);
  const metadata = obj(object.metadata);
  const resource = {
    apiVersion: text(object.apiVersion),
    kind: text(object.kind),
    name: text(metadata.name),
    object,
  } as unknown as Resource;
  // gitops-engine reads a task's phase from the task (its hooks set it), and a resource's namespace as written.
  const step = syncStep(resource, text(metadata.namespace) || undefined);
  return { ...step, phase: (typeof task.phase === 'string' ? task.phase : 'Sync') as SyncStep['phase'] };
}

const parse = (literal: string): unknown => asJson(new GoParser(tokenize(literal), ENV).expr());

/** The cases of sync_tasks_test.go, and the tests this reader cannot follow. */
export function sortCases(src: string): { cases: SortCase[]; unread: { test: string; why: string }[] } {
  const cases: SortCase[] = [];
  const unread: { test: string; why: string }[] = [];
  const attempt = (test: string, read: () => SyncStep[]) => {
    try {
      cases.push({ test, tasks: read() });
    } catch (err) {
      if (!(err instanceof GoUnsupported)) throw err;
      unread.push({ test, why: err.message });
    }
  };
  const sorted = src.indexOf('var sortedTasks = syncTasks{');
  if (sorted !== -1)
    attempt('TestSortSyncTask', () => {
      const open = src.indexOf('{', sorted);
      return (parse(`[]syncTask{${blockAt(src, open)}}`) as Obj[]).map(stepOf);
    });
  for (const m of src.matchAll(/^func (Test\w*Sort\w*|TestSyncNamespaceAgainstCRD)\(t \*testing\.T\) \{/gm)) {
    const body = blockAt(src, m.index + m[0].length - 1);
    const expected = /assert\.Equal\(t, syncTasks\{([\w, ]+)\}, unsorted\)/.exec(body);
    if (!expected) continue;
    attempt(m[1]!, () =>
      expected[1]!.split(',').map((name) => {
        const at = body.search(new RegExp(`\\b${name.trim()} := &syncTask\\{`));
        if (at === -1) throw new GoUnsupported(`task ${name.trim()} is not a literal`);
        return stepOf(obj(parse(`syncTask{${blockAt(body, body.indexOf('{', at))}}`)));
      }),
    );
  }
  return { cases, unread };
}

/** What upstream's sort tells two tasks apart by before their names: phase, wave, kind. */
const key = (s: SyncStep): string => `${SYNC_PHASES.indexOf(s.phase)}/${s.wave}/${kindRank(s.rankAs ?? s.kind)}`;

/** Each test: upstream's order agrees with the model's, both ways. */
export function sortAgreement(cases: readonly SortCase[]): Agreement {
  const a = emptyAgreement();
  for (const c of cases) {
    const wrong: string[] = [];
    // The model's places: its sort of the test's tasks, a Namespace or CRD moved ahead of its first user.
    const tasks = adjustedSteps(c.tasks);
    tasks.forEach((x, i) =>
      tasks.slice(i + 1).forEach((y, d) => {
        const j = i + 1 + d;
        if (stepBefore(y, x)) wrong.push(`the model puts ${j} before ${i}`);
        else if (key(x) !== key(y) && !stepBefore(x, y)) wrong.push(`the model does not put ${i} before ${j}`);
      }),
    );
    count(a, { group: 'syncTasks.Sort', ok: wrong.length === 0, file: c.test, why: wrong.join('; ') });
  }
  return a;
}

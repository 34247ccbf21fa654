/**
 * Argo CD's own cases of what the ApplicationSet controller refuses of the Applications it generated
 * (applicationset/controllers/applicationset_controller_test.go: TestValidateGeneratedApplications), judged through
 * the model (model/appset/validation.ts). The test's fixture, as it builds it: the project `default` in the
 * controller's namespace, and one cluster Secret naming the local API server `my-cluster`; each row gives the
 * Applications and the errors expected by qualified name. A row this reader cannot follow is counted apart.
 */
import { generatedApplicationErrors, type GeneratedApplication } from '../../model/appset/validation.ts';
import { obj } from '../../model/core/dig.ts';
import { str } from '../../model/argocd/app-source.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { blockAt, GoUnsupported, structTableRows } from './go-literals.ts';

const TEST = 'TestValidateGeneratedApplications';

/** The test's fixture: its AppProject and its cluster Secret (name my-cluster, server https://kubernetes.default.svc). */
const FIXTURE = {
  projects: new Set(['default']),
  clusters: [{ server: 'https://kubernetes.default.svc', name: 'my-cluster' }],
  clustersWritten: false,
};

export interface ValidationCase {
  test: string;
  apps: GeneratedApplication[];
  errors: Record<string, string>;
}

const ENV = {
  value: (name: string): unknown => {
    throw new GoUnsupported(`unknown identifier ${name}`);
  },
  call: (name: string, args: unknown[]): unknown => {
    if (name === 'errors.New' && typeof args[0] === 'string') return args[0];
    throw new GoUnsupported(`unknown call ${name}`);
  },
};

const text = (v: unknown): string => str(v) ?? '';

/** The rows of TestValidateGeneratedApplications (its table is ranged over in place: read as if named), and those not read. */
export function appSetValidationCases(src: string): { cases: ValidationCase[]; unread: { test: string; why: string }[] } {
  const start = src.indexOf(`func ${TEST}(`);
  if (start === -1) return { cases: [], unread: [{ test: TEST, why: 'not in this file' }] };
  const body = blockAt(src, src.indexOf('{', start)).replace(/for _, cc := range \[\]struct \{/, 'cc := []struct {');
  const cases: ValidationCase[] = [];
  const unread: { test: string; why: string }[] = [];
  structTableRows(body, /cc/, ENV).forEach(({ text: rowText, row, why }, i) => {
    const test = `${TEST}/${/name:\s*"([^"]*)"/.exec(rowText)?.[1] ?? `case ${i}`}`;
    if (!row) {
      unread.push({ test, why: why! });
      return;
    }
    const apps = (Array.isArray(row.apps) ? row.apps : []).map((a): GeneratedApplication => {
      const meta = obj(obj(a).ObjectMeta);
      const spec = obj(obj(a).Spec);
      const destination = obj(spec.Destination);
      return {
        name: text(meta.Name),
        namespace: text(meta.Namespace),
        project: text(spec.Project),
        destination: { ...(destination.Server ? { server: text(destination.Server) } : {}), ...(destination.Name ? { name: text(destination.Name) } : {}) },
      };
    });
    cases.push({ test, apps, errors: Object.fromEntries(Object.entries(obj(row.validationErrors)).map(([k, v]) => [k, text(v)])) });
  });
  return { cases, unread };
}

/** Each row judged: the same qualified names refused, each with the same error. */
export function appSetValidationAgreement(cases: readonly ValidationCase[]): Agreement {
  const a = emptyAgreement();
  for (const c of cases) {
    const got = Object.fromEntries(generatedApplicationErrors('', c.apps, FIXTURE));
    const byKey = (m: Record<string, string>) => JSON.stringify(Object.entries(m).sort(([x], [y]) => x.localeCompare(y)));
    const same = byKey(got) === byKey(c.errors);
    count(a, { group: TEST, ok: same, file: c.test, why: `the model refuses ${JSON.stringify(got)}, Argo CD ${JSON.stringify(c.errors)}` });
  }
  return a;
}

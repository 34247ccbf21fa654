/**
 * Argo CD's own cases of an ApplicationSet's template rendering (applicationset/utils/utils_test.go,
 * TestRenderTemplateParams and TestRenderTemplateParamsGoTemplate), judged through the gate's reading
 * (model/appset/template.ts) and, for Go templates, the engine the gate renders them with (injected: the render tier's,
 * Helm's text/template and sprig). Each row sets one string of an Application's template, renders it with a
 * parameter set, and expects a text or an error. A row the gate declines to judge by design (where Helm's engine and
 * Argo CD's would part, a key the parameters lack) is counted apart, and so is one this reader cannot follow (a Go
 * value it does not read as a literal).
 */
import { fastReplace, goTemplateVerdict } from '../../model/appset/template.ts';
import type { GoTemplateEngine } from '../../model/appset/expand.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';
import { blockAt, GoUnsupported, structTableRows } from './go-literals.ts';

type Obj = Record<string, unknown>;

const TESTS = { TestRenderTemplateParams: false, TestRenderTemplateParamsGoTemplate: true } as const;

export interface TemplateCase {
  test: string;
  goTemplate: boolean;
  fieldVal: string;
  params: Obj;
  expectedVal: string;
  errorMessage?: string;
  templateOptions: string[];
}

const NO_NAMES = {
  value: (name: string): unknown => {
    throw new GoUnsupported(`unknown identifier ${name}`);
  },
  call: (name: string): unknown => {
    throw new GoUnsupported(`unknown call ${name}`);
  },
};

/** The cases of both tests, and the rows this reader cannot follow, each with why. */
export function applicationSetTemplateCases(goSource: string): { cases: TemplateCase[]; unread: { test: string; why: string }[] } {
  const cases: TemplateCase[] = [];
  const unread: { test: string; why: string }[] = [];
  for (const [test, goTemplate] of Object.entries(TESTS)) {
    const start = goSource.indexOf(`func ${test}(`);
    if (start === -1) continue;
    for (const { row, text, why } of structTableRows(blockAt(goSource, goSource.indexOf('{', start)), /tests/, NO_NAMES)) {
      const name = `${test}/${/name:\s*"([^"]*)"/.exec(text)?.[1] ?? '?'}`;
      if (!row) {
        unread.push({ test: name, why: why! });
        continue;
      }
      cases.push({
        test: name,
        goTemplate,
        fieldVal: typeof row.fieldVal === 'string' ? row.fieldVal : '',
        params: (row.params ?? {}) as Obj,
        expectedVal: typeof row.expectedVal === 'string' ? row.expectedVal : '',
        ...(typeof row.errorMessage === 'string' && row.errorMessage !== '' ? { errorMessage: row.errorMessage } : {}),
        templateOptions: Array.isArray(row.templateOptions) ? row.templateOptions.map(String) : [],
      });
    }
  }
  return { cases, unread };
}

/** What the gate makes of one case: a text, Argo CD's failure, or declined by design. */
async function gateReading(c: TemplateCase, engine: GoTemplateEngine): Promise<{ text?: string; fails?: string; declined?: string }> {
  // RenderTemplateParams returns the template as it is for an empty parameter set.
  if (Object.keys(c.params).length === 0) return { text: c.fieldVal };
  if (!c.goTemplate) {
    try {
      return { text: fastReplace(c.fieldVal, c.params) };
    } catch (err) {
      return { fails: (err as Error).message };
    }
  }
  const verdict = goTemplateVerdict(c.fieldVal, c.params, c.templateOptions);
  if (verdict.fails) return { fails: verdict.fails };
  if (verdict.unjudged) return { declined: verdict.unjudged };
  try {
    return { text: (await engine([{ template: c.fieldVal, params: c.params }]))[0] };
  } catch (err) {
    return { fails: (err as Error).message };
  }
}

export interface TemplateAgreement extends Agreement {
  declinedByDesign: { test: string; why: string }[];
}

/** Each case judged: the same text, or a failure where Argo CD fails (its message need not be the same words). */
export async function applicationSetTemplateAgreement(cases: readonly TemplateCase[], engine: GoTemplateEngine): Promise<TemplateAgreement> {
  const a: TemplateAgreement = { ...emptyAgreement(), declinedByDesign: [] };
  for (const c of cases) {
    const got = await gateReading(c, engine);
    if (got.declined) {
      a.declinedByDesign.push({ test: c.test, why: got.declined });
      continue;
    }
    const ok = c.errorMessage !== undefined ? got.fails !== undefined : got.text === c.expectedVal;
    const said = got.fails !== undefined ? `fails: ${got.fails}` : JSON.stringify(got.text);
    const wanted = c.errorMessage !== undefined ? `fails: ${c.errorMessage}` : JSON.stringify(c.expectedVal);
    count(a, { group: c.goTemplate ? 'goTemplate' : 'fasttemplate', ok, file: c.test, why: `Argo CD ${wanted}; the gate ${said}` });
  }
  return a;
}

/**
 * Argo CD's own health script cases (resource_customizations/<group>/<kind>/health_test.yaml at the pinned tag, as
 * util/lua/health_test.go `TestLuaHealthScript` runs them: the built-in script `GetHealthScript` finds for each
 * test's object, with the open libraries), read as data and judged through the gate's Lua runner (model/compare/health-lua.ts, fengari's Lua
 * 5.3 where Argo CD runs gopher-lua's 5.1): the status and the message each script returns, held to the test's.
 * A test whose object this reader cannot read is counted apart.
 */
import { runHealthLua } from '../../model/compare/health-lua.ts';
import { parseAllDocuments, type Document } from 'yaml';
import { readYaml11 } from '../../model/appset/params.ts';
import { readAsGo } from '../../model/yaml/go-quoted.ts';
import { goFilepathMatch } from '../../model/core/glob.ts';
import { isMap } from '../../model/core/dig.ts';
import { jsonFieldOf } from '../../model/go/json.ts';
import { count, emptyAgreement, type Agreement } from './agreement.ts';

export interface HealthScriptDir {
  /** The folder under resource_customizations, `<group>/<kind>`. */
  dir: string;
  script: string;
  testYaml: string;
  /** A test's input file, by its path in the folder, or undefined where it is not there. */
  read(path: string): string | undefined;
}

export interface HealthCase {
  test: string;
  script: string;
  object: unknown;
  status: string;
  message: string;
}

/** The value encoding/json decodes into a struct field without a JSON tag: the key of its name, in any case. */
const field = (o: unknown, name: string): unknown => {
  if (!isMap(o)) return undefined;
  const key = Object.keys(o).find((k) => jsonFieldOf({ [name]: true }, k) === name);
  return key === undefined ? undefined : o[key];
};

const asText = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

/** A test's object as sigs.k8s.io/yaml reads it: the first document, YAML 1.1, a quoted scalar's lines at any indentation. */
function firstDocument(text: string): unknown {
  const [doc] = readAsGo(
    text,
    (t) => parseAllDocuments(t, { version: '1.1', uniqueKeys: false }) as Document[],
    ([first]) => (first?.errors.length ?? 0) > 0,
  );
  if (!doc) return null;
  if (doc.errors.length > 0) throw new Error(doc.errors[0]!.message.split('\n')[0]);
  return doc.toJS({ maxAliasCount: 100 });
}

/**
 * The script `GetHealthScript` finds for an object among the built-in ones: its own `<group>/<kind>` folder (the kind
 * alone for the core group), else the first folder whose name, `_` read as `*`, matches as a path pattern.
 */
function scriptFor(object: unknown, dirs: readonly HealthScriptDir[]): string | undefined {
  const o = (object ?? {}) as { apiVersion?: unknown; kind?: unknown };
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const key = group ? `${group}/${String(o.kind)}` : String(o.kind);
  return (
    dirs.find((d) => d.dir === key) ??
    [...dirs].sort((a, b) => (a.dir < b.dir ? -1 : 1)).find((d) => d.dir.includes('_') && goFilepathMatch(d.dir.replaceAll('_', '*'), key))
  )?.script;
}

/** Each folder's tests, with the object each reads and the script Argo CD finds for it. */
export function healthCases(dirs: readonly HealthScriptDir[]): { cases: HealthCase[]; unread: { test: string; why: string }[] } {
  const cases: HealthCase[] = [];
  const unread: { test: string; why: string }[] = [];
  for (const d of dirs) {
    const tests = field(readYaml11(d.testYaml), 'tests');
    for (const t of Array.isArray(tests) ? tests : []) {
      // The test's struct fields have no JSON tags: encoding/json matches a key in any case (`inputpath` too).
      const inputPath = field(t, 'inputPath');
      const status = field(t, 'healthStatus');
      const test = `${d.dir}/${typeof inputPath === 'string' ? inputPath : '(no input)'}`;
      const text = typeof inputPath === 'string' ? d.read(inputPath) : undefined;
      if (text === undefined) {
        unread.push({ test, why: 'its input is not in the checkout' });
        continue;
      }
      try {
        const object = firstDocument(text);
        const script = scriptFor(object, dirs);
        if (script === undefined) unread.push({ test, why: 'Argo CD finds no built-in script for its kind' });
        else cases.push({ test, script, object, status: asText(field(status, 'status')), message: asText(field(status, 'message')) });
      } catch (err) {
        unread.push({ test, why: `its input does not read: ${(err as Error).message.split('\n')[0]}` });
      }
    }
  }
  return { cases, unread };
}

/** Each test's script run through the gate's runner with the open libraries, as Argo CD's test runs it. */
export function healthAgreement(cases: readonly HealthCase[], unread: readonly { test: string; why: string }[] = []): Agreement {
  const a = emptyAgreement();
  for (const c of cases) {
    const run = runHealthLua(c.script, c.object, true);
    const got = 'error' in run ? `error: ${run.error}` : `${run.unknownStatus ? 'Unknown' : run.status}: ${run.message}`;
    const want = `${c.status}: ${c.message}`;
    count(a, { group: c.status || '(none)', ok: got === want, file: c.test, why: `gives ${JSON.stringify(got)}, Argo CD ${JSON.stringify(want)}` });
  }
  for (const u of unread) count(a, { group: 'not read', ok: false, file: u.test, why: `not read: ${u.why}` });
  return a;
}

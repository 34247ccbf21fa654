/**
 * An ApplicationSet's template made into Applications, as Argo CD's controller renders it (applicationset/utils
 * utils.go `RenderTemplateParams`, v3.5.1): every string of the template, and every key of a map in it, is rendered
 * on its own with one parameter set. Without `goTemplate` by fasttemplate (`{{path.basename}}`: a tag the set names
 * is replaced, any other is left as written), here. With it by Go's text/template and sprig: the gate hands those
 * strings to the render tier, which runs the real engine (Helm's), and this module says beforehand where that engine
 * and Argo CD's would part: a key the parameters lack (Argo CD writes `<no value>` or, with `missingkey=error`, fails
 * the ApplicationSet; Helm's engine writes nothing), and a function only one of the two has.
 */
import { isMap, type Obj } from '../core/dig.ts';
import type { Params } from './params.ts';

/** Go's regexp `.*{{.*}}.*` (utils.go isTemplatedRegex): `.` stops at a line end, so both braces must share a line. */
const TEMPLATED = /\{\{.*\}\}/;

/** Argo CD's Replace without goTemplate: fasttemplate with `{{` `}}`, a tag's spaces trimmed, a string parameter put in. */
export function fastReplace(template: string, params: Params): string {
  if (!TEMPLATED.test(template)) return template;
  let out = '';
  let rest = template;
  for (;;) {
    const start = rest.indexOf('{{');
    if (start === -1) return out + rest;
    out += rest.slice(0, start);
    rest = rest.slice(start + 2);
    const end = rest.indexOf('}}');
    if (end === -1)
      throw new Error(`invalid template: Cannot find end tag="}}" in the template=${JSON.stringify(template)} starting from ${JSON.stringify(rest)}`);
    const tag = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const value = params[tag.trim()];
    out += tag.trim() !== '' && typeof value === 'string' ? value : `{{${tag}}}`;
  }
}

/** Every string of a template Go's engine must render: the values, and the keys of maps (labels, annotations, values objects). */
export function templatedStrings(template: unknown, out = new Set<string>()): Set<string> {
  if (typeof template === 'string') {
    if (template.includes('{{')) out.add(template);
  } else if (Array.isArray(template)) template.forEach((v) => templatedStrings(v, out));
  else if (isMap(template))
    for (const [k, v] of Object.entries(template)) {
      if (k.includes('{{')) out.add(k);
      templatedStrings(v, out);
    }
  return out;
}

/** The template with each string and key put through `render` (deeplyReplace): a string without braces is itself in either engine. */
export function renderTemplate(template: unknown, render: (text: string) => string): unknown {
  if (typeof template === 'string') return template.includes('{{') ? render(template) : template;
  if (Array.isArray(template)) return template.map((v) => renderTemplate(v, render));
  if (!isMap(template)) return template;
  const out: Obj = {};
  for (const [k, v] of Object.entries(template)) {
    // A null in a map is dropped (deeplyReplace skips nil values).
    if (v === null) continue;
    out[k.includes('{{') ? render(k) : k] = renderTemplate(v, render);
  }
  return out;
}

/**
 * Functions where the engines part: Argo CD's engine has normalize and slugify and Helm's has not; Helm's fromYaml and
 * fromYamlArray write a text that does not read into an `Error` key, where Argo CD's fail. A template calling one is
 * not judged.
 */
const PARTING = new Map([
  ['normalize', "the gate's Go template engine (Helm's) lacks it"],
  ['slugify', "the gate's Go template engine (Helm's) lacks it"],
  ['fromYaml', "Helm's answers YAML it cannot read with an Error key, where Argo CD's fails the ApplicationSet"],
  ['fromYamlArray', "Helm's answers YAML it cannot read with the error as its item, where Argo CD's fails the ApplicationSet"],
]);
/** Functions Helm's engine has and Argo CD's has not (or takes out): Argo CD fails to parse a template calling one. */
const NOT_IN_ARGO = new Set([
  'include',
  'tpl',
  'required',
  'lookup',
  'toToml',
  'fromToml',
  'fromJson',
  'fromJsonArray',
  'toYamlPretty',
  'mustToToml',
  'env',
  'expandenv',
  'getHostByName',
]);
/** Actions that give `.` another value, after which a field is not read from the parameters. */
const REBINDS = /\b(range|with|define|template|block)\b/;

export interface GoTemplateVerdict {
  /** Argo CD's controller fails the ApplicationSet with this. */
  fails?: string;
  /** The two engines may part here: not judged. */
  unjudged?: string;
}

/** The actions of a Go template (`{{ ... }}`), trim markers and comments taken out: as written, and with string literals blanked. */
function actionsOf(template: string): { raw: string; blanked: string }[] {
  const out: { raw: string; blanked: string }[] = [];
  const re = /\{\{(.*?)\}\}/gs;
  for (let m = re.exec(template); m; m = re.exec(template)) {
    const raw = m[1]!
      .replace(/\/\*.*?\*\//gs, ' ')
      .replace(/^-\s|\s-$/g, ' ')
      .trim();
    out.push({ raw, blanked: raw.replace(/"(?:[^"\\]|\\.)*"|`[^`]*`|'(?:[^'\\]|\\.)*'/g, '""') });
  }
  return out;
}

/**
 * An action that is `index` of a field chain by string keys alone, where a key is missing: Go's index answers a missing
 * key with nil whatever missingkey says, which Argo CD prints `<no value>` and Helm's engine nothing.
 */
function missingIndex(raw: string, params: Params): string | undefined {
  const m = /^index\s+(\$?(?:\.[A-Za-z_]\w*)+)((?:\s+"(?:[^"\\]|\\.)*")+)$/.exec(raw);
  if (!m) return undefined;
  let at: unknown = params;
  for (const field of m[1]!.replace(/^\$/, '').split('.').slice(1)) at = isMap(at) ? at[field] : undefined;
  for (const literal of m[2]!.match(/"(?:[^"\\]|\\.)*"/g) ?? []) {
    const key = JSON.parse(literal) as string;
    if (!isMap(at)) return undefined;
    if (!Object.hasOwn(at, key) || at[key] === null) return key;
    at = at[key];
  }
  return undefined;
}

/** What a field chain (`.path.basename`, `$.x`) reads in the parameters: found, missing, or not a map on the way (both engines fail alike). */
function chainIn(params: Params, chain: string): { read: 'found' | 'missing' | 'deeper' | 'other'; field?: string } {
  let at: unknown = params;
  const fields = chain.replace(/^\$/, '').split('.').slice(1);
  for (const [i, field] of fields.entries()) {
    if (!isMap(at)) return { read: 'other' };
    if (!Object.hasOwn(at, field) || at[field] === null) return { read: i < fields.length - 1 ? 'deeper' : 'missing', field };
    at = at[field];
  }
  return { read: 'found' };
}

/**
 * Where Argo CD's text/template run and Helm's would part on this template and these parameters, or nothing. A field
 * the parameters lack: with `missingkey=error` Argo CD fails; otherwise it prints `<no value>` where the action is the
 * field alone, and a missing field read further (`.a.b` without `a`) prints `<no value>` there and fails Helm.
 */
export function goTemplateVerdict(template: string, params: Params, options: readonly string[]): GoTemplateVerdict {
  const missingError = options.some((o) => o.replace(/\s/g, '') === 'missingkey=error');
  const actions = actionsOf(template);
  const rebinds = actions.some((a) => REBINDS.test(a.blanked));
  for (const { raw, blanked: action } of actions) {
    const indexed = missingIndex(raw, params);
    if (indexed !== undefined) return { unjudged: `index finds no key "${indexed}" in every parameter set: Argo CD writes <no value> there` };
    for (const name of action.match(/(?<![\w.$])[A-Za-z_]\w*/g) ?? []) {
      if (NOT_IN_ARGO.has(name)) return { fails: `failed to parse template ${template}: function "${name}" not defined` };
      if (PARTING.has(name)) return { unjudged: `it calls ${name}: ${PARTING.get(name)}` };
    }
    for (const m of action.matchAll(/(?<![\w.)\]])(\$?(?:\.[A-Za-z_]\w*)+)/g)) {
      const chain = m[1]!;
      const { read, field } = chainIn(params, chain);
      if (read === 'found' || read === 'other') continue;
      if (rebinds && !chain.startsWith('$')) return { unjudged: `${chain} may read another value than the parameters (range, with or template)` };
      if (missingError) return { fails: `failed to execute go template ${template}: map has no entry for key "${field}"` };
      if (read === 'deeper' || action === chain) return { unjudged: `${chain} is not in every parameter set: Argo CD writes <no value> there` };
    }
  }
  return {};
}

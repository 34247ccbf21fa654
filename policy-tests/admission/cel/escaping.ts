/**
 * Property names as a CRD rule spells them (k8s.io/apiserver/pkg/cel/escaping.go): a name that is not a CEL
 * identifier is reached through its escaped form, `self.foo__dash__bar` for the property `foo-bar`, and a CEL
 * keyword through `__keyword__`. Unescaping turns the spelling back into the property's name.
 */
const RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);
const ESCAPES: Record<string, string> = { underscores: '__', dot: '.', dash: '-', slash: '/' };

/** The property a rule's spelling names, or undefined when it escapes nothing. */
export function unescapeProperty(spelled: string): string | undefined {
  const keyword = /^__([a-z]+)__$/.exec(spelled);
  if (keyword && RESERVED.has(keyword[1]!)) return keyword[1];
  if (!spelled.includes('__')) return undefined;
  const out = spelled.replace(/__(underscores|dot|dash|slash)__/g, (_, name: string) => ESCAPES[name]!);
  return out === spelled ? undefined : out;
}

/**
 * The port of Alloy v1.18.1's scanner and parser (model/alloy/parser.ts) where its own test files say little: the
 * terminators it inserts, a comment that ends a line, labels, and the errors a hand-edited configuration meets.
 * `npm run conformance -- --alloy <checkout>` holds it to Alloy's own parser tests.
 */
import { describe, expect, it } from 'vitest';
import { parseAlloy } from '../../model/alloy/parser.ts';
import { isValidIdentifier } from '../../model/alloy/scanner.ts';
import { alloyBlockProblems, alloyComponentsOf } from '../../model/alloy/components.ts';
import { argumentProblems } from '../../model/alloy/arguments.ts';
import { bodyTraversals, referenceProblems } from '../../model/alloy/references.ts';

const errors = (text: string) => parseAlloy(text).errors.map((e) => `${e.line}: ${e.message}`);

describe("Alloy's syntax", () => {
  it('reads blocks, labels, attributes, multi-line lists with their trailing comma, and comments ending a line', () => {
    const text = `// logs\nloki.write "default" { // the store\n  endpoint {\n    url = "http://loki:3100" /* inline */\n    headers = {\n      "X-Scope-OrgID" = "lab",\n    }\n  }\n  external_labels = { cluster = "home" }\n}\nlocal.file_match "pods" {\n  path_targets = [\n    {"__path__" = "/var/log/*.log"},\n  ]\n}\n`;
    const { body, errors: found } = parseAlloy(text);
    expect(found).toEqual([]);
    expect(body.map((s) => (s.kind === 'block' ? `${s.name.join('.')} ${s.label}` : s.name))).toEqual(['loki.write default', 'local.file_match pods']);
  });

  it("reports what a hand edit breaks, in Alloy's words", () => {
    // The scanner makes a single-quoted string an ILLEGAL token, so the parser finds no label.
    expect(errors(`loki.write 'default' {\n}\n`)).toEqual(['1: illegal single-quoted string; use double quotes', '1: expected block label, got ILLEGAL']);
    expect(errors(`loki.write "my-store" {\n}\n`)).toEqual(['1: expected block label to be a valid identifier, but got "my-store"']);
    expect(errors(`a "b" {\n  x = [1, 2\n  y = 3\n}\n`)[0]).toBe("2: missing ',' in expression list");
    expect(errors(`a "b" {\n  url = "http://x\n}\n`)[0]).toBe('2: string literal not terminated');
    expect(errors(`a.b = 1\n`)).toEqual(['1: attribute names may only consist of a single identifier with no "."']);
  });

  it('knows an identifier as its scanner does', () => {
    expect(isValidIdentifier('pods_1')).toBe(true);
    expect(isValidIdentifier('1pods')).toBe(false);
    expect(isValidIdentifier('my-store')).toBe(false);
  });
});

describe("Alloy's loader, over the top-level blocks", () => {
  const REF = {
    version: '1.18.1',
    chartVersion: '1.11.1',
    components: {
      'loki.write': { stability: 'generally-available' as const },
      'loki.secretfilter': { stability: 'experimental' as const },
      'otelcol.receiver.googlecloudpubsub': { community: true },
    },
    services: ['http'],
    schemas: {},
  };
  const problems = (text: string, o: { minStability?: 'experimental' | 'generally-available'; community?: boolean } = {}) => {
    const { body } = parseAlloy(text);
    return alloyBlockProblems(body, REF, { minStability: o.minStability ?? 'generally-available', community: o.community ?? false }).map((p) => p.message);
  };

  it("takes config, service, declared and imported blocks, and a component at the chart's stability level", () => {
    const text = `logging {\n}\nhttp {\n}\ndeclare "shipper" {\n}\nshipper "a" {\n}\nimport.file "lib" {\n}\nlib.thing "b" {\n}\nloki.write "default" {\n}\n`;
    expect(problems(text)).toEqual([]);
    expect(problems('loki.secretfilter "x" {\n}\n', { minStability: 'experimental' })).toEqual([]);
    expect(problems('otelcol.receiver.googlecloudpubsub "x" {\n}\n', { community: true })).toEqual([]);
  });

  it("refuses as the registry and the loader do, in Alloy's words", () => {
    expect(problems('loki.writ "default" {\n}\n')).toEqual(['cannot find the definition of component name "loki.writ"']);
    expect(problems('loki.write {\n}\n')).toEqual(['component "loki.write" must have a label']);
    expect(problems('loki.secretfilter "x" {\n}\n')[0]).toMatch(
      /^component "loki.secretfilter" is at stability level "experimental", which is below the minimum allowed stability level "generally-available"/,
    );
    expect(problems('otelcol.receiver.googlecloudpubsub "x" {\n}\n')[0]).toContain('is a community component');
    expect(problems('loki.write "a" {\n}\nloki.write "a" {\n}\n')).toEqual(['block loki.write.a already declared at line 1']);
  });
});

describe("Alloy's decoder on a component's body (syntax/vm/struct_decoder.go)", () => {
  const SCHEMAS = {
    'loki/write.Arguments': { endpoint: 'blocks loki/write.Endpoint', external_labels: 'attr', wal: 'block loki/write.Wal', forward_to: 'attr required' },
    'loki/write.Endpoint': { url: 'attr required', headers: 'attr', tls_config: 'block opaque', queue_config: 'block required loki/write.Queue' },
    'loki/write.Queue': { capacity: 'attr' },
    'loki/write.Wal': { enabled: 'attr' },
    'loki/process.Arguments': { forward_to: 'attr required', 'stage.json': 'enum loki/process.JSON', 'stage.match': 'enum loki/process.Match' },
    'loki/process.JSON': { expressions: 'attr required' },
    'loki/process.Match': { selector: 'attr required', 'stage.json': 'enum loki/process.JSON' },
    'rule.Labelled': { '(label)': 'label', name: 'attr' },
    'rule.Arguments': { rule: 'blocks rule.Labelled' },
    'squashed.Arguments': { '(open)': 'open', known: 'attr' },
  };
  const problems = (text: string, schema: string) => {
    const { body, errors } = parseAlloy(text);
    expect(errors).toEqual([]);
    return argumentProblems(body, schema, SCHEMAS).map((p) => `${p.line}: ${p.message}`);
  };

  it('takes what the struct has, lists of blocks repeated, enum blocks in any order, an opaque block unread', () => {
    const text = `forward_to = []\nendpoint {\n  url = "a"\n  queue_config {\n  }\n  tls_config {\n    anything = 1\n  }\n}\nendpoint {\n  url = "b"\n  queue_config {\n  }\n}\n`;
    expect(problems(text, 'loki/write.Arguments')).toEqual([]);
    expect(
      problems(
        `forward_to = []\nstage.json {\n  expressions = {}\n}\nstage.match {\n  selector = "{}"\n  stage.json {\n    expressions = {}\n  }\n}\nstage.json {\n  expressions = {}\n}\n`,
        'loki/process.Arguments',
      ),
    ).toEqual([]);
  });

  it("refuses in Alloy's words: unknown names, the wrong kind, twice, labels, a required one missing", () => {
    const text = `forward_to = []\nforward_to = []\nendpoint {\n  uri = "a"\n  queue_config {\n  }\n}\nwal {\n}\nwal {\n}\nexternal_labels {\n}\nendpoint = 1\nmetrics {\n}\n`;
    expect(problems(text, 'loki/write.Arguments')).toEqual([
      '2: attribute "forward_to" may only be provided once',
      '4: unrecognized attribute name "uri"',
      '3: missing required attribute "url"',
      '8: block "wal" may only be specified once',
      '12: "external_labels" must be an attribute, but is used as a block',
      '14: "endpoint" must be a block, but is used as an attribute',
      '15: unrecognized block name "metrics"',
    ]);
    expect(problems(`endpoint {\n  url = "a"\n}\n`, 'loki/write.Arguments')).toEqual([
      '1: missing required block "queue_config"',
      '-1: missing required attribute "forward_to"',
    ]);
    expect(problems(`rule {\n}\nrule "a" {\n  name = "x"\n}\n`, 'rule.Arguments')).toEqual(['1: block "rule" requires non-empty label']);
    expect(problems(`wal "a" {\n}\nforward_to = []\n`, 'loki/write.Arguments')).toEqual(['1: block "wal" does not support specifying labels']);
    expect(problems(`stage.json {\n}\nforward_to = []\n`, 'loki/process.Arguments')).toEqual(['1: missing required attribute "expressions"']);
  });

  it('leaves unknown names alone where the struct squashes a type the reference could not read', () => {
    expect(problems(`known = 1\nother = 2\nblock {\n}\n`, 'squashed.Arguments')).toEqual([]);
  });
});

describe("the reference's schemas", () => {
  const doc = (schemas: unknown, args = 'loki/write.Arguments') => ({
    version: '1.18.1',
    components: { 'loki.write': { stability: 'generally-available', arguments: args } },
    services: [],
    schemas,
  });
  it('reads the kinds the decoder has a reading of, and refuses another kind or a schema it does not hold', () => {
    expect(alloyComponentsOf(doc({ 'loki/write.Arguments': { url: 'attr required', wal: 'block opaque', '(label)': 'label' } }))).not.toHaveProperty('problem');
    expect(alloyComponentsOf(doc({ 'loki/write.Arguments': { url: 'atr' } }))).toEqual({
      problem: 'schema loki/write.Arguments gives url the kind "atr", which the decoder has no reading of',
    });
    expect(alloyComponentsOf(doc({ 'loki/write.Arguments': { wal: 'block loki/write.Wal' } }))).toHaveProperty('problem');
    expect(alloyComponentsOf(doc({}, 'loki/write.Gone'))).toEqual({ problem: "component loki.write's arguments name no schema of the reference" });
  });

  it("reads an attribute's type where values.ts has a reading of it, each struct it names a schema it holds", () => {
    const types = { a: 'attr required list(list(duration))', b: 'attr object(loki/write.Wal)', c: 'attr secret', d: 'attr list(object(loki/write.Wal))' };
    expect(alloyComponentsOf(doc({ 'loki/write.Arguments': types, 'loki/write.Wal': { enabled: 'attr bool' } }))).not.toHaveProperty('problem');
    for (const kind of ['attr float', 'attr object(loki/write.Gone)', 'attr list(wat)', 'attr required string extra'])
      expect(alloyComponentsOf(doc({ 'loki/write.Arguments': { a: kind } })), kind).toEqual({
        problem: `schema loki/write.Arguments gives a the kind ${JSON.stringify(kind)}, which the decoder has no reading of`,
      });
  });
});

describe("Alloy's loader, over the references (internal/util/ast/references.go, component_references.go)", () => {
  const REF = {
    version: '1.18.1',
    chartVersion: '1.11.1',
    components: {
      'discovery.kubernetes': { stability: 'generally-available' as const, exports: 'discovery.Exports' },
      'loki.write': { stability: 'generally-available' as const, exports: 'write.Exports' },
      'loki.source.kubernetes': { stability: 'generally-available' as const, exports: 'none' },
      'loki.process': { stability: 'generally-available' as const, exports: 'process.Exports' },
    },
    services: ['http', 'cluster'],
    schemas: { 'discovery.Exports': { targets: 'attr required' }, 'write.Exports': { receiver: 'attr required' }, 'process.Exports': { '(open)': 'open' } },
    stdlib: {
      identifiers: { sys: ['env'], constants: ['arch', 'hostname'], coalesce: 'function' as const, array: ['concat', 'group_by'] },
      experimental: ['array.group_by'],
    },
  };
  const problems = (text: string, minStability: 'experimental' | 'generally-available' = 'generally-available') => {
    const { body, errors: found } = parseAlloy(text);
    expect(found).toEqual([]);
    return referenceProblems(body, REF, { minStability })?.map((p) => `${p.line}: ${p.message}`);
  };
  const SHIPPER = `discovery.kubernetes "pods" {\n  role = "pod"\n}\nloki.write "default" {\n}\n`;

  it('walks traversals as the loader does: an identifier and its fields, cut by an index or a call, object keys not read', () => {
    const { body } = parseAlloy(`a "b" {\n  x = [c.d.e[0].f, g(h.i).j, {k = l}, (m).n, -o.p + q]\n}\n`);
    // As Go's walker does: a call's last argument is still being built when the call's field follows (`h.i.j`).
    expect(bodyTraversals(body).map((t) => t.names.join('.'))).toEqual(['c.d.e', 'g', 'h.i.j', 'l', 'm.n', 'o.p', 'q']);
  });

  it("resolves components, their exports, services and the standard library, as the real shipper's configuration does", () => {
    expect(
      problems(
        `${SHIPPER}loki.source.kubernetes "pods" {\n  targets = discovery.kubernetes.pods.targets\n  forward_to = [loki.write.default.receiver]\n  x = coalesce(sys.env("HOSTNAME"), constants.hostname)\n  y = http.z\n}\n`,
      ),
    ).toEqual([]);
    // An open exports schema holds any field; a function of the library at the experimental level is allowed there.
    expect(
      problems(`loki.process "p" {\n}\nloki.write "w" {\n  a = loki.process.p.anything\n  b = array.group_by([], "k", true)\n}\n`, 'experimental'),
    ).toEqual([]);
    // A reference held without stdlib in the reference file is not judged.
    expect(referenceProblems(parseAlloy(SHIPPER).body, { ...REF, stdlib: undefined }, { minStability: 'generally-available' })).toBeUndefined();
  });

  it("refuses in Alloy's words: no such component, a field its exports do not have, the library's missing names, a cycle", () => {
    expect(problems(`${SHIPPER}loki.source.kubernetes "pods" {\n  forward_to = [loki.write.defualt.receiver]\n}\n`)).toEqual([
      '7: component "loki.write.defualt.receiver" does not exist or is out of scope',
    ]);
    expect(problems(`${SHIPPER}loki.source.kubernetes "pods" {\n  targets = discovery.kubernetes.pods.target\n}\n`)).toEqual([
      '7: field "target" does not exist (discovery.kubernetes exports targets)',
    ]);
    expect(problems(`loki.source.kubernetes "a" {\n}\nloki.write "w" {\n  x = loki.source.kubernetes.a.b\n}\n`)).toEqual([
      '4: loki.source.kubernetes.a exports nothing: its value is null, which has no field "b"',
    ]);
    expect(problems(`loki.write "w" {\n  x = sys.envv("A")\n  y = array.group_by([], "k", true)\n}\n`)).toEqual([
      '2: field "envv" does not exist (the standard library\'s sys holds env)',
      '3: array.group_by is at stability level "experimental", which is below the minimum allowed stability level "generally-available". Use --stability.level command-line flag to enable "experimental" features',
    ]);
    expect(problems(`loki.write "a" {\n  x = loki.write.b.receiver\n}\nloki.write "b" {\n  x = loki.write.a.receiver\n}\n`)).toEqual([
      '1: cycle: loki.write.a, loki.write.b',
    ]);
    expect(problems(`loki.write "a" {\n  x = loki.write.a.receiver\n}\n`)).toEqual(['1: self reference: loki.write.a']);
  });
});

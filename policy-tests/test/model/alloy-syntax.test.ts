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
});

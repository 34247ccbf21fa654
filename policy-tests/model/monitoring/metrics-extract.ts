import { parsePromQL } from './promql.ts';

/**
 * Reads the metric names and label names an exporter exposes from its own
 * source at a tag. Each extractor knows one way exporters declare metrics;
 * a catalog entry names the one its exporter uses (`source.extract`).
 * Pure: text in, metrics out.
 */

/** Metric name to its label names (sorted). `{app}` stands for a name the scrape fills in. */
export type CatalogMetrics = Record<string, string[]>;

export const EXTRACTORS = {
  /** kube-state-metrics: the tables of docs/metrics/**.md (name | type | description | labels | status). */
  'ksm-docs': extractKsmDocs,
  /** Go exporters built on client_golang's prometheus.NewDesc (exportarr). `%s` in a Sprintf name becomes `{app}`. */
  'go-newdesc': extractGoNewDesc,
  /** Python exporters built on prometheus_client's *MetricFamily (prometheus-pve-exporter). */
  'python-metricfamily': extractPythonMetricFamily,
  /** Python exporters that build dicts {"name": f"{prefix}_x", "labels": {...}} (prometheus-qbittorrent-exporter). */
  'python-dicts': extractPythonDicts,
  /** Node.js code on prom-client (the portfolio API): new Counter|Gauge|Histogram|Summary({ name, labelNames }). */
  'prom-client': extractPromClient,
  /** An exporter's own end-to-end test fixture: what it writes on /metrics, in the Prometheus text format (node exporter, cAdvisor). */
  exposition: extractExposition,
} as const;

export type ExtractorName = keyof typeof EXTRACTORS;

export const isExtractor = (name: string): name is ExtractorName => Object.hasOwn(EXTRACTORS, name);

function add(into: CatalogMetrics, name: string, labels: Iterable<string>): void {
  into[name] = [...new Set([...(into[name] ?? []), ...labels])].sort();
}

export function extractKsmDocs(text: string): CatalogMetrics {
  const out: CatalogMetrics = {};
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // A table row: '', name, type, description, [unit,] labels, status, ...: the labels cell is the one with `label`=.
    if (cells.length < 6 || !/^kube_[a-z0-9_]+$/.test(cells[1]!)) continue;
    const labelCell = cells.slice(2).find((c) => /`[a-zA-Z_][a-zA-Z0-9_]*`\s*=/.test(c)) ?? '';
    // Dynamic labels (label_<LABEL>, annotation_<ANNOTATION>) come from an allowlist this repository does not set.
    const labels = [...labelCell.matchAll(/`([a-zA-Z_][a-zA-Z0-9_]*)`\s*=/g)].map((m) => m[1]!).filter((l) => !/^(label|annotation)_[A-Z_]+$/.test(l));
    add(out, cells[1]!, labels);
  }
  return out;
}

const stringList = (text: string | undefined): string[] => [...(text ?? '').matchAll(/"([a-zA-Z_][a-zA-Z0-9_]*)"/g)].map((m) => m[1]!);

export function extractGoNewDesc(text: string): CatalogMetrics {
  const out: CatalogMetrics = {};
  // NewDesc(name, help, variableLabels, constLabels)
  const call =
    /NewDesc\(\s*(?:fmt\.Sprintf\(\s*"([^"]+)"[^)]*\)|"([^"]+)")\s*,\s*(?:"(?:[^"\\]|\\.)*"|`[^`]*`|[\w.]+)\s*,\s*(nil|\[\]string\{[^}]*\}|[\w.]+)\s*,\s*(nil|prometheus\.Labels\{[^}]*\}|[\w.]+)/g;
  for (const m of text.matchAll(call)) {
    const name = (m[1] ?? m[2]!).replace(/%s/g, '{app}');
    const constKeys = [...(m[4] ?? '').matchAll(/"([a-zA-Z_][a-zA-Z0-9_]*)"\s*:/g)].map((k) => k[1]!);
    add(out, name, [...stringList(m[3]), ...constKeys]);
  }
  return out;
}

const quotedList = (text: string): string[] => [...text.matchAll(/['"]([a-zA-Z_][a-zA-Z0-9_]*)['"]/g)].map((m) => m[1]!);

export function extractPythonMetricFamily(text: string): CatalogMetrics {
  const out: CatalogMetrics = {};
  const str = `'(?:[^'\\\\]|\\\\.)*'|"(?:[^"\\\\]|\\\\.)*"`;
  // Arguments may hold parentheses: inside strings (help texts) and around implicitly joined strings, one level deep.
  const call = new RegExp(
    `(?:Gauge|Counter|Info|Summary|Histogram)MetricFamily\\(\\s*f?['"]([a-zA-Z_:][a-zA-Z0-9_:]*)['"]((?:${str}|\\((?:${str}|[^()'"])*\\)|[^()'"])*)\\)`,
    'g',
  );
  for (const m of text.matchAll(call)) {
    const args = m[2]!;
    const literal = /labels\s*=\s*\[([^\]]*)\]/.exec(args);
    let labels: string[] = literal ? quotedList(literal[1]!) : [];
    const named = /labels\s*=\s*([a-zA-Z_]\w*)/.exec(args);
    if (!literal && named) {
      // labels=<variable>: the nearest assignment of that list before the call.
      const before = text.slice(0, m.index);
      const assignments = [...before.matchAll(new RegExp(`\\b${named[1]}\\s*=\\s*\\[([^\\]]*)\\]`, 'g'))];
      labels = quotedList(assignments.at(-1)?.[1] ?? '');
    }
    add(out, m[1]!, labels);
  }
  return out;
}

export function extractPythonDicts(text: string): CatalogMetrics {
  const out: CatalogMetrics = {};
  // Each dict: "name": f"{...}_suffix", then optionally "labels": {"k": ...} before the dict closes.
  const dict = /"name":\s*f?"(?:\{[^}]*\})?([a-zA-Z0-9_]+)"((?:(?!"name":)[\s\S])*?)\n\s*\}/g;
  for (const m of text.matchAll(dict)) {
    // The dict match ends at the first closing brace on its own line, which may be the labels' own.
    const labelsBlock = /"labels":\s*\{([^}]*)/.exec(m[2]!);
    const labels = labelsBlock ? [...labelsBlock[1]!.matchAll(/"([a-zA-Z_][a-zA-Z0-9_]*)"\s*:/g)].map((k) => k[1]!) : [];
    add(out, `{prefix}${m[1]!}`, labels);
  }
  return out;
}

/** Runs an extractor over each source file and merges what they declare, by name as a catalog entry lists them. */
export function extractAll(extractor: ExtractorName, texts: readonly string[]): CatalogMetrics {
  return Object.fromEntries(Object.entries(declaredIn(extractor, texts)).sort(([a], [b]) => a.localeCompare(b)));
}

/** What the source files declare, merged, in no order: for a comparison (the locale's collator costs some 10 ms to start). */
export function declaredIn(extractor: ExtractorName, texts: readonly string[]): CatalogMetrics {
  const out: CatalogMetrics = {};
  for (const text of texts) for (const [name, labels] of Object.entries(EXTRACTORS[extractor](text))) add(out, name, labels);
  return out;
}

/** Whether two catalogs list the same metrics with the same labels, in whatever order. */
export function sameMetrics(a: Readonly<CatalogMetrics>, b: Readonly<Record<string, readonly string[]>>): boolean {
  const labels = (l: readonly string[]) => [...l].sort().join('\0');
  const names = Object.keys(a);
  return names.length === Object.keys(b).length && names.every((name) => Object.hasOwn(b, name) && labels(a[name]!) === labels(b[name]!));
}

/** The series names a family of each type writes, with the label each adds (prom-client and client_golang write the same). */
function addFamily(into: CatalogMetrics, type: string, name: string, labels: readonly string[]): void {
  if (type === 'HISTOGRAM') {
    add(into, `${name}_bucket`, [...labels, 'le']);
    add(into, `${name}_sum`, labels);
    add(into, `${name}_count`, labels);
  } else if (type === 'SUMMARY') {
    add(into, name, [...labels, 'quantile']);
    add(into, `${name}_sum`, labels);
    add(into, `${name}_count`, labels);
  } else add(into, name, labels);
}

/**
 * A text-format fixture. Each sample line is `name{labels} value [timestamp]`,
 * and its `name{labels}` part is a PromQL vector selector, so it is read with
 * the same grammar as every expression (a text-format library was tried:
 * parse-prometheus-text-format 1.1.1 drops the labels of labelled histograms).
 * Histograms and summaries appear as the series Prometheus stores: _bucket
 * with le, _sum, _count, and quantile.
 */
export function extractExposition(text: string): CatalogMetrics {
  const out: CatalogMetrics = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    // The value and timestamp hold no '}', so the last one closes the label set.
    const close = line.lastIndexOf('}');
    const series = close >= 0 ? line.slice(0, close + 1) : line.split(/\s/)[0]!;
    const selector = parsePromQL(series).selectors[0];
    if (selector?.name)
      add(
        out,
        selector.name,
        selector.matchers.map((m) => m.label),
      );
  }
  return out;
}

export function extractPromClient(text: string): CatalogMetrics {
  const out: CatalogMetrics = {};
  const call = /new\s+(Counter|Gauge|Histogram|Summary)\(\s*\{([^}]*)\}/g;
  for (const m of text.matchAll(call)) {
    const name = /\bname:\s*['"`]([a-zA-Z_:][a-zA-Z0-9_:]*)['"`]/.exec(m[2]!)?.[1];
    if (!name) continue;
    const labels = quotedList(/\blabelNames:\s*\[([^\]]*)\]/.exec(m[2]!)?.[1] ?? '');
    addFamily(out, m[1]!.toUpperCase(), name, labels);
  }
  return out;
}

/**
 * The image facts' `listens` and `envFormat` (deploy/facts/images.yaml), which the gate holds the API's Deployment to
 * (workload-image-needs), against what the image and src/config.ts do: the Dockerfile's ENV gives the values where a
 * variable is unset, loadConfig the values where it is set empty, and a value the facts refuse is one loadConfig
 * refuses (exit 1 at start), a port 0, which binds one the kernel picks and nothing asks, or a port not written in
 * decimal digits.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../src/config.ts';
import { buildIndex, buildOpenApi } from '../src/openapi/build.ts';
import { ROUTES } from '../src/routes/table.ts';
import { targetFromEnv } from '../src/status-writer/writer.ts';
import { inClusterOptions } from '../src/status-writer/kube.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Facts {
  options: { program: string; parser: string; scripts: string[] }[];
  listens: ({ port: string; default: number; address: string; addressDefault: string; emptyAddress: string } | { nodeInspector: string })[];
  envFormat: { name: string; pattern: string }[];
  selfUrl: string[];
  variables: string[];
  dials: { url: string; command?: string[] }[];
}
const facts = (parse(readFileSync(new URL('../deploy/facts/images.yaml', import.meta.url), 'utf8')) as { images: Facts[] }).images[0]!;

/** The Dockerfile's ENV of its last stage, by name. */
function imageEnv(): Record<string, string> {
  const lines = readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8').split('\n');
  const env = lines.filter((l) => l.startsWith('ENV ')).at(-1)!;
  return Object.fromEntries(
    env
      .slice(4)
      .trim()
      .split(/\s+/)
      .map((pair) => pair.split('=') as [string, string]),
  );
}

const refused = (env: NodeJS.ProcessEnv): boolean => {
  try {
    loadConfig(env);
    return false;
  } catch {
    return true;
  }
};

describe("the image facts' listens", () => {
  it("give the Dockerfile's ENV where a variable is unset, and loadConfig's own values where it is empty", () => {
    const image = imageEnv();
    const fromImage = loadConfig(image);
    const read = { PORT: fromImage.port, METRICS_PORT: fromImage.metricsPort } as Record<string, number>;
    const ports = facts.listens.flatMap((l) => ('port' in l ? [l] : []));
    expect(ports.map((l) => l.port).sort()).toEqual(['METRICS_PORT', 'PORT']);
    // The runtime is Node (the Dockerfile's CMD), whose inspector NODE_OPTIONS starts.
    expect(facts.listens).toContainEqual({ nodeInspector: 'NODE_OPTIONS' });
    expect(readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8')).toMatch(/^CMD \["node", /m);
    for (const l of ports) {
      expect(l.default, l.port).toBe(read[l.port]);
      expect(l.default, l.port).toBe(Number(image[l.port]));
      expect(l.address).toBe('HOST');
      expect(l.addressDefault).toBe(fromImage.host);
      expect(l.emptyAddress).toBe(loadConfig({ ...image, HOST: '' }).host);
      // An empty port is the program's default, the same as the image's.
      const empty = loadConfig({ ...image, [l.port]: '' });
      expect(l.port === 'PORT' ? empty.port : empty.metricsPort).toBe(l.default);
    }
  });
});

describe("the image facts' envFormat", () => {
  const PORTS = ['1', '80', '3000', '9464', '65535', ' 3000 ', '0', '65536', '-1', '3.5', 'abc', '99999', '3e3', '0xbb8'];
  // Spellings Number() reads that the facts refuse: a port is written in decimal digits.
  const SPELLED = new Set(['3e3', '0xbb8']);
  const URLS = ['https://portfolio.example.net', 'http://localhost:3000', 'portfolio.example.net', '/api', 'mailto:a@b', 'https://', '://x'];
  const rule = (name: string) =>
    new RegExp(facts.envFormat.find((f) => f.name === name || (f.name.startsWith('*') && name.endsWith(f.name.slice(1))))!.pattern);

  it('refuse only what loadConfig refuses, or port 0', () => {
    for (const name of ['PORT', 'METRICS_PORT'])
      for (const value of PORTS) {
        const takes = rule(name).test(value);
        if (!takes) expect(refused({ [name]: value }) || Number(value) === 0 || SPELLED.has(value), `${name}=${value}`).toBe(true);
        else expect(refused({ [name]: value }), `${name}=${value}`).toBe(false);
      }
    for (const name of ['BASE_URL', 'BLOG_FEED_URL', 'DOCS_URL'])
      for (const value of URLS) if (!rule(name).test(value)) expect(refused({ [name]: value }), `${name}=${value}`).toBe(true);
  });

  it('cover every port and URL variable loadConfig reads', () => {
    const source = readFileSync(new URL('../src/config.ts', import.meta.url), 'utf8');
    const read = [...source.matchAll(/(?:port|url)\('([A-Z_]+)'/g)].map((m) => m[1]!);
    expect(read.length).toBeGreaterThanOrEqual(5);
    for (const name of read) expect(() => rule(name), name).not.toThrow();
  });
});

describe("the image facts' selfUrl", () => {
  it('is the variable whose address the API publishes for itself: its index and its OpenAPI server', () => {
    expect(facts.selfUrl).toEqual(['BASE_URL']);
    const config = loadConfig({ BASE_URL: 'https://api.example.test' });
    expect(buildIndex(ROUTES, config).openapi).toBe('https://api.example.test/api/v1/openapi.json');
    expect((buildOpenApi(ROUTES, config) as { servers: { url: string }[] }).servers).toEqual([{ url: 'https://api.example.test' }]);
  });
});

describe("the image facts' dials", () => {
  it("are the feed URL the server fetches: loadConfig's where BLOG_FEED_URL is unset or empty, the variable's where set", () => {
    // The server is the image's own start (its CMD): the dial names no command.
    expect(facts.dials).toEqual([{ url: expect.stringMatching(/^\$\{BLOG_FEED_URL:-[^}]+\}$/) }]);
    const fallback = facts.dials[0]!.url.match(/:-([^}]+)\}/)![1]!;
    expect(loadConfig({}).blogFeedUrl).toBe(fallback);
    expect(loadConfig({ BLOG_FEED_URL: '' }).blogFeedUrl).toBe(fallback);
    expect(loadConfig({ BLOG_FEED_URL: 'https://feeds.example.test/rss' }).blogFeedUrl).toBe('https://feeds.example.test/rss');
    // The one address the server dials outside the cluster: the blog route fetches it.
    const app = readFileSync(new URL('../src/app.ts', import.meta.url), 'utf8');
    expect(app).toMatch(/fetchFeed\(config\.blogFeedUrl/);
  });
});

describe("the image facts' node scripts", () => {
  it('are the entry points tsc builds from src/ (each with its source, each running main or the server), the CMD among them', () => {
    const { scripts } = facts.options.find((o) => o.parser === 'node')!;
    for (const script of scripts) {
      expect(script).toMatch(/^dist\/.+\.js$/);
      const source = readFileSync(new URL(`../src/${script.slice('dist/'.length).replace(/\.js$/, '.ts')}`, import.meta.url), 'utf8');
      expect(source.length).toBeGreaterThan(0);
    }
    const cmd = readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8').match(/^CMD \["node", "([^"]+)"\]/m)![1]!;
    expect(scripts).toContain(cmd);
    const writer = parse(readFileSync(new URL('../deploy/status-writer.yaml', import.meta.url), 'utf8')) as {
      spec: { jobTemplate: { spec: { template: { spec: { containers: { command: string[] }[] } } } } };
    };
    expect(scripts).toContain(writer.spec.jobTemplate.spec.template.spec.containers[0]!.command[1]);
  });
});

describe("the image facts' variables", () => {
  it('are every variable the server and the status writer read, and none they do not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-'));
    try {
      writeFileSync(join(dir, 'ca.crt'), 'ca');
      const read = new Set<string>();
      /** An environment that records each name the program asks for, and answers from `values`. */
      const watched = (values: Record<string, string>): NodeJS.ProcessEnv =>
        new Proxy(values, {
          get: (target, key) => {
            if (typeof key === 'string') read.add(key);
            return target[key as string];
          },
        });
      loadConfig(watched({}));
      targetFromEnv(watched({}));
      inClusterOptions(watched({ KUBE_TOKEN: 'token', KUBE_SA_DIR: dir }));
      expect([...read].sort()).toEqual([...facts.variables].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

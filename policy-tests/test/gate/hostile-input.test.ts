/**
 * Inputs the consumer would refuse, refused by the gate with one finding each
 * instead of a pass, a hang or a stack trace: symlinks, FIFOs, bytes that are
 * not UTF-8, a NUL, lax JSON, runaway nesting, an oversized ConfigMap.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { allFindings, runGate } from '../../gate/gate.ts';
import { formatFinding } from '../../model/core/findings.ts';
import { copyRepo, describeFindings, lineOf, type RepoCopy } from '../support/helpers.ts';

const scratch = mkdtempSync(join(tmpdir(), 'gate-hostile-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const CONFIGMAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: apps}\n';

/** The gate on one file outside the repository: its findings, formatted. */
async function gateOn(name: string, write: (path: string) => void | Promise<void>): Promise<string[]> {
  const dir = mkdtempSync(join(scratch, 'case-'));
  const path = join(dir, name);
  await write(path);
  const result = await runGate({ paths: [path], cwd: dir });
  return allFindings(result).map((f) => formatFinding({ ...f, file: f.file.replace(`${dir}/`, '') }));
}

describe('inputs the consumer would refuse', () => {
  it('a dangling symlink and a symlink loop', async () => {
    expect(await gateOn('dangling.yaml', (p) => symlinkSync('missing.yaml', p))).toEqual([
      expect.stringMatching(/^dangling\.yaml:1:1 loader \[file-type\] is a dangling symlink/),
    ]);
    expect(await gateOn('loop.yaml', (p) => symlinkSync('loop.yaml', p))).toEqual([
      expect.stringMatching(/^loop\.yaml:1:1 loader \[file-type\] is a symlink loop/),
    ]);
  });

  it('a FIFO named .yaml is refused without being opened (reading it would hang)', async () => {
    const mkfifo = promisify(execFile);
    expect(await gateOn('fifo.yaml', (p) => mkfifo('mkfifo', [p]).then(() => undefined))).toEqual([
      expect.stringMatching(/^fifo\.yaml:1:1 loader \[file-type\] is not a regular file/),
    ]);
  });

  it('bytes that are not UTF-8, and a NUL byte', async () => {
    expect(
      await gateOn('latin1.yaml', (p) => writeFileSync(p, Buffer.concat([Buffer.from(`${CONFIGMAP}data: {a: "`), Buffer.from([0xe9]), Buffer.from('"}\n')]))),
    ).toEqual([expect.stringMatching(/^latin1\.yaml:1:1 loader \[encoding\] is not valid UTF-8/)]);
    expect(await gateOn('nul.yaml', (p) => writeFileSync(p, `${CONFIGMAP}data: {a: "x\0y"}\n`))).toEqual([
      expect.stringMatching(/^nul\.yaml:4:13 loader \[encoding\] holds a NUL byte/),
    ]);
  });

  it.each([
    ['a trailing comma', '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"},}'],
    ['YAML syntax', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n'],
    [
      'two documents',
      '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}\n{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}',
    ],
  ])('a .json manifest with %s (Argo CD parses .json strictly)', async (_what, text) => {
    expect(await gateOn('m.json', (p) => writeFileSync(p, text))).toEqual([
      expect.stringMatching(/^m\.json:\d+:\d+ loader \[json-strict\] is not strict JSON/),
    ]);
  });

  it('nesting deeper than the parser can take is one finding, not a stack trace', async () => {
    const deep = `${CONFIGMAP}data: {a: ${'['.repeat(20_000)}${']'.repeat(20_000)}}\n`;
    expect(await gateOn('deep.yaml', (p) => writeFileSync(p, deep))).toEqual([
      expect.stringMatching(/^deep\.yaml:\d+:\d+ loader \[nesting-depth\] nests deeper than the parser can take/),
    ]);
  });

  it('a ConfigMap or Secret over 1 MiB of data, and one just under it', async () => {
    const big = 'x'.repeat(1024 * 1024);
    expect(await gateOn('big.yaml', (p) => writeFileSync(p, `${CONFIGMAP}data:\n  blob: ${big}\n`))).toEqual([
      expect.stringMatching(/^big\.yaml:2:7 schema \[object-size\] v1\/ConfigMap: its data is 1,048,580 bytes, over the API server's limit of 1 MiB/),
    ]);
    expect(await gateOn('fits.yaml', (p) => writeFileSync(p, `${CONFIGMAP}data:\n  blob: ${big.slice(0, 1024 * 1024 - 4)}\n`))).toEqual([]);
    const secret = Buffer.alloc(1024 * 1024 + 1).toString('base64');
    expect(
      await gateOn('secret.yaml', (p) => writeFileSync(p, `apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: apps}\ndata:\n  k: ${secret}\n`)),
    ).toEqual([expect.stringMatching(/^secret\.yaml:2:7 schema \[object-size\] v1\/Secret: its data is 1,048,578 bytes/)]);
  });
});

describe('symlinks in the repository', () => {
  let copy: RepoCopy;
  beforeAll(() => {
    copy = copyRepo();
  });
  afterEach(() => {
    rmSync(join(copy.root, 'apps/media/unpackerr/escape.yaml'), { force: true });
    rmSync(join(copy.root, 'apps/media/unpackerr/inside.yaml'), { force: true });
  });
  afterAll(() => copy?.dispose());

  it('a symlink that points out of the repository is refused, as Argo CD refuses it: unread, and every source of the repository failed', async () => {
    const outside = join(scratch, 'outside.yaml');
    writeFileSync(outside, `${CONFIGMAP.replace('apps', 'media')}`);
    symlinkSync(outside, join(copy.root, 'apps/media/unpackerr/escape.yaml'));
    const findings = await copy.gate();
    expect(findings.map(formatFinding), describeFindings(findings)).toEqual([
      expect.stringMatching(
        /^apps\/media\/unpackerr\/escape\.yaml:1:1 policy \[argocd-applied-files\] .* is a symlink to .*, which is absolute: .*fails every source/,
      ),
      expect.stringMatching(/^apps\/media\/unpackerr\/escape\.yaml:1:1 loader \[file-type\] is a symlink that points out of the repository/),
    ]);
  });

  it('a committed symlink to a folder that holds it (apps/media/x -> .) is a loop, whatever its name', async () => {
    symlinkSync('.', join(copy.root, 'apps/media/x'));
    try {
      const findings = await copy.gate();
      expect(findings.map(formatFinding), describeFindings(findings)).toEqual([
        expect.stringMatching(/^apps\/media\/x:1:1 loader \[file-type\] is a symlink loop: it points at apps\/media, a folder that holds it/),
      ]);
    } finally {
      rmSync(join(copy.root, 'apps/media/x'));
    }
  });

  it('a symlink loop inside the repository gives a finding, not a stack trace', async () => {
    symlinkSync('inside.yaml', join(copy.root, 'apps/media/unpackerr/inside.yaml'));
    mkdirSync(join(copy.root, 'apps/media/sonarr'), { recursive: true });
    const findings = await copy.gate();
    expect(findings.map(formatFinding), describeFindings(findings)).toEqual([
      expect.stringMatching(/^apps\/media\/unpackerr\/inside\.yaml:1:1 loader \[file-type\] is a symlink loop/),
    ]);
  });
});

describe('scalars YAML 1.1 and 1.2 read differently', () => {
  it('immutable: yes is what Kubernetes accepts (true), and still a finding, because the gate would otherwise guess', async () => {
    const findings = await gateOn('cm.yaml', (p) => writeFileSync(p, `${CONFIGMAP}immutable: yes\ndata: {mode: "0755"}\n`));
    expect(findings).toEqual([
      expect.stringMatching(/^cm\.yaml:4:12 loader \[yaml-1\.1-scalar\] plain yes is the boolean true to Helm and Kubernetes \(YAML 1\.1\)/),
    ]);
  });

  it('an octal such as 0644 is flagged with both readings', async () => {
    const findings = await gateOn('cm.yaml', (p) =>
      writeFileSync(
        p,
        `apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: apps}\nspec:\n  containers: [{name: c, image: "busybox:1.37.0"}]\n  volumes:\n    - name: v\n      configMap: {name: a, defaultMode: 0644}\n`,
      ),
    );
    expect(findings).toEqual([
      expect.stringMatching(/\[yaml-1\.1-scalar\] plain 0644 is octal \(420\) to Helm and Kubernetes \(YAML 1\.1\) but decimal 644 in YAML 1\.2/),
    ]);
  });

  it('in Helm values, collectors.kubernetes.enabled: yes is the true Helm sees: the Falco check judges it, and the scalar is a finding', async () => {
    const copy = copyRepo();
    try {
      copy.write(
        'security/falco/values.yaml',
        copy.read('security/falco/values.yaml').replace('collectors:\n  kubernetes:\n    enabled: false\n', 'collectors:\n  kubernetes:\n    enabled: yes\n'),
      );
      const findings = await copy.gate();
      expect([...new Set(findings.map((f) => f.check))].sort(), describeFindings(findings)).toEqual(['falco-sensor', 'yaml-1.1-scalar']);
      expect(findings.find((f) => f.check === 'yaml-1.1-scalar')).toMatchObject({
        file: 'security/falco/values.yaml',
        line: lineOf(copy, 'security/falco/values.yaml', 'enabled: yes'),
        col: 14,
      });
    } finally {
      copy.dispose();
    }
  });
});

describe("YAML the cluster's readers refuse, which the YAML specification allows", () => {
  it("in a copy of the real repository: a tab in a block scalar's indentation (go-yaml) and --- !!map (Argo CD's splitter), each in its reader's words at its line", async () => {
    const copy = copyRepo();
    try {
      const peers = 'apps/media/gluetun/networkpolicy.yaml';
      copy.write(peers, copy.read(peers).replace('external-peers: |\n      world:', 'external-peers: |\n      \tworld:'));
      const rbac = 'apps/platform/backups/rbac.yaml';
      const text = copy.read(rbac);
      const at = text.indexOf('\n---\n', text.indexOf('\n---\n') + 1);
      copy.write(rbac, `${text.slice(0, at)}\n--- !!map\n${text.slice(at + 5)}`);
      const findings = await copy.gate();
      expect(findings.map(formatFinding), describeFindings(findings)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            new RegExp(
              `^${peers}:${lineOf(copy, peers, '\tworld:')}:7 loader \\[yaml-syntax\\] found a tab character where an indentation space is expected \\(go-yaml v2`,
            ),
          ),
          expect.stringMatching(new RegExp(`^${rbac}:${lineOf(copy, rbac, '--- !!map')}:1 loader \\[yaml-syntax\\] invalid Yaml document separator: !!map`)),
        ]),
      );
    } finally {
      copy.dispose();
    }
  });
});

describe('text a pull request wrote, in the report', () => {
  it('a name with an ANSI escape and a line break cannot recolour or forge lines of the text report', async () => {
    const dir = mkdtempSync(join(scratch, 'case-'));
    const path = join(dir, 'evil.yaml');
    // A ConfigMap whose name carries ESC[2J (clear the screen) and a forged FAIL line; its bad field makes a finding.
    writeFileSync(path, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "evil\\e[2J\\nFAIL - forged", namespace: apps}\ndata: {a: 1}\n');
    const { render } = await import('../../gate/report/formats/index.ts');
    const report = render(await runGate({ paths: [path], cwd: dir }), 'text', { color: false, verbose: true, summary: true });
    expect(report).not.toContain('\u001b');
    expect(report.split('\n').filter((l) => l.startsWith('FAIL - forged'))).toEqual([]);
    expect(report).toContain('evil\\u001b[2J\\u000aFAIL - forged');
  });
});

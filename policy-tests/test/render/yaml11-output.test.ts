/**
 * A chart's output as Argo CD reads it: gitops-engine's SplitYAML hands each document to sigs.k8s.io/yaml, which reads
 * with go-yaml v2, YAML 1.1, where a plain yes is a boolean and a plain 0644 an octal. A template that writes a value
 * unquoted (`{{ .Values.flag }}` where the value is the string "yes") renders a boolean where the API server takes
 * only a string, and Argo CD's sync fails; read as YAML 1.2 it was the string "yes", and the gate passed it.
 */
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../gate/gate.ts';
import { schemaLayer } from '../../gate/pipeline.ts';
import { loadRepo } from '../../model/repository/repo.ts';
import { renderRepo } from '../../render/render.ts';
import { fastDocuments, loadFastReader } from '../../render/fast-yaml.ts';
import { splitRendered } from '../../render/output.ts';
import { BUNDLED_SCHEMA_MINOR } from '../../schema/schema-layer.ts';
import { fixtureRepo, repoApp } from '../../../test-support/render-fixtures.ts';

describe("a chart's output", () => {
  it('is read as YAML 1.1, fast or not: a plain yes a boolean, a plain 0644 an octal, a quoted one a string', async () => {
    await loadFastReader();
    const chunk = '# Source: c/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: yes\n  b: 0644\n  c: "on"\n  on: x\n';
    const expected = { a: true, b: 420, c: 'on', true: 'x' };
    expect(fastDocuments(chunk)).toEqual([expect.objectContaining({ data: expected })]);
    // The same chunk with an alias, which only the `yaml` library reads.
    const slow = splitRendered(`${chunk}  d: &x 1\n  e: *x\n`);
    expect(slow.problems).toEqual([]);
    expect(slow.docs[0]!.object.data).toEqual({ ...expected, d: 1, e: 1 });
  });

  it('that writes a string value unquoted where YAML 1.1 reads a boolean is refused by the schema, as the API server refuses it', async () => {
    const repo = fixtureRepo();
    try {
      repo.write('apps/web/chart/Chart.yaml', 'apiVersion: v2\nname: web\nversion: 1.0.0\n');
      repo.write('apps/web/chart/values.yaml', 'flag: "yes"\nquoted: "yes"\n');
      repo.write(
        'apps/web/chart/templates/cm.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  flag: {{ .Values.flag }}\n  quoted: {{ .Values.quoted | quote }}\n',
      );
      repo.write('apps/web/application.yaml', repoApp('web', '    path: apps/web/chart'));
      const loaded = await loadRepo(repo.root);
      const layer = await schemaLayer();
      const [render] = (await renderRepo(loaded, { builtinApiVersions: layer.builtinApiVersions(), env: process.env })).renders;
      expect(render!.status, render!.message).toBe('rendered');
      const [configMap] = render!.resources;
      expect(configMap!.object.data).toEqual({ flag: true, quoted: 'yes' });
      const [checked] = await evaluate([{ file: configMap!.file, resources: [configMap!], findings: [], text: '' }], [], {
        strict: true,
        kubernetesMinor: BUNDLED_SCHEMA_MINOR,
        skip: [],
        reject: [],
        ignoreMissingSchemas: false,
      });
      expect(checked!.status).toBe('invalid');
      expect(checked!.findings.map((f) => [f.check, f.message])).toEqual([['schema', expect.stringMatching(/flag.*string/)]]);
    } finally {
      rmSync(repo.root, { recursive: true, force: true });
    }
  });
});

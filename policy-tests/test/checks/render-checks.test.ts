/** The checks on rendered output: the unused-key walk, and each check proven to bite on a broken copy of the real repository. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unusedValues } from '../../checks/render.ts';
import { runGate, allFindings, type GateOptions } from '../../gate/gate.ts';
import { copyRepo, describeFindings, type RepoCopy } from '../support/helpers.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { renderMutations, standInVolsync } from '../mutations/render.ts';

describe('unusedValues', () => {
  const chart = {
    name: 'app',
    defaults: { image: { tag: '1' }, podAnnotations: {}, config: null, extraArgs: [], securityContext: { runAsNonRoot: true } },
    templates: '{{ .Values.envFrom }} {{ .Values.image.tag }} {{- toYaml .Values.securityContext | nindent 12 }}',
    subcharts: new Map([
      ['grafana', { name: 'grafana', defaults: { admin: { existingSecret: '' } }, templates: '{{ .Values.adminPassword }}', subcharts: new Map() }],
    ]),
  };

  it('accepts declared keys, keys templates read, free-form maps, maps a template takes whole, globals and subchart keys', () => {
    const values = {
      image: { tag: '2' },
      podAnnotations: { a: 'b' },
      config: { anything: 1 },
      securityContext: { allowPrivilegeEscalation: false },
      envFrom: [{ secretRef: { name: 'x' } }],
      global: { any: 1 },
      grafana: { admin: { existingSecret: 's' }, adminPassword: 'p' },
    };
    expect(unusedValues(values, chart)).toEqual([]);
  });

  it('names each key nobody reads, at any depth and inside subcharts', () => {
    const values = { envFromSecrets: ['x'], image: { tga: '2' }, grafana: { admin: { existingSecrt: 's' } } };
    expect(unusedValues(values, chart)).toEqual([
      { path: ['envFromSecrets'] },
      { path: ['image', 'tga'], near: 'tag' },
      { path: ['grafana', 'admin', 'existingSecrt'], near: 'existingSecret' },
    ]);
  });
});

describeMutations('checks on rendered output bite on the real repository', renderMutations, standInVolsync());

describe('the stand-in render', () => {
  const setup = standInVolsync();
  let copy: RepoCopy;
  let options: GateOptions;
  beforeAll(async () => {
    copy = copyRepo();
    options = await setup.before(copy);
  });
  afterAll(() => {
    copy?.dispose();
    setup.after();
  });

  it('passes unbroken, with the stand-in rendered and the other nineteen counted as not rendered', async () => {
    const result = await runGate({ root: copy.root, cwd: copy.root, ...options });
    const findings = allFindings(result);
    expect(findings, describeFindings(findings)).toEqual([]);
    expect(result.summary.notRendered).toBe(19);
    expect(result.resources.some((r) => r.renderedBy === 'volsync: volsync/templates/configmap.yaml' && r.status === 'valid')).toBe(true);
  });
});

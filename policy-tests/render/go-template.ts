/**
 * Go's text/template with sprig, as Argo CD's ApplicationSet controller renders a `goTemplate` ApplicationSet's
 * strings: run by the real engine, the one the pinned Helm carries (Go's text/template, sprig v3), through Helm's
 * `tpl` with each parameter set as the data. No JavaScript port of Go's templates and sprig is kept well enough to
 * trust; Helm's engine is the same code Argo CD links. Where the two engines differ (Helm writes nothing for a key
 * the data lacks; each has functions the other has not), model/appset/template.ts says so before a string comes here.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { GoTemplateJob } from '../model/appset/expand.ts';
import { firstLines, renderToolEnv } from './context.ts';
import { renderLimits } from './limits.ts';
import { renderTools } from './tools.ts';

const run = promisify(execFile);

/** One document: the jobs' outputs, in order, as one JSON list (Helm's `toJson` of what `tpl` wrote for each). */
const TEMPLATE = `{{- $out := list }}
{{- range .Values.jobs }}{{ $out = append $out (tpl .t .p) }}{{ end }}
{{- toJson (dict "out" $out) }}
`;

/** An error that says a limit of the gate's was met, not a template's fault (model/appset/renderer.ts: not judged). */
function limitMet(message: string): Error {
  return Object.assign(new Error(message), { limit: true });
}

/** Each job's text, rendered by Go's engine; throws one line with the engine's own error. */
export async function renderGoTemplates(jobs: readonly GoTemplateJob[], env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  if (jobs.length === 0) return [];
  const tools = await renderTools(env);
  const limits = renderLimits(env);
  const chart = mkdtempSync(join(tmpdir(), 'homelab-gotemplate-'));
  try {
    mkdirSync(join(chart, 'templates'));
    writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: applicationset\nversion: 0.0.0\n');
    writeFileSync(join(chart, 'templates', 'render.yaml'), TEMPLATE);
    writeFileSync(join(chart, 'jobs.json'), JSON.stringify({ jobs: jobs.map((j) => ({ t: j.template, p: j.params })) }));
    let stdout: string;
    try {
      ({ stdout } = await run(tools.helm, ['template', 'applicationset', chart, '--values', join(chart, 'jobs.json')], {
        env: renderToolEnv(env),
        cwd: chart,
        encoding: 'utf8',
        maxBuffer: limits.outputBytes,
        timeout: limits.timeoutMs,
        killSignal: 'SIGKILL',
      }));
    } catch (err) {
      const e = err as { stderr?: string; message: string; killed?: boolean; signal?: string; code?: string };
      if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
        throw limitMet(`Go's template engine (helm) printed more than ${limits.outputBytes / 1024 / 1024} MiB (HOMELAB_RENDER_MAX_OUTPUT_MIB); killed`);
      if (e.killed || e.signal === 'SIGKILL')
        throw limitMet(`Go's template engine (helm) did not finish within ${limits.timeoutMs / 1000} s (HOMELAB_RENDER_TIMEOUT); killed`);
      const said = firstLines(e.stderr || e.message);
      // Helm's frame around tpl's error says nothing of the ApplicationSet: what tpl reports is what Argo CD reports.
      throw new Error(said.replace(/^.*?error calling tpl: /, '').replace(/^Error: /, ''));
    }
    const body = stdout.slice(stdout.indexOf('{'));
    const out = (JSON.parse(body) as { out: unknown[] }).out;
    if (!Array.isArray(out) || out.length !== jobs.length)
      throw new Error(`Go's template engine (helm) answered ${out?.length ?? 0} texts for ${jobs.length} strings`);
    return out.map(String);
  } finally {
    rmSync(chart, { recursive: true, force: true });
  }
}

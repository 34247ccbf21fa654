/**
 * Tdarr flows as graphs: every path from the input plugin to
 * replaceOriginalFile must pass each gate (M28-M30).
 */
export interface FlowPlugin {
  id: string;
  pluginName: string;
  inputsDB?: Record<string, string>;
}
export interface FlowEdge {
  source: string;
  sourceHandle: string;
  target: string;
}

/** The gates every path to replaceOriginalFile must pass: a plugin, its inputs, and the output taken when the file may continue. */
const FLOW_GATES: { what: string; passes: (p: FlowPlugin, handle: string) => boolean }[] = [
  { what: 'only H.264 continues', passes: (p, h) => p.pluginName === 'checkVideoCodec' && p.inputsDB?.codec === 'h264' && h === '1' },
  { what: 'files with more than one link are skipped', passes: (p, h) => p.pluginName === 'checkFileLinkCount' && p.inputsDB?.maxLinks === '1' && h === '1' },
  {
    what: 'paths containing remux are skipped',
    passes: (p, h) =>
      p.pluginName === 'checkFileNameIncludes' &&
      (p.inputsDB?.terms ?? '')
        .split(',')
        .map((t) => t.trim())
        .includes('remux') &&
      h === '2',
  },
  {
    what: 'HEVC via QSV, preset slow, quality 23',
    passes: (p) =>
      p.pluginName === 'ffmpegCommandSetVideoEncoder' &&
      p.inputsDB?.outputCodec === 'hevc' &&
      p.inputsDB?.hardwareType === 'qsv' &&
      p.inputsDB?.ffmpegPreset === 'slow' &&
      p.inputsDB?.ffmpegQuality === '23',
  },
  {
    what: 'audio and subtitles copied',
    passes: (p) => p.pluginName === 'ffmpegCommandStreamCopy' && p.inputsDB?.audio === 'copy' && p.inputsDB?.subtitles === 'copy',
  },
  {
    what: 'the new file is 20-85 % of the old size',
    passes: (p, h) => p.pluginName === 'compareFileSizeRatio' && p.inputsDB?.greaterThan === '20' && p.inputsDB?.lessThan === '85' && h === '1',
  },
];

export interface Flow {
  flowPlugins: FlowPlugin[];
  flowEdges: FlowEdge[];
}

/** Walks every path from the input to replaceOriginalFile: how many there are, and one problem per path that skips a gate. */
export function flowProblems(flow: Flow): { paths: number; problems: string[] } {
  const plugins = new Map(flow.flowPlugins.map((p) => [p.id, p]));
  const input = flow.flowPlugins.find((p) => p.pluginName === 'inputFile');
  const replace = new Set(flow.flowPlugins.filter((p) => p.pluginName === 'replaceOriginalFile').map((p) => p.id));
  const problems: string[] = [];
  let paths = 0;
  const walk = (id: string, taken: { plugin: FlowPlugin; handle: string }[], seen: Set<string>): void => {
    if (replace.has(id)) {
      paths++;
      const missing = FLOW_GATES.filter((g) => !taken.some((t) => g.passes(t.plugin, t.handle))).map((g) => g.what);
      if (missing.length) problems.push(`a path to replaceOriginalFile (${[...taken.map((t) => t.plugin.id), id].join(' -> ')}) skips: ${missing.join('; ')}`);
      return;
    }
    for (const edge of flow.flowEdges.filter((e) => e.source === id)) {
      if (seen.has(edge.target) || !plugins.has(edge.target)) continue;
      walk(edge.target, [...taken, { plugin: plugins.get(id)!, handle: String(edge.sourceHandle) }], new Set([...seen, edge.target]));
    }
  };
  if (input) walk(input.id, [], new Set([input.id]));
  return { paths, problems };
}

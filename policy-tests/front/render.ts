/** The front door's `render`: a tree loaded and rendered through the pipeline the gate and the diff share, with the pinned tools. */
export { loadTree, renderApplications, renderTree, type LoadedTree } from '../gate/pipeline.ts';
export { cacheRoot, pinnedBinaries } from '../render/tools.ts';
// Go's text/template and sprig, as the pinned Helm carries them: what an ApplicationSet's goTemplate strings are rendered with.
export { renderGoTemplates } from '../render/go-template.ts';
// Every kind's allowed fields, read from the model packages' declarations once per install (npm run gate:setup).
export { loadFieldTrees } from '../schema/field-tree.ts';

// jq.ts's worker entry, under the name the built bundle gives its own (build.mjs). From the sources, Node runs the
// TypeScript body itself: the code uses only syntax that type stripping erases (tsconfig.json's erasableSyntaxOnly).
await import('./jq-worker.ts');

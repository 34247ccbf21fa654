/**
 * The scripts enter the gate through its front door, policy-tests/index.ts: some 575 TypeScript modules, whose types
 * Node strips and whose code it compiles at every start of a script (1.1 s on the 2-core machine, 2026-12-05). The
 * gate's build (policy-tests/build.mjs) makes the same door into one file, policy-tests/dist/front-door.mjs, as it
 * makes the gate's bundle, and a script loads that in 0.45 s. This hook hands a script's imports of the front door the
 * built file, building it first where it is missing or older than any of its sources, at the first import: a
 * script's --help and usage errors, which never load the door, never build it either. Where it cannot be built (no
 * esbuild, an unwritable checkout, a build past its time limit, HOMELAB_BUILD_TIMEOUT), the script says so in one line
 * on stderr and reads the sources as before. The scripts' own modules always load
 * from their sources, and the tests import the sources directly.
 */
import { registerHooks } from 'node:module';
import { pathToFileURL } from 'node:url';
import { buildGateSync, FRONT_DOOR_BUNDLE, FRONT_DOOR_SOURCE, isStale } from '../policy-tests/build.mjs';

/** The front door's built file, built now where it is not up to date; undefined, said in one line, where it cannot be. */
function builtFrontDoor() {
  try {
    if (isStale()) buildGateSync();
    return pathToFileURL(FRONT_DOOR_BUNDLE).href;
  } catch (err) {
    process.stderr.write(
      `scripts: reading the gate's sources, since its front door cannot be built: ${String(err instanceof Error ? err.message : err).split('\n')[0]}\n`,
    );
    return undefined;
  }
}

/** Imports of policy-tests/index.ts, from this process's main thread on, load the built front door. */
export function useBuiltFrontDoor() {
  const source = pathToFileURL(FRONT_DOOR_SOURCE).href;
  /** @type {string | undefined | null} null until the first import of the front door asks */
  let bundle = null;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      if (resolved.url !== source) return resolved;
      if (bundle === null) bundle = builtFrontDoor();
      return bundle === undefined ? resolved : { url: bundle, format: 'module', shortCircuit: true };
    },
  });
}

/**
 * The one warning of Node's a script leaves out of its stderr. zx stops a tool at its time limit through its process
 * tree lookup (@webpod/ps, zx 8.8), which starts `ps` with `shell: true` and an argument list of its own; Node 24
 * deprecates that form (DEP0190) and prints two lines about it, which would turn a timed-out tool's one-line error
 * into three at the hour it is read. The lookup's arguments are zx's constants, not a user's text, so nothing is
 * hidden that a script could act on; every other warning still prints. Plain JavaScript: run.mjs loads it before
 * the version check lets TypeScript run, and the backup image's entry bundles it.
 */
const DROPPED = new Set(['DEP0190']);

/** process.emitWarning, minus the codes above: (warning, type, code) or (warning, { type, code }), as Node takes them. */
export function quietWarnings(proc = process) {
  const emit = proc.emitWarning.bind(proc);
  /** @type {(warning: string | Error, ...rest: unknown[]) => void} */
  const filtered = (warning, ...rest) => {
    const options = /** @type {{ code?: unknown } | null} */ (rest[0]);
    const code = options !== null && typeof options === 'object' ? options.code : rest[1];
    if (DROPPED.has(String(code))) return;
    Reflect.apply(emit, undefined, [warning, ...rest]);
  };
  proc.emitWarning = /** @type {typeof proc.emitWarning} */ (filtered);
}

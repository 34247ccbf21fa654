// Declarations for build.mjs, which stays plain JavaScript because it runs before anything is built.
export declare const DIST: string;
export declare const GATE_BUNDLE: string;
/** Whether the bundle is missing or older than any file it was built from. */
export declare function isStale(): boolean;
/** Builds the gate's bundles; returns the files written. */
export declare function buildGate(): Promise<string[]>;

// Declarations for build.mjs, which stays plain JavaScript because it runs before anything is built.
export declare const DIST: string;
export declare const GATE_BUNDLE: string;
/** The front door's sources (index.ts) and the file the build makes of them, which the scripts load. */
export declare const FRONT_DOOR_SOURCE: string;
export declare const FRONT_DOOR_BUNDLE: string;
/** Whether a bundle is missing or older than any file it was built from. */
export declare function isStale(): boolean;
/** Builds the gate's bundles; returns the files written. */
export declare function buildGate(): Promise<string[]>;
/** buildGate, blocking, for a module loader's resolve hook. */
export declare function buildGateSync(): string[];

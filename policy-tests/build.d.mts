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
/** buildGate, blocking, for a module loader's resolve hook: the build run as a child, held to the same time limit. */
export declare function buildGateSync(): void;
/** How long one build may take, in ms (HOMELAB_BUILD_TIMEOUT, seconds; five minutes unless set). */
export declare function buildTimeoutMs(env?: NodeJS.ProcessEnv): number;

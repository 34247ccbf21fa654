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
/** The store of builds: its folder in the gate's cache. */
export declare function storeDir(env?: NodeJS.ProcessEnv): string;
/** The key of a build of `root`'s gate (`here`, its policy-tests folder) by `buildFile`, and the files it covers. */
export declare function buildKey(root: string, here: string, buildFile: string): { key: string; files: Set<string> };
/** A kept build's files, or undefined where there is none this build may take. */
export declare function keptBuild(store: string, built: { key: string; files: Set<string> }): { name: string; contents: Buffer }[] | undefined;
/** Keeps a build under its key, and drops the oldest beyond the last few. */
export declare function keepBuild(store: string, key: string, files: { name: string; contents: Uint8Array }[]): void;

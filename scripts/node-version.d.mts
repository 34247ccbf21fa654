/** Types for node-version.mjs, which stays plain JavaScript so that any Node loads it. */
export declare const wantedNode: number;
export declare const runningNode: string;
export declare const nodeTooOld: boolean;
export declare const tooOldMessage: (name: string) => string;

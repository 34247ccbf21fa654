/** A mistake in how the gate was called (a flag, a path): exit 2, with one line saying what to change. */
export class UsageError extends Error {}

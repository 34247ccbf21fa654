/**
 * The gate's front door (policy-tests/index.ts), loaded when a command runs its work: a script's --help and its usage
 * errors answer without it, in a tenth of a second, where its some 600 modules take more than half a second to load.
 */
export const frontDoor = () => import('../../policy-tests/index.ts');

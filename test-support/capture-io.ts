/** What an operator script printed, as two strings: the CommandIo the tests hand to runCommand. */
export function capture() {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdout: (t: string) => (out.stdout += t), stderr: (t: string) => (out.stderr += t) } };
}

/** `-` reads standard input; a terminal or a device (/dev/null among them) is refused in one line, as kubeconform refuses it. */
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStandardInput } from '../../gate/inputs.ts';

describe('standard input', () => {
  it('refuses a device, where the gate would wait for input nobody means to type', () => {
    const fd = openSync('/dev/null', 'r');
    try {
      expect(() => readStandardInput(fd)).toThrow(/^- reads standard input, which is a terminal or a device, not a pipe or a file: pipe the manifests in/);
    } finally {
      closeSync(fd);
    }
  });

  it('reads a file given as standard input', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stdin-'));
    try {
      writeFileSync(join(dir, 'in.yaml'), 'kind: ConfigMap\n');
      const fd = openSync(join(dir, 'in.yaml'), 'r');
      try {
        expect(readStandardInput(fd)).toBe('kind: ConfigMap\n');
      } finally {
        closeSync(fd);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Git LFS pointers in the checkout (the LFS specification, docs/spec.md): a checkout without its LFS objects holds
 * the pointer where Argo CD's, with `enableLfs` on the repository's credentials, holds the object (util/git
 * `Checkout`, v3.5.1). What an app makes from a pointer is not judged; a file that only lies in a folder is no concern.
 */
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isLfsPointer } from '../../model/core/text.ts';
import { checkoutPaths } from '../../model/repository/checkout-paths.ts';
import { checkFindings } from '../../../test-support/gate-findings.ts';
import { fixtureRepo, repoApp } from '../../../test-support/render-fixtures.ts';

const OID = '4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393';
const pointer = (size = 12345) => `version https://git-lfs.github.com/spec/v1\noid sha256:${OID}\nsize ${size}\n`;

describe('a Git LFS pointer, as git-lfs decodes one', () => {
  it.each([
    ["the spec's example", pointer(), true],
    ["the pre-release tool's version", `version https://hawser.github.com/spec/v1\noid sha256:${OID}\nsize 1\n`, true],
    ['an extension line between', `version https://git-lfs.github.com/spec/v1\next-0-foo sha256:${OID}\noid sha256:${OID}\nsize 2\n`, true],
    ['no trailing newline', pointer().trimEnd(), true],
    ['an empty file (its own content)', '', false],
    ['no oid', 'version https://git-lfs.github.com/spec/v1\nsize 12\n', false],
    ['a short oid', `version https://git-lfs.github.com/spec/v1\noid sha256:${OID.slice(1)}\nsize 12\n`, false],
    ['version not first', `oid sha256:${OID}\nversion https://git-lfs.github.com/spec/v1\nsize 12\n`, false],
    ['another version', `version https://git-lfs.github.com/spec/v2\noid sha256:${OID}\nsize 12\n`, false],
    ['YAML that mentions one', `data:\n  version: https://git-lfs.github.com/spec/v1\n`, false],
    ['1024 bytes or more', `${pointer()}${'x-pad '.padEnd(1024, 'y')}\n`, false],
    ["the alpha's version, with blank lines and spaces around", `\n  version http://git-media.io/v/2\n\noid sha256:${OID}\nsize 0\n\n`, true],
    ['size before oid', `version https://git-lfs.github.com/spec/v1\nsize 12\noid sha256:${OID}\n`, false],
    ['a line after size', `${pointer()}note this\n`, false],
    [
      'two extensions of one priority',
      `version https://git-lfs.github.com/spec/v1\next-1-a sha256:${OID}\next-1-b sha256:${OID}\noid sha256:${OID}\nsize 2\n`,
      false,
    ],
    ['an extension priority of two digits', `version https://git-lfs.github.com/spec/v1\next-12-a sha256:${OID}\noid sha256:${OID}\nsize 2\n`, false],
    ['a negative size', `version https://git-lfs.github.com/spec/v1\noid sha256:${OID}\nsize -1\n`, false],
  ])('%s: %s', (_what, text, expected) => {
    expect(isLfsPointer(text)).toBe(expected);
  });
});

describe('the LFS pointers an app makes manifests from', () => {
  it('fail argocd-applied-files where a chart reads them (a value file, a template, a file a template reads), not where they only lie in its folder', async () => {
    const repo = fixtureRepo();
    try {
      repo.write('apps/web/chart/Chart.yaml', 'apiVersion: v2\nname: web\nversion: 1.0.0\n');
      repo.write('apps/web/chart/icon.png', pointer(2048));
      repo.write('apps/web/chart/files/start.sh', '#!/bin/sh\nexec web\n');
      repo.write('apps/web/chart/templates/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  mode: {{ .Values.mode | quote }}\n');
      repo.write('apps/web/values-lfs.yaml', pointer(40));
      repo.write('apps/web/application.yaml', repoApp('web', '    path: apps/web/chart\n    helm:\n      valueFiles:\n        - /apps/web/values-lfs.yaml'));
      expect((await checkoutPaths(repo.root)).lfsPointers).toEqual(['apps/web/chart/icon.png', 'apps/web/values-lfs.yaml']);
      const findings = () => checkFindings('argocd-applied-files', { root: repo.root, env: process.env });
      expect(await findings()).toEqual([
        expect.stringMatching(
          /^apps\/web\/values-lfs\.yaml:1 apps\/web\/values-lfs\.yaml is a Git LFS pointer, which Application web reads: .*enableLfs.*not judged$/,
        ),
      ]);
      // A template that reads the chart's files (.Files) may read any of them: the icon too.
      repo.write(
        'apps/web/chart/templates/script.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-script\ndata:\n  start.sh: {{ .Files.Get "files/start.sh" | quote }}\n',
      );
      repo.write('apps/web/chart/files/start.sh', pointer(90));
      expect(await findings()).toEqual([
        expect.stringMatching(/^apps\/web\/chart\/files\/start\.sh:1 apps\/web\/chart\/files\/start\.sh is a Git LFS pointer, which Application web reads/),
        expect.stringMatching(/^apps\/web\/chart\/icon\.png:1 apps\/web\/chart\/icon\.png is a Git LFS pointer/),
        expect.stringMatching(/^apps\/web\/values-lfs\.yaml:1 /),
      ]);
    } finally {
      rmSync(repo.root, { recursive: true, force: true });
    }
  });

  it('a manifest that is a pointer is refused by the loader, in words that say so, and once', async () => {
    const repo = fixtureRepo();
    try {
      repo.write('apps/web/application.yaml', repoApp('web', '    path: apps/web/manifests'));
      repo.write('apps/web/manifests/cm.yaml', pointer(300));
      expect(await checkFindings('manifest-shape', { root: repo.root, env: process.env })).toEqual([
        expect.stringMatching(/^apps\/web\/manifests\/cm\.yaml:1 the file is a Git LFS pointer, not a manifest: .*not judged$/),
      ]);
      expect(await checkFindings('argocd-applied-files', { root: repo.root, env: process.env })).toEqual([]);
    } finally {
      rmSync(repo.root, { recursive: true, force: true });
    }
  });
});

import { snapshot } from './scripts/backup/engines/sqlite.ts';
import { rmSync } from 'node:fs';
rmSync('/tmp/bdb/copy.db', { force: true });
const t = performance.now();
await snapshot('/tmp/bdb/s.db', '/tmp/bdb/copy.db');
console.log('snapshot', ((performance.now() - t) / 1000).toFixed(2), 's');

/** Regenerates docs/API.md: npm run docs -w portfolio-api */
import { writeFileSync } from 'node:fs';
import { ROUTES } from '../routes/table.ts';
import { renderApiDocs } from './docs.ts';
import { entryArgs } from '../entry-args.ts';

entryArgs('npm run docs -w portfolio-api', 'Regenerates portfolio-api/docs/API.md from the route table (src/routes/table.ts). Reads no environment variable.');

export const API_DOCS_PATH = new URL('../../docs/API.md', import.meta.url);
writeFileSync(API_DOCS_PATH, renderApiDocs(ROUTES));
process.stdout.write(`wrote ${API_DOCS_PATH.pathname}\n`);

/** The front door's `docs`: what npm run readme:checks generates: the check table, the sync waves, the secret store's items, docs/invariants.md. */
export { checkTable, withBlock, withCheckTable } from '../gate/report/check-table.ts';
export { WAVES_END, WAVES_START, wavesTable } from '../gate/report/waves-table.ts';
export { INVARIANTS_FILE, invariantsDoc } from '../gate/report/invariants-doc.ts';
export { STORE_ITEMS_END, STORE_ITEMS_FILE, STORE_ITEMS_START, storeItemsTable } from '../gate/report/store-items.ts';

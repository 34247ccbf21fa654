// A real SQLite writer for the backup tests (node:sqlite): one committed row
// per transaction, kept at RATE commits per second by catching up on the
// elapsed time (a timer alone falls behind on a busy machine), until stopped.
// Prints the id of every committed row, so the test knows what was committed.
import { DatabaseSync } from 'node:sqlite';

const [db = ':memory:', rate = '0'] = process.argv.slice(2);
const conn = new DatabaseSync(db);
// WAL with synchronous=NORMAL, as SQLite recommends for WAL and as the media apps run.
conn.exec('PRAGMA busy_timeout = 15000; PRAGMA synchronous = NORMAL; CREATE TABLE IF NOT EXISTS writes (id INTEGER PRIMARY KEY, at TEXT NOT NULL)');
const insert = conn.prepare('INSERT INTO writes (at) VALUES (?) RETURNING id');
const started = performance.now();
let written = 0;
const timer = setInterval(() => {
  const due = Math.floor(((performance.now() - started) / 1000) * Number(rate));
  const ids = [];
  for (; written < due; written++) ids.push(/** @type {{ id: number }} */ (insert.get(new Date().toISOString())).id);
  if (ids.length) process.stdout.write(`${ids.join('\n')}\n`);
}, 5);
process.on('SIGTERM', () => {
  clearInterval(timer);
  conn.close();
  process.exit(0);
});

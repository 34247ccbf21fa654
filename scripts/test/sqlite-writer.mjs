// A real SQLite writer for the backup tests (node:sqlite): one committed row
// per transaction, at RATE commits per second, until stopped. Prints the id of
// every committed row, so the test knows exactly what was committed and when.
import { DatabaseSync } from 'node:sqlite';

const [db, rate] = process.argv.slice(2);
const conn = new DatabaseSync(db);
conn.exec('PRAGMA busy_timeout = 15000; CREATE TABLE IF NOT EXISTS writes (id INTEGER PRIMARY KEY, at TEXT NOT NULL)');
const insert = conn.prepare('INSERT INTO writes (at) VALUES (?) RETURNING id');
const timer = setInterval(() => {
  const { id } = insert.get(new Date().toISOString());
  process.stdout.write(`${id}\n`);
}, 1000 / Number(rate));
process.on('SIGTERM', () => {
  clearInterval(timer);
  conn.close();
  process.exit(0);
});

// Runs one SQL query (FILE replaced by the data path) in DuckDB through the
// npm package @duckdb/node-api and prints the result rows as CSV (no header,
// NULL as an empty field), so that tests/bench/formats.sh can compare
// DuckDB's answer with mapr's. On standard error it prints
// `duckdb_time: WALL CPU`, the seconds of wall and CPU time (all threads) of
// connecting, running the query and reading its result: the start-up of
// node and of the DuckDB instance is left out.
// Usage: node duckdb_csv.mjs FILE SQL THREADS
import { DuckDBInstance } from '@duckdb/node-api';

const [, , file, query, threads] = process.argv;
const instance = await DuckDBInstance.create(':memory:', {
  threads: String(threads || 1),
});
const wall0 = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
const connection = await instance.connect();
const reader = await connection.runAndReadAll(query.replaceAll('FILE', file));
const rows = reader.getRows();
const cpu = process.cpuUsage(cpu0);
const wall = Number(process.hrtime.bigint() - wall0) / 1e9;
const cell = (v) => {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\n]/.test(s) ? '"' + s.replaceAll('"', '""') + '"' : s;
};
const lines = rows.map((row) => row.map(cell).join(','));
process.stdout.write(lines.length ? lines.join('\n') + '\n' : '');
process.stderr.write(
    `duckdb_time: ${wall.toFixed(4)} ${((cpu.user + cpu.system) / 1e6).toFixed(4)}\n`);

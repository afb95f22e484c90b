// Runs one SQL query (FILE replaced by the data path) in DuckDB through the
// npm package @duckdb/node-api, which ships its own native library, and
// prints the row count: a reference row for tests/bench/run.sh.
// Usage: node duckdb_query.mjs FILE SQL THREADS
import { DuckDBInstance } from '@duckdb/node-api';

const [, , file, query, threads] = process.argv;
const instance = await DuckDBInstance.create(':memory:', {
  threads: String(threads || 1),
});
const connection = await instance.connect();
const reader = await connection.runAndReadAll(query.replaceAll('FILE', file));
console.log(reader.getRows().length);

// Runs SQL queries with DuckDB (npm @duckdb/node-api) for compact's
// tests of the results table (table_duckdb_test.go). Reads a JSON object
// {"name": "SQL", ...} on stdin, runs each query in the current
// directory, and prints {"name": [row, ...], ...}: each row an object of
// its columns, values as DuckDB's JSON conversion gives them (BIGINT as
// strings). The package is loaded from $DUCKDB_DIR/node_modules, a cache
// outside the repository.
'use strict';
const path = require('path');
const { DuckDBInstance } = require(path.join(process.env.DUCKDB_DIR, 'node_modules', '@duckdb', 'node-api'));

async function main() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const queries = JSON.parse(input);
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const out = {};
  for (const [name, sql] of Object.entries(queries)) {
    try {
      const reader = await conn.runAndReadAll(sql);
      out[name] = reader.getRowObjectsJson();
    } catch (e) {
      console.error(`query ${name}: ${e.message}`);
      process.exit(1);
    }
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});

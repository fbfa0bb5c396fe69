// Runs every tests/e2e/*.test.mjs against $BASE_URL (a server of the built dist/).
//   BASE_URL=http://127.0.0.1:8080/ node tests/e2e/run.mjs
// scripts/test.sh builds the app, starts the server and runs this.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runAll } from './harness.mjs';

const dir = path.dirname(fileURLToPath(import.meta.url));
for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.test.mjs')).sort()) {
  await import(pathToFileURL(path.join(dir, f)).href);
}
process.exit(await runAll());

import path from 'node:path';
import { pathToFileURL } from 'node:url';
const { runAll } = await import(pathToFileURL('/work/main/tests/e2e/harness.mjs').href);
for (const f of process.argv.slice(2)) await import(pathToFileURL(path.resolve(f)).href);
process.exit(await runAll());

#!/usr/bin/env node
// Writes static/scenarios/index.json into the site being built: the list of shipped scenarios
// (stem, name, description), which the app's scenario picker shows.
//
// Run by Trunk as a post_build hook (see Trunk.toml): it reads <source>/static/scenarios/*.json
// and writes $TRUNK_STAGING_DIR/static/scenarios/index.json, so the index is always generated
// from the files actually shipped and never committed. Outside Trunk, pass the output file:
//   node scripts/scenario-index.mjs [OUT_FILE]      (default: stdout)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = process.env.TRUNK_SOURCE_DIR || path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = path.join(root, 'static', 'scenarios');

// JSONC (contract §1): drop // comments outside strings, and trailing commas.
function stripJsonc(text) {
  let out = '';
  let inStr = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inStr) {
      out += c;
      if (c === '\\') { out += text[++i] ?? ''; } else if (c === '"') { inStr = false; }
    } else if (c === '"') {
      inStr = true; out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else {
      out += c;
    }
  }
  return out.replace(/,(\s*[\]}])/g, '$1');
}

const STEM = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$/;
const scenarios = [];
for (const file of fs.readdirSync(srcDir).sort()) {
  if (!file.endsWith('.json') || file === 'index.json') continue;
  const stem = file.slice(0, -'.json'.length);
  if (!STEM.test(stem)) { console.error(`scenario-index: skipping ${file}: not a valid stem`); continue; }
  const entry = { stem };
  try {
    const doc = JSON.parse(stripJsonc(fs.readFileSync(path.join(srcDir, file), 'utf8')));
    if (typeof doc.name === 'string') entry.name = doc.name;
    if (typeof doc.description === 'string') entry.description = doc.description;
  } catch (e) {
    // Still listed: the app shows the scenario's own error when it is opened.
    console.error(`scenario-index: ${file}: ${e.message}`);
  }
  scenarios.push(entry);
}
const json = JSON.stringify({ scenarios }, null, 1) + '\n';

let out = process.argv[2];
if (!out && process.env.TRUNK_STAGING_DIR) out = path.join(process.env.TRUNK_STAGING_DIR, 'static', 'scenarios', 'index.json');
if (out) {
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, json);
  console.error(`scenario-index: ${scenarios.length} scenarios -> ${out}`);
} else {
  process.stdout.write(json);
}

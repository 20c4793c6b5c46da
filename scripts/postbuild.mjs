// Makes the compiled CLI entry executable so the package's `bin` runs with plain node, and
// copies the non-TypeScript assets tsc leaves behind (CSL styles loaded by src/live/citations.ts).
// Usage: node scripts/postbuild.mjs [outDir]  (default: dist; the packaging test builds elsewhere)
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const out = resolve(process.argv[2] ?? join(root, "dist"));

if (existsSync(join(out, "main.js"))) chmodSync(join(out, "main.js"), 0o755);

const CSL_SRC = join(root, "src", "live", "csl");
const CSL_DIST = join(out, "live", "csl");
mkdirSync(CSL_DIST, { recursive: true });
for (const name of readdirSync(CSL_SRC).filter((n) => n.endsWith(".csl"))) {
  copyFileSync(join(CSL_SRC, name), join(CSL_DIST, name));
}

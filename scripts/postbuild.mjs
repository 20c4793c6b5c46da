// Makes the compiled CLI entry executable so the package's `bin` runs with plain node, and
// copies the non-TypeScript assets tsc leaves behind (CSL styles loaded by src/eutils/cite.ts).
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

if (existsSync("dist/main.js")) chmodSync("dist/main.js", 0o755);

const CSL_SRC = "src/eutils/csl";
const CSL_DIST = "dist/eutils/csl";
mkdirSync(CSL_DIST, { recursive: true });
for (const name of readdirSync(CSL_SRC).filter((n) => n.endsWith(".csl"))) {
  copyFileSync(join(CSL_SRC, name), join(CSL_DIST, name));
}

// Makes the compiled CLI entry executable so the package's `bin` runs with plain node.
import { chmodSync, existsSync } from "node:fs";

if (existsSync("dist/main.js")) chmodSync("dist/main.js", 0o755);

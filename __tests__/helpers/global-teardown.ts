/** Removes the folder of this run that global-setup.ts made (TMPDIR and XDG_CACHE_HOME inside). */
import { rmSync } from "node:fs";
import { basename } from "node:path";

export default function globalTeardown(): void {
  const dir = process.env.PUBMED_MCP_TEST_RUN_DIR;
  if (dir && basename(dir).startsWith("pubmed-mcp-test-run-"))
    rmSync(dir, { recursive: true, force: true });
}

/**
 * Once per `npm test`: rebuildable files the servers under test write (the embedded store's
 * template, config.cacheDir) go to a temporary XDG_CACHE_HOME, not the user's ~/.cache. Jest's
 * workers, and the servers tests spawn, inherit it; global-teardown.ts removes it.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function globalSetup(): void {
  process.env.XDG_CACHE_HOME = mkdtempSync(join(tmpdir(), "pubmed-mcp-test-cache-"));
}

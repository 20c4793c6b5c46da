/**
 * Once per `npm test`: the files the tests and the servers under test write go to one temporary
 * folder of this run, which global-teardown.ts removes.
 *
 * - `tmp/` is TMPDIR, so whatever a test makes with `mkdtemp(tmpdir())` and forgets to remove (a
 *   data directory of an embedded store is about 40 MB) goes with the run, as do the tsx and Node
 *   compile caches of the servers the tests spawn (warm after the first spawn of the run);
 * - `cache/` is XDG_CACHE_HOME: rebuildable files (the embedded store's template, config.cacheDir)
 *   not in the user's ~/.cache.
 *
 * Jest's workers, and the servers tests spawn with the inherited environment, inherit both. The
 * folder's name prefix is what global-teardown.ts checks before it removes anything.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function globalSetup(): void {
  const run = mkdtempSync(join(tmpdir(), "pubmed-mcp-test-run-"));
  for (const sub of ["tmp", "cache"]) mkdirSync(join(run, sub));
  process.env.PUBMED_MCP_TEST_RUN_DIR = run;
  process.env.TMPDIR = join(run, "tmp");
  process.env.XDG_CACHE_HOME = join(run, "cache");
}

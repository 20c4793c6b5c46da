/**
 * Where the repository and the third-party test data (../shared, never copied in) are. Free of
 * jest, so benchmarks can use the test doubles that read them (bench/sections/faults.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const SHARED_DIR = resolve(process.env.PUBMED_SHARED_DIR ?? join(REPO_DIR, "..", "shared"));
export const EUTILS_FIXTURES = join(SHARED_DIR, "fixtures", "eutils");
export const HAS_SHARED = existsSync(EUTILS_FIXTURES);
/** Recorded replies of the literature services (PMC, Europe PMC, ID converter, Unpaywall, PubTator). */
export const LITERATURE_FIXTURES = join(SHARED_DIR, "fixtures", "literature");
export const HAS_LITERATURE = existsSync(LITERATURE_FIXTURES);

/** Reads a file under ../shared/fixtures/literature (paths as in its MANIFEST.tsv). */
export function literatureFixture(relPath: string): string {
  return readFileSync(join(LITERATURE_FIXTURES, relPath), "utf8");
}

/** Reads a file under ../shared/fixtures/eutils. */
export function eutilsFixture(relPath: string): string {
  return readFileSync(join(EUTILS_FIXTURES, relPath), "utf8");
}

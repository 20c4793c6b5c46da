/**
 * Third-party test data lives in ../shared (never copied into the repository). Suites that need
 * it use `describeShared`, which skips with a printed note when the folder is absent.
 */
import { describe } from "@jest/globals";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const SHARED_DIR = resolve(process.env.PUBMED_SHARED_DIR ?? join(REPO_DIR, "..", "shared"));
export const EUTILS_FIXTURES = join(SHARED_DIR, "fixtures", "eutils");
export const HAS_SHARED = existsSync(EUTILS_FIXTURES);

/** `describe` when ../shared is present, otherwise a skipped block and a note on stderr. */
export function describeShared(name: string, fn: () => void): void {
  if (HAS_SHARED) {
    describe(name, fn);
  } else {
    process.stderr.write(`note: skipping "${name}": ${SHARED_DIR} is absent\n`);
    describe.skip(name, fn);
  }
}

/** Reads a file under ../shared/fixtures/eutils. */
export function eutilsFixture(relPath: string): string {
  return readFileSync(join(EUTILS_FIXTURES, relPath), "utf8");
}

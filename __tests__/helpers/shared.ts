/**
 * Third-party test data lives in ../shared (never copied into the repository). Suites that need
 * it use `describeShared`, which skips with a printed note when the folder is absent.
 */
import { describe } from "@jest/globals";
import { HAS_LITERATURE, HAS_SHARED, LITERATURE_FIXTURES, SHARED_DIR } from "./paths.js";

export {
  EUTILS_FIXTURES,
  HAS_LITERATURE,
  HAS_SHARED,
  LITERATURE_FIXTURES,
  REPO_DIR,
  SHARED_DIR,
  eutilsFixture,
  literatureFixture,
} from "./paths.js";

/** `describe` when ../shared is present, otherwise a skipped block and a note on stderr. */
export function describeShared(name: string, fn: () => void): void {
  if (HAS_SHARED) {
    describe(name, fn);
  } else {
    process.stderr.write(`note: skipping "${name}": ${SHARED_DIR} is absent\n`);
    describe.skip(name, fn);
  }
}

/** `describe` when ../shared/fixtures/literature is present, otherwise skipped with a note. */
export function describeLiterature(name: string, fn: () => void): void {
  if (HAS_LITERATURE) {
    describe(name, fn);
  } else {
    process.stderr.write(`note: skipping "${name}": ${LITERATURE_FIXTURES} is absent\n`);
    describe.skip(name, fn);
  }
}

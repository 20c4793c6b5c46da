/**
 * Every migration, listed statically so the build runs from dist/ without scanning the file
 * system (Kysely's FileMigrationProvider would need the .ts/.js files at a known path).
 * Add new files here with a later date prefix; names are executed in sorted order.
 */
import type { Migration, MigrationProvider } from "kysely";
import * as m20261121001 from "./2026_11_21_001_init.js";
import * as m20261125001 from "./2026_11_25_001_sync_windows.js";
import * as m20261126001 from "./2026_11_26_001_record_text.js";
import * as m20261126002 from "./2026_11_26_002_record_bytes.js";
import * as m20261127001 from "./2026_11_27_001_chunks_fk.js";
import * as m20261128001 from "./2026_11_28_001_documents_inline.js";
import * as m20261201001 from "./2026_12_01_001_document_notices.js";
import * as m20261202001 from "./2026_12_02_001_reviews.js";
import * as m20261202002 from "./2026_12_02_002_exports.js";

export const migrations: Record<string, Migration> = {
  "2026_11_21_001_init": m20261121001,
  "2026_11_25_001_sync_windows": m20261125001,
  "2026_11_26_001_record_text": m20261126001,
  "2026_11_26_002_record_bytes": m20261126002,
  "2026_11_27_001_chunks_fk": m20261127001,
  "2026_11_28_001_documents_inline": m20261128001,
  "2026_12_01_001_document_notices": m20261201001,
  "2026_12_02_001_reviews": m20261202001,
  "2026_12_02_002_exports": m20261202002,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};

/**
 * Exports kept for a client to read whole (pubmed_export's resource_link): written once, read by
 * id through resource://pubmed/export/{export_id}, dropped EXPORT_TTL_MS after they were written.
 * In the store rather than in memory, so that any replica of an HTTP deployment serves the link.
 */
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "./schema.js";

/** How long an export stays readable. */
export const EXPORT_TTL_MS = 24 * 60 * 60 * 1000;

export async function saveExport(
  db: Kysely<Database>,
  format: string,
  body: string,
  now = new Date(),
): Promise<string> {
  const id = `ex-${randomBytes(9)
    .toString("base64url")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "x")}`;
  await db
    .deleteFrom("exports")
    .where("created_at", "<", new Date(now.getTime() - EXPORT_TTL_MS))
    .execute();
  await db.insertInto("exports").values({ id, format, body, created_at: now }).execute();
  return id;
}

export async function readExport(
  db: Kysely<Database>,
  id: string,
  now = new Date(),
): Promise<{ format: string; body: string } | null> {
  const row = await db
    .selectFrom("exports")
    .select(["format", "body"])
    .where("id", "=", id)
    .where("created_at", ">=", new Date(now.getTime() - EXPORT_TTL_MS))
    .executeTakeFirst();
  return row ?? null;
}

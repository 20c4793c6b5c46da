/**
 * A chunk's payload as both stores keep it (pgvector columns, Qdrant payload fields): the
 * snake_case row shape and its mapping to and from the ChunkPayload the corpus sees.
 */
import type { Notice } from "../ncbi/notices.js";
import type { ChunkPayload } from "./vector-store.js";

export interface PayloadRow {
  title: string;
  text: string;
  quality: number;
  retracted: boolean;
  pdat_year: number | null;
  version: number;
  /**
   * The paper's integrity notices: null for none (pgvector's column), absent where the point
   * was written before payloads carried them (Qdrant).
   */
  notices?: Notice[] | null;
}

export function payloadFromRow(r: PayloadRow): ChunkPayload {
  return {
    title: r.title,
    text: r.text,
    quality: r.quality,
    retracted: r.retracted,
    pdatYear: r.pdat_year,
    version: r.version,
    ...(r.notices !== undefined && { notices: r.notices ?? [] }),
  };
}

export function payloadToRow(p: ChunkPayload): PayloadRow {
  return {
    title: p.title,
    text: p.text,
    quality: p.quality,
    retracted: p.retracted,
    pdat_year: p.pdatYear,
    version: p.version,
    notices: p.notices ?? [],
  };
}

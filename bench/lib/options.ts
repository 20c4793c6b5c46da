/** How big each benchmark is in each mode (README "Modes" explains the choices). */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { REPO_DIR } from "./child.js";

export type Mode = "full" | "quick" | "smoke";

export interface Sizes {
  /** Repetitions for the cheap, in-process figures (parse, MCP). */
  reps: number;
  /** Size of the synthetic EFetch file for the parse benchmark. */
  parseSynthMb: number;
  /** Zero-latency syncs, on each backend. */
  sync: { records: number; reps: number }[];
  /** The sync against a fake server imitating NCBI (10 requests/s, 300 ms per request). */
  ncbi: { records: number; reps: number };
  search: { chunks: number[]; queries: number; reps: number };
  mcp: { calls: number };
  /** Evaluate on a subset (quick, smoke); undefined = the whole set. */
  quality: { maxQueries?: number; maxDocs?: number };
  /** The MCP loop section: a sync of `records` plus `callers` rag_search loops on a `seed` corpus. */
  loop: { records: number; seed: number; callers: number };
  /** Passes over the NCBI fault matrix; `targets` = the first n tools only (undefined = all). */
  faults: { reps: number; targets?: number };
  /** References verified per style (undefined = the whole reference set, about 230 a style). */
  references: { perStyle?: number };
  /**
   * Generated tool calls, how many at a time, whether the 64 MiB raw message is sent, and how
   * long the server idles before its RSS at the end is read.
   */
  edges: { calls: number; concurrency: number; big: boolean; idleS: number };
  /**
   * The scale section (run only when named): records synced from empty, rag_search queries per
   * pass, and new records one server syncs while another looks for them.
   */
  scale: { records: number; queries: number; peer: number };
}

export const SIZES: Record<Mode, Sizes> = {
  full: {
    reps: 5,
    parseSynthMb: 50,
    sync: [
      { records: 10_000, reps: 3 },
      { records: 100_000, reps: 1 },
    ],
    ncbi: { records: 5_000, reps: 3 },
    search: { chunks: [10_000, 100_000], queries: 200, reps: 3 },
    mcp: { calls: 200 },
    quality: {},
    faults: { reps: 3 },
    loop: { records: 10_000, seed: 2_000, callers: 8 },
    references: {},
    edges: { calls: 10_000, concurrency: 4, big: true, idleS: 30 },
    scale: { records: 1_000_000, queries: 400, peer: 10_000 },
  },
  quick: {
    reps: 3,
    parseSynthMb: 5,
    sync: [{ records: 500, reps: 2 }],
    ncbi: { records: 500, reps: 2 },
    search: { chunks: [2_000], queries: 50, reps: 2 },
    mcp: { calls: 30 },
    quality: { maxQueries: 50 },
    faults: { reps: 1 },
    loop: { records: 2_000, seed: 500, callers: 8 },
    references: { perStyle: 100 },
    edges: { calls: 1_000, concurrency: 4, big: true, idleS: 30 },
    scale: { records: 50_000, queries: 200, peer: 2_000 },
  },
  smoke: {
    reps: 1,
    parseSynthMb: 0.5,
    sync: [{ records: 100, reps: 1 }],
    ncbi: { records: 100, reps: 1 },
    search: { chunks: [300], queries: 20, reps: 1 },
    mcp: { calls: 5 },
    quality: { maxQueries: 10, maxDocs: 300 },
    faults: { reps: 1, targets: 2 },
    loop: { records: 100, seed: 50, callers: 2 },
    references: { perStyle: 20 },
    edges: { calls: 100, concurrency: 4, big: false, idleS: 5 },
    scale: { records: 2_000, queries: 40, peer: 200 },
  },
};

export interface BenchOptions {
  mode: Mode;
  sizes: Sizes;
  /** ../shared (PUBMED_SHARED_DIR), or null when absent. */
  sharedDir: string | null;
}

export function sharedDir(): string | null {
  const dir = resolve(process.env.PUBMED_SHARED_DIR ?? join(REPO_DIR, "..", "shared"));
  return existsSync(dir) ? dir : null;
}

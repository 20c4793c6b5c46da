/**
 * What the `scale` section asks of its servers and its database: a sync through the
 * pubmed_sync_delta tool with its progress notifications timed, rag_search passes with 1 and n
 * callers, keyword queries from the generator's vocabulary, and PostgreSQL's sizes and counts.
 */
import { readFileSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import pg from "pg";
import { vocabulary } from "../../src/devtools/synth-vocab.js";
import { timed } from "./stats.js";

export interface SyncRun {
  result: { inserted: number; updated: number; skipped: number; pmids_processed: number };
  ms: number;
  /** [ms since the call, records processed] at each progress notification that advanced a record. */
  progress: [number, number][];
}

function structured<T>(res: Awaited<ReturnType<Client["callTool"]>>, tool: string): T {
  const text = (res.content as { text?: string }[] | undefined)?.[0]?.text ?? "";
  if (res.isError) throw new Error(`${tool} failed: ${text.slice(0, 400)}`);
  return (res.structuredContent ?? JSON.parse(text)) as T;
}

/** pubmed_sync_delta as an agent calls it, with progress; no request timeout while progress flows. */
export async function syncThrough(
  client: Client,
  args: { query_key: string; term: string },
): Promise<SyncRun> {
  const progress: [number, number][] = [];
  const started = performance.now();
  const { ms, value } = await timed(() =>
    client.callTool(
      { name: "pubmed_sync_delta", arguments: { ...args, max_records: 1_000_000 } },
      undefined,
      {
        timeout: 300_000,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: 6 * 3_600_000,
        onprogress: (p) => {
          const done = Math.floor(p.progress);
          if (done > (progress.at(-1)?.[1] ?? 0))
            progress.push([performance.now() - started, done]);
        },
      },
    ),
  );
  return { result: structured<SyncRun["result"]>(value, "pubmed_sync_delta"), ms, progress };
}

/**
 * Records/s over the first `window` records and over the last `window` (from the first
 * notification at or past records − window to the sync's answer), from the progress timeline.
 */
export function trend(run: SyncRun, records: number, window: number) {
  const at = (n: number) => run.progress.find(([, done]) => done >= n)?.[0] ?? run.ms;
  const firstMs = at(window);
  const lastFrom = run.progress.findLast(([, done]) => done <= records - window) ?? [0, 0];
  const lastRate = ((records - lastFrom[1]) / (run.ms - lastFrom[0])) * 1000;
  const firstDone = run.progress.find(([, done]) => done >= window)?.[1] ?? records;
  return { first: (firstDone / firstMs) * 1000, last: lastRate };
}

export async function ragSearch(client: Client, query: string, topK = 10) {
  const res = await client.callTool({ name: "rag_search", arguments: { query, top_k: topK } });
  return structured<{ results: { doc_id: string }[] }>(res, "rag_search").results;
}

/** Linux's USER_HZ: /proc's CPU times count hundredths of a second. */
const TICK_MS = 10;

/** CPU time (user + system) a process has used so far, ms, from /proc (Linux); NaN elsewhere. */
export function cpuOfPidMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return NaN;
  }
}

/** CPU time every core of the machine has been busy so far, ms, from /proc/stat; NaN elsewhere. */
export function machineBusyMs(): number {
  try {
    const f = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
    return (
      ((f[1] ?? 0) + (f[2] ?? 0) + (f[3] ?? 0) + (f[6] ?? 0) + (f[7] ?? 0) + (f[8] ?? 0)) * TICK_MS
    );
  } catch {
    return NaN;
  }
}

/** CPU per call of a pass, ms: the server's process, this process's (the callers'), the machine's. */
export interface PassCpu {
  server: number;
  callers: number;
  machine: number;
}

/**
 * One pass over `queries` split over `callers` concurrent lanes (one MCP client each), with the
 * CPU it took per call when the server's pid is given.
 */
export async function searchPass(
  clients: readonly Client[],
  queries: readonly string[],
  serverPid?: number,
): Promise<{ latencies: number[]; wallMs: number; cpu?: PassCpu }> {
  const latencies: number[] = [];
  const before = {
    server: cpuOfPidMs(serverPid ?? -1),
    own: process.cpuUsage(),
    machine: machineBusyMs(),
  };
  const { ms } = await timed(() =>
    Promise.all(
      clients.map(async (client, c) => {
        for (let i = c; i < queries.length; i += clients.length) {
          latencies.push((await timed(() => ragSearch(client, queries[i] ?? ""))).ms);
        }
      }),
    ),
  );
  if (serverPid === undefined) return { latencies, wallMs: ms };
  const own = process.cpuUsage(before.own);
  const calls = Math.max(1, latencies.length);
  const cpu: PassCpu = {
    server: (cpuOfPidMs(serverPid) - before.server) / calls,
    callers: (own.user + own.system) / 1000 / calls,
    machine: (machineBusyMs() - before.machine) / calls,
  };
  return { latencies, wallMs: ms, cpu };
}

/** `n` distinct queries of one word no synthetic record holds. */
export function unmatchedQueries(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `zqxv${i.toString(36)}kw`);
}

/**
 * Keyword queries, deterministic: one to two words common to every record (the abstracts'
 * sentence templates) with one to two topic words (interventions, outcomes, markers, keywords:
 * each in a few topics' records only), shuffled.
 */
export function vocabularyQueries(n: number, seed = 7): string[] {
  const v = vocabulary();
  const words = (texts: readonly string[]) => [
    ...new Set(
      texts
        .join(" ")
        .replace(/<[^>]+>|\{[^}]*\}/g, " ")
        .toLowerCase()
        .split(/[^a-z-]+/)
        .filter((w) => w.length >= 5),
    ),
  ];
  const common = words(Object.values(v.sentences).flat());
  const rare = words(
    v.topics.flatMap((t) => [...t.interventions, ...t.outcomes, ...t.markers, ...t.keywords]),
  ).filter((w) => !common.includes(w));
  let state = seed;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const pick = (list: string[]) => list[Math.floor(next() * list.length)] ?? "";
  return Array.from({ length: n }, () => {
    const q = [pick(rare)];
    if (next() < 0.5) q.push(pick(rare));
    q.push(pick(common));
    if (next() < 0.3) q.push(pick(common));
    return q.sort(() => next() - 0.5).join(" ");
  });
}

async function withDb<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface DbSizes {
  databaseMb: number;
  documents: number;
  chunks: number;
  /** Sequential scans of chunk_vectors so far (a sync's deletes must not read it whole). */
  chunkSeqScans: number;
  /** The biggest relations: table (heap + TOAST) and its indexes, MB. */
  relations: { name: string; tableMb: number; indexesMb: number }[];
}

const MB = 2 ** 20;

export async function dbSizes(url: string): Promise<DbSizes> {
  return withDb(url, async (c) => {
    const db = await c.query<{ b: string }>(
      "select pg_database_size(current_database())::text as b",
    );
    const docs = await c.query<{ n: string }>("select count(*)::text as n from documents");
    const chunks = await c.query<{ n: string }>("select count(*)::text as n from chunk_vectors");
    const scans = await c.query<{ n: string }>(
      "select seq_scan::text as n from pg_stat_user_tables where relname = 'chunk_vectors'",
    );
    const rels = await c.query<{ name: string; t: string; i: string }>(
      `select c.relname as name, pg_table_size(c.oid)::text as t, pg_indexes_size(c.oid)::text as i
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema')
       order by pg_total_relation_size(c.oid) desc limit 6`,
    );
    return {
      databaseMb: Number(db.rows[0]?.b) / MB,
      documents: Number(docs.rows[0]?.n),
      chunks: Number(chunks.rows[0]?.n),
      chunkSeqScans: Number(scans.rows[0]?.n),
      relations: rels.rows.map((r) => ({
        name: r.name,
        tableMb: Number(r.t) / MB,
        indexesMb: Number(r.i) / MB,
      })),
    };
  });
}

/** The stored abstracts of these PMIDs. */
export async function abstracts(url: string, pmids: string[]): Promise<Map<string, string>> {
  const { rows } = await withDb(url, (c) =>
    c.query<{ pmid: string; abstract: string }>(
      "select pmid, abstract from documents where pmid = any($1)",
      [pmids],
    ),
  );
  return new Map(rows.map((r) => [r.pmid, r.abstract]));
}

export function relationsText(s: DbSizes): string {
  return s.relations
    .filter((r) => r.tableMb + r.indexesMb >= 1)
    .map((r) => `${r.name} ${r.tableMb.toFixed(0)} MB + indexes ${r.indexesMb.toFixed(0)} MB`)
    .join("; ");
}

/**
 * Scale (issue 48): the corpus engine on PostgreSQL at 1,000,000 records (--quick 50,000, --smoke
 * 2,000), run only when named (`--only scale`). Real `serve --http` processes on one scratch
 * database, driven by MCP clients over Streamable HTTP, fed by a synthetic NCBI in its own process
 * (bench/lib/scale-ncbi-child.ts). In order: a sync from empty of every record, with its progress
 * timed; rag_search latency with 1 and 8 callers; a second sync after 1 % of records were revised
 * and 0.5 % arrived late; a fresh replica's time to its first answer; how long after a sync on one
 * server another server's rag_search finds its records. Sizes of the database after each sync, and
 * the resident set of the server that holds the corpus.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { BenchOptions } from "../lib/options.js";
import { closeCallers, connectCallers, startReplica, type Replica } from "../lib/replicas.js";
import { rssOfPidMb } from "../lib/rss.js";
import { startScaleNcbi } from "../lib/scale-ncbi.js";
import {
  dbSizes,
  ragSearch,
  searchPass,
  syncThrough,
  trend,
  vocabularyQueries,
  abstracts,
  relationsText,
  unmatchedQueries,
  type DbSizes,
} from "../lib/scale-probes.js";
import { emptySection, figure, quantile, ratio, type SectionResult } from "../lib/stats.js";
import { ADMIN_URL, postgresDatabase, probePostgres, registerCleanup } from "../lib/stores.js";

const TERM = "bench scale";
const PEER_TERM = "bench scale peer";
const CALLERS = 8;
/** How often server B is asked whether it sees the records server A synced, ms. */
const PEER_POLL_MS = 25;

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
/** What a pass's CPU figures name. */
const CPU_OF = {
  server: "server process",
  callers: "the bench's MCP clients",
  machine: "whole machine",
} as const;

export async function scaleSection(opts: BenchOptions): Promise<SectionResult> {
  const out = emptySection("Scale");
  const pgUp = await probePostgres();
  if ("problem" in pgUp) {
    out.skipped = `PostgreSQL at ${ADMIN_URL.replace(/\/\/[^@/]*@/, "//…@")} unreachable (${pgUp.problem})`;
    return out;
  }
  const { records, queries: nq, peer } = opts.sizes.scale;
  const revise = Math.round(records / 100);
  const late = Math.round(records / 200);
  const window = Math.round(records / 10);
  const n = fmt(records);
  const sectionStart = performance.now();
  const add = (key: string, label: string, unit: string, v: number) =>
    out.figures.push(figure(`scale.${key}`, label, unit, [v]));

  const ncbi = await startScaleNcbi({ records, seed: 48, term: TERM });
  const db = await postgresDatabase();
  const scratch = await mkdtemp(join(tmpdir(), "pmcp-bench-scale-data-"));
  const servers: Replica[] = [];
  const clients: Client[] = [];
  const stop = registerCleanup(async () => {
    await closeCallers(clients);
    await Promise.all(servers.map((s) => s.close()));
    await rm(scratch, { recursive: true, force: true });
  });
  try {
    const env = {
      DATABASE_URL: db.url,
      PUBMED_MCP_DATA_DIR: scratch, // unused with DATABASE_URL
      NCBI_EUTILS_BASE_URL: ncbi.baseUrl,
      NCBI_MAX_RPS: "100",
      NCBI_TIMEOUT_MS: "300000",
      NCBI_DEADLINE_MS: "3600000",
      EMBEDDINGS_PROVIDER: "none",
      LOG_LEVEL: "error",
    };
    const serverA = await startReplica(env);
    servers.push(serverA);
    const [a] = await connectCallers([serverA.url], 1);
    clients.push(a!);
    const pidA = serverA.process.pid ?? 0;

    // 1. A sync from empty of every record.
    const first = await syncThrough(a!, { query_key: "scale", term: TERM });
    if (first.result.pmids_processed !== records || first.result.inserted !== records)
      throw new Error(`first sync: ${JSON.stringify(first.result)}, expected ${n} inserted`);
    const sizes1 = await dbSizes(db.url);
    const t = trend(first, records, window);
    add(
      "sync.records_per_s",
      `sync from empty, ${n} records: throughput (goal ≥ 2,500)`,
      "records/s",
      (records / first.ms) * 1000,
    );
    add("sync.wall_s", `sync from empty, ${n} records: wall time`, "s", first.ms / 1000);
    add(
      "sync.first_records_per_s",
      `sync from empty: first ${fmt(window)} records`,
      "records/s",
      t.first,
    );
    add(
      "sync.last_records_per_s",
      `sync from empty: last ${fmt(window)} records`,
      "records/s",
      t.last,
    );
    out.ratios.push(
      ratio(
        "scale.sync.trend",
        `sync from empty: last ${fmt(window)} vs first ${fmt(window)} (goal ≥ 0.8)`,
        "records/s over the last ÷ over the first, from progress notifications",
        [t.last],
        [t.first],
      ),
    );
    sizeFigures(add, "after_sync", `after the first sync (${n} records)`, sizes1);

    // 2. rag_search with 1 and CALLERS callers, server A (which synced: the corpus is in it).
    const qs = vocabularyQueries(nq);
    for (const q of qs.slice(0, 20)) await ragSearch(a!, q);
    const many = await connectCallers([serverA.url], CALLERS);
    clients.push(...many);
    for (const [tag, who, lanes] of [
      ["single", "1 caller", [a!]],
      ["concurrent", `${CALLERS} callers`, many],
    ] as const) {
      // The floor: the same calls through HTTP, MCP, the worker and the lexical thread for a word
      // no record holds, so nothing is scored: what a search costs before its postings.
      const floor = await searchPass(lanes, unmatchedQueries(qs.length), pidA);
      add(
        `search.${tag}.unmatched_p50_ms`,
        `rag_search for a word no record holds, ${who}: p50 (the per-call floor)`,
        "ms",
        quantile(floor.latencies, 0.5),
      );
      const pass = await searchPass(lanes, qs, pidA);
      // Where the CPU goes (the callers share the server's two cores): with every core busy a
      // pass's p50 is about callers ÷ throughput, whatever the index does.
      for (const [what, queries, p] of [
        ["unmatched", "a word no record holds", floor],
        ["matched", "the keyword queries", pass],
      ] as const) {
        for (const [side, name] of Object.entries(CPU_OF) as [keyof typeof CPU_OF, string][]) {
          add(
            `search.${tag}.${what}_cpu_${side}_ms`,
            `rag_search (${queries}), ${who}: CPU per call, ${name}`,
            "ms",
            p.cpu?.[side] ?? NaN,
          );
        }
      }
      const c = fmt(sizes1.chunks);
      add(
        `search.${tag}.p50_ms`,
        `rag_search at ${c} chunks, ${who}: p50 (goal ≤ 20)`,
        "ms",
        quantile(pass.latencies, 0.5),
      );
      add(
        `search.${tag}.p99_ms`,
        `rag_search at ${c} chunks, ${who}: p99 (goal ≤ 100)`,
        "ms",
        quantile(pass.latencies, 0.99),
      );
      add(
        `search.${tag}.qps`,
        `rag_search at ${c} chunks, ${who}: throughput`,
        "queries/s",
        (pass.latencies.length / pass.wallMs) * 1000,
      );
    }
    add(
      "rss.peak_mb",
      "server holding the corpus: peak RSS, VmHWM (goal ≤ 4,096)",
      "MB",
      rssOfPidMb(pidA, "VmHWM") ?? NaN,
    );
    add(
      "rss.after_search_mb",
      "server holding the corpus: RSS after the searches",
      "MB",
      rssOfPidMb(pidA) ?? NaN,
    );

    // 3. 1 % revised, 0.5 % late arrivals: the next sync.
    const { rewritten } = await ncbi.change(revise, late);
    const every = Math.max(1, Math.floor(rewritten.length / 200));
    const sample = rewritten.filter((_, i) => i % every === 0);
    const before = await abstracts(db.url, sample);
    const second = await syncThrough(a!, { query_key: "scale", term: TERM });
    const sizes2 = await dbSizes(db.url);
    const after = await abstracts(db.url, sample);
    const unchanged = sample.filter((p) => before.get(p) === after.get(p)).length;
    const r2 = second.result;
    if (
      sizes2.documents !== records + late ||
      r2.inserted !== late ||
      r2.updated !== revise ||
      unchanged > 0
    )
      throw new Error(
        `second sync: ${JSON.stringify(r2)}; ${sizes2.documents} documents, expected ${fmt(records + late)}; ${unchanged} of ${sample.length} sampled revisions not applied`,
      );
    add(
      "resync.wall_s",
      `next sync, ${fmt(revise)} revised + ${fmt(late)} late arrivals: wall time`,
      "s",
      second.ms / 1000,
    );
    add(
      "resync.records_per_s",
      "next sync: throughput",
      "records/s",
      (r2.pmids_processed / second.ms) * 1000,
    );
    sizeFigures(
      add,
      "after_resync",
      `after the next sync (${fmt(sizes2.documents)} records)`,
      sizes2,
    );

    // 4. A fresh replica on the same database: spawn to its first rag_search answer.
    const spawned = performance.now();
    const serverB = await startReplica(env);
    servers.push(serverB);
    const readyMs = performance.now() - spawned;
    const [b] = await connectCallers([serverB.url], 1);
    clients.push(b!);
    await ragSearch(b!, qs[0] ?? "outcome");
    add(
      "replica.first_answer_s",
      "fresh replica: spawn to its first rag_search answer (goal ≤ 60)",
      "s",
      (performance.now() - spawned) / 1000,
    );
    add("replica.ready_s", "fresh replica: spawn to /readyz", "s", readyMs / 1000);
    add(
      "replica.rss_mb",
      "fresh replica: RSS after its first answer",
      "MB",
      rssOfPidMb(serverB.process.pid ?? 0) ?? NaN,
    );

    // 5. Peer visibility: A syncs `peer` new records; when does B's rag_search find the newest?
    const { pmids, titles } = await ncbi.add(PEER_TERM, peer);
    const newest = pmids.at(-1) ?? "";
    let foundAt = NaN;
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const hits = await ragSearch(b!, titles.at(-1) ?? "", 100);
        if (hits.some((h) => h.doc_id === `pmid:${newest}`)) return (foundAt = performance.now());
        await sleep(PEER_POLL_MS);
      }
      return NaN;
    })();
    const peerSync = await syncThrough(a!, { query_key: "scale-peer", term: PEER_TERM });
    const committed = performance.now();
    const deadline = committed + 30_000;
    while (Number.isNaN(foundAt) && performance.now() < deadline) await sleep(5);
    polling = false;
    await poller;
    if (peerSync.result.inserted !== peer)
      throw new Error(`peer sync: ${JSON.stringify(peerSync.result)}`);
    add(
      "peer.lag_ms",
      `peer visibility: B finds A's newest record after A's ${fmt(peer)}-record sync answered (goal ≤ 1,000)`,
      "ms",
      Math.max(0, foundAt - committed),
    );
    add(
      "peer.sync_s",
      `peer visibility: A's sync of ${fmt(peer)} new records, wall time`,
      "s",
      peerSync.ms / 1000,
    );

    out.notes.push(
      `${n} synthetic records (the demo's generator, seed 48, Entrez dates 2000–2024) → ${fmt(sizes1.chunks)} chunks; the stand-in rendered their EFetch XML to disk before the run in ${(ncbi.renderMs / 1000).toFixed(0)} s, in its own process; NCBI_MAX_RPS=100, EMBEDDINGS_PROVIDER=none (lexical only).`,
      `Every figure is one run (n = 1). Syncs are pubmed_sync_delta calls to a \`serve --http\` process on PostgreSQL, over MCP; first/last ${fmt(window)} records from its progress notifications.`,
      `Next sync: ${fmt(r2.inserted)} inserted, ${fmt(r2.updated)} updated, ${fmt(r2.skipped)} unchanged; store holds ${fmt(sizes2.documents)} documents (expected ${fmt(records + late)}); ${sample.length} sampled revised abstracts all changed.`,
      `Biggest relations after the first sync: ${relationsText(sizes1)}; after the next: ${relationsText(sizes2)}.`,
      `rag_search: ${qs.length} keyword queries (1–2 topic words, 1–2 words of every abstract), top_k 10, quality_bias on; the ${CALLERS}-caller pass splits the same queries over ${CALLERS} MCP clients of server A. Peer visibility: B polls rag_search every ${PEER_POLL_MS} ms for the title of the newest synced record; lag 0 = found before A answered.`,
    );
    add(
      "section.wall_s",
      "scale section: total wall time",
      "s",
      (performance.now() - sectionStart) / 1000,
    );
  } catch (err) {
    // The figures measured so far stay in the report beside the error.
    out.error = err instanceof Error ? err.message : String(err);
  } finally {
    await stop();
    await ncbi.close();
    await db.drop();
  }
  return out;
}

function sizeFigures(
  add: (key: string, label: string, unit: string, v: number) => void,
  key: string,
  when: string,
  s: DbSizes,
): void {
  add(`db.${key}.database_mb`, `pg_database_size ${when}`, "MB", s.databaseMb);
  add(
    `db.${key}.chunk_seq_scans`,
    `sequential scans of chunk_vectors, total ${when}`,
    "",
    s.chunkSeqScans,
  );
  const biggest = s.relations[0];
  if (biggest)
    add(
      `db.${key}.biggest_mb`,
      `largest relation (${biggest.name}) ${when}, table + indexes`,
      "MB",
      biggest.tableMb + biggest.indexesMb,
    );
}

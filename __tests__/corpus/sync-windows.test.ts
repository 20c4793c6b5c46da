/**
 * Complete and current windows (issue 12), through a real MCP client on both Postgres backends
 * against the synthetic NCBI: a back-dated arrival (EDAT long before the checkpoint, created
 * inside the window) and a retraction of an old record (modification date new) are caught by the
 * next sync; a long Retry-After ends a sync with RATE_LIMIT, the checkpoint at the last complete
 * window, the job marked and the lock released; a ~1,200-record sync reports progress at least
 * every 500 records.
 */
import { beforeEach, expect, it, jest } from "@jest/globals";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { listJobs } from "../../src/store/jobs.js";
import { corpusDb } from "../helpers/corpus-db.js";
import { storedPmids, unindexedPmids, type ErrOut, type SyncOut } from "../helpers/corpus.js";
import { describeEachBackend } from "../helpers/db.js";
import { rateLimitReply } from "../helpers/fake-eutils.js";
import { useCorpusServer } from "../helpers/corpus-server.js";
import { useSynthNcbi } from "../helpers/synth-ncbi.js";
import { callTool, type Harness } from "../helpers/mcp.js";

jest.setTimeout(180_000);

const TERM = "statin myopathy";
const BIG = "asthma biologics";
const NOW = new Date("2025-06-30T12:00:00Z");
const DAY_MS = 86_400_000;

interface CheckpointOut {
  query_key: string;
  last_edat: string | null;
  last_mdat: string | null;
  last_sync: { job_id: string; status: string; pmids_processed: number } | null;
}

describeEachBackend("complete and current sync windows", (kind) => {
  const ncbi = useSynthNcbi({
    seed: 7,
    now: NOW,
    terms: [{ term: TERM, count: 240, edatFrom: "2019-01-01", edatTo: "2025-06-20" }],
  });
  const server = useCorpusServer(kind, ncbi, { NCBI_MAX_RETRIES: "1" });
  let h: Harness;

  beforeEach(async () => {
    h = await server.open();
  });

  const sync = async (args: Record<string, unknown> = {}) =>
    callTool(h.client, "pubmed_sync_delta", { query_key: "statins", term: TERM, ...args });
  const checkpoint = async () =>
    (await callTool(h.client, "corpus_checkpoint_get", { query_key: "statins" }))
      .json as CheckpointOut;
  const searchIds = async (query: string) =>
    (
      (await callTool(h.client, "rag_search", { query, top_k: 10, quality_bias: false })).json as {
        results: { doc_id: string }[];
      }
    ).results.map((r) => r.doc_id);

  it("catches an arrival whose Entrez date PubMed back-dated to before the checkpoint", async () => {
    expect((await sync()).isError).toBe(false);
    const before = await checkpoint();
    expect(before.last_edat).not.toBeNull();
    expect(before.last_mdat).not.toBeNull();
    expect(before.last_sync).toMatchObject({ status: "succeeded", pmids_processed: 240 });

    // Published (and EDAT-stamped) in 2020, entered PubMed today.
    const [late] = ncbi.corpus.add({
      term: TERM,
      count: 1,
      edatFrom: "2020-03-02",
      edatTo: "2020-03-02",
      createdAt: new Date().toISOString(),
    });
    const from = new Date(Date.parse(before.last_edat ?? "") - 5 * DAY_MS).toISOString();
    // An Entrez-date window from the checkpoint would not find it.
    expect(ncbi.corpus.pmidsFor(TERM, { edatFrom: from.slice(0, 10) })).not.toContain(late);

    ncbi.fake.requests.length = 0;
    const next = (await sync()).json as SyncOut;
    expect(next).toMatchObject({ inserted: 1, updated: 0, pmids_processed: 1 });
    expect(await storedPmids()).toContain(late);
    expect(await unindexedPmids()).toEqual([]);
    const searches = ncbi.fake.requests.filter((r) => r.utility === "esearch").map((r) => r.params);
    expect(searches.some((p) => /\[crdt\]/.test(p.term ?? "") && !p.datetype)).toBe(true);
    expect(searches.some((p) => p.datetype === "mdat" && / NOT \(/.test(p.term ?? ""))).toBe(true);
    expect(searches.every((p) => p.datetype !== "edat")).toBe(true);
  });

  it("catches a retraction of an old record: version bumped, gone from rag_search at once", async () => {
    await sync();
    const pmids = ncbi.corpus.pmidsFor(TERM).filter((p) => !ncbi.corpus.record(p)?.retraction);
    const target = pmids[3] ?? "";
    const paper = async () =>
      (await callTool(h.client, "rag_get", { doc_id: `pmid:${target}` })).json as {
        title: string;
        version: number;
        pub_types: string[];
        lr: string;
      };
    const { title } = await paper();
    expect(await searchIds(title)).toContain(`pmid:${target}`);
    const marks = await checkpoint();

    ncbi.corpus.revise(target, { lr: new Date(), retract: true });
    const next = (await sync()).json as SyncOut;
    expect(next).toMatchObject({ inserted: 0, updated: 1, pmids_processed: 1 });
    const after = await paper();
    expect(after.version).toBe(2);
    expect(after.pub_types).toContain("Retracted Publication");
    expect(after.lr).toBe(new Date().toISOString().slice(0, 10));
    expect(await searchIds(title)).not.toContain(`pmid:${target}`);
    const moved = await checkpoint();
    expect(Date.parse(moved.last_mdat ?? "")).toBeGreaterThan(Date.parse(marks.last_mdat ?? ""));
  });

  it("walks revisions in windows: max_records stops on a window boundary and the next call resumes", async () => {
    await sync();
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    // 30 old records revised over the last five days, six a day, all inside the overlap.
    const revised = ncbi.corpus
      .pmidsFor(TERM)
      .filter((p) => !ncbi.corpus.record(p)?.retraction)
      .slice(0, 30);
    revised.forEach((p, i) => {
      const day = new Date(today - (4 - Math.floor(i / 6)) * DAY_MS);
      ncbi.corpus.revise(p, {
        lr: day,
        changeAbstract: true,
        mdat: new Date(day.getTime() + 3_600_000),
      });
    });
    let updated = 0;
    let rounds = 0;
    for (;;) {
      const out = (await sync({ max_records: 10 })).json as SyncOut;
      rounds++;
      expect(out.pmids_processed).toBeLessThanOrEqual(10);
      updated += out.updated;
      if (!out.warnings.join(" ").includes("call again") || rounds >= 10) break;
      expect((await checkpoint()).last_sync?.status).toBe("partial");
    }
    expect(updated).toBe(30);
    expect(rounds).toBeGreaterThanOrEqual(3);
    expect(rounds).toBeLessThan(10);
    for (const p of revised.slice(0, 3)) {
      const doc = (await callTool(h.client, "rag_get", { doc_id: `pmid:${p}` })).json as {
        version: number;
      };
      expect(doc.version).toBe(2);
    }
    expect((await checkpoint()).last_sync?.status).toBe("succeeded");
    // Once complete, a replay re-reads the overlap again and changes nothing.
    expect((await sync()).json).toMatchObject({ inserted: 0, updated: 0 });
  });

  it("stops at a long Retry-After with RATE_LIMIT, the checkpoint at the last complete window, the lock released", async () => {
    let limited = true;
    ncbi.fake.route((req) =>
      limited &&
      req.utility === "efetch" &&
      ncbi.fake.requests.filter((r) => r.utility === "efetch").length >= 2
        ? rateLimitReply(429, 3600)
        : undefined,
    );
    const stopped = await sync({ max_records: 100 });
    expect(stopped.isError).toBe(true);
    const error = (stopped.json as ErrOut).error as {
      code: string;
      message: string;
      details: Record<string, unknown>;
    };
    expect(error.code).toBe("RATE_LIMIT");
    expect(error.message).toMatch(/pause of 3600 s \(until \d{4}-\d\d-\d\dT/);
    expect(error.message).toContain("pubmed_sync_delta again after");
    expect(error.details).toMatchObject({ retryAfterSeconds: 3600, queryKey: "statins" });

    const cp = await checkpoint();
    expect(cp.last_sync).toMatchObject({ status: "rate_limited", job_id: error.details.jobId });
    expect(error.details.lastEdat).toBe(cp.last_edat);
    // The first window was stored whole; the checkpoint covers it and nothing more.
    expect(cp.last_edat).not.toBeNull();
    const stored = await storedPmids();
    expect(stored).toEqual(
      expect.arrayContaining(
        ncbi.corpus.pmidsFor(TERM, { edatTo: (cp.last_edat ?? "").slice(0, 10) }),
      ),
    );
    expect(stored.length).toBeLessThan(ncbi.corpus.pmidsFor(TERM).length);
    expect(await unindexedPmids()).toEqual([]);

    // The lock is free: the next sync starts and converges.
    limited = false;
    const rerun = await sync();
    expect(rerun.isError).toBe(false);
    expect(await storedPmids()).toEqual([...ncbi.corpus.pmidsFor(TERM)].sort());
    expect(await unindexedPmids()).toEqual([]);
    const statuses = (await listJobs(corpusDb, { queryKey: "statins" })).map((j) => j.status);
    expect(statuses).toEqual(["succeeded", "rate_limited"]);
  });

  it("reports progress at least every 500 records through a real MCP client", async () => {
    const pmids = ncbi.corpus.add({
      term: BIG,
      count: 1_200,
      edatFrom: "2021-01-01",
      edatTo: "2025-06-01",
    });
    const progress: Progress[] = [];
    const res = await h.client.callTool(
      { name: "pubmed_sync_delta", arguments: { query_key: "big", term: BIG } },
      undefined,
      { onprogress: (p) => progress.push(p), timeout: 170_000 },
    );
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({ inserted: pmids.length });
    expect(progress.length).toBeGreaterThanOrEqual(Math.ceil(pmids.length / 500));
    const values = progress.map((p) => p.progress);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1] ?? 0);
    expect(values.filter((v) => v >= 1 && Number.isInteger(v)).length).toBeGreaterThanOrEqual(3);
    expect(progress.at(-1)).toMatchObject({ progress: pmids.length, total: pmids.length });
  });
});

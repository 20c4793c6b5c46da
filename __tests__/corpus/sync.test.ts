/**
 * pubmed_sync_delta, rag_search, rag_get and the checkpoint tools through a real MCP client, on
 * both Postgres backends, against a synthetic NCBI (project-generated records) behind the fake
 * E-utilities server.
 */
import { beforeEach, expect, it, jest } from "@jest/globals";
import { sql } from "kysely";
import { corpusDb } from "../helpers/corpus-db.js";
import { listAudit } from "../../src/store/checkpoints.js";
import { listJobs } from "../../src/store/jobs.js";
import { storedPmids, unindexedPmids, type ErrOut, type SyncOut } from "../helpers/corpus.js";
import { describeEachBackend } from "../helpers/db.js";
import { useCorpusServer } from "../helpers/corpus-server.js";
import { useSynthNcbi } from "../helpers/synth-ncbi.js";
import { callTool, type Harness } from "../helpers/mcp.js";

jest.setTimeout(120_000);

const TERM = "statin myopathy";
const NOW = new Date("2025-06-30T12:00:00Z");

describeEachBackend("corpus sync and search", (kind) => {
  const ncbi = useSynthNcbi({
    seed: 7,
    now: NOW,
    terms: [{ term: TERM, count: 240, edatFrom: "2019-01-01", edatTo: "2025-06-20" }],
  });
  // Hash vectors: these tests check the dense leg too (the default, none, is lexical-only.test.ts).
  const server = useCorpusServer(kind, ncbi, { EMBEDDINGS_PROVIDER: "hash" });
  let h: Harness;

  beforeEach(async () => {
    h = await server.open();
  });

  const sync = async (args: Record<string, unknown> = {}) =>
    callTool(h.client, "pubmed_sync_delta", { query_key: "statins", term: TERM, ...args });

  it("stores and indexes every record on the first sync, then replays idempotently", async () => {
    const first = await sync();
    expect(first.isError).toBe(false);
    const out = first.json as SyncOut;
    const expected = ncbi.corpus.pmidsFor(TERM);
    expect(out).toMatchObject({
      inserted: expected.length,
      updated: 0,
      skipped: 0,
      pmids_processed: expected.length,
    });
    expect(await storedPmids()).toEqual([...expected].sort());
    expect(await unindexedPmids()).toEqual([]);
    const cp = await callTool(h.client, "corpus_checkpoint_get", { query_key: "statins" });
    expect((cp.json as { last_edat: string }).last_edat).toMatch(/^\d{4}-\d\d-\d\dT/);

    const replay = (await sync({ overlap_days: 0 })).json as SyncOut;
    expect(replay.inserted).toBe(0);
    expect(replay.updated).toBe(0);

    // The overlap re-reads exactly the records whose Entrez day falls in [checkpoint − N days, now].
    const lastEdat = (
      (await callTool(h.client, "corpus_checkpoint_get", { query_key: "statins" })).json as {
        last_edat: string;
      }
    ).last_edat;
    const overlapDays = Math.ceil(
      (new Date(lastEdat).getTime() - new Date("2024-06-01T00:00:00Z").getTime()) / 86_400_000,
    );
    const from = new Date(new Date(lastEdat).getTime() - overlapDays * 86_400_000)
      .toISOString()
      .slice(0, 10);
    const overlap = (await sync({ overlap_days: overlapDays })).json as SyncOut;
    expect(ncbi.corpus.pmidsFor(TERM, { edatFrom: from }).length).toBeGreaterThan(0);
    expect(overlap).toMatchObject({
      inserted: 0,
      updated: 0,
      skipped: ncbi.corpus.pmidsFor(TERM, { edatFrom: from }).length,
    });
    expect(await storedPmids()).toEqual([...expected].sort());
  });

  it("leaves the store with planner statistics and, embedded, a fresh checkpoint", async () => {
    const statistics = async () =>
      Number(
        (
          await sql<{ n: string }>`select count(*) as n from pg_stats
            where schemaname = current_schema() and tablename in ('documents', 'chunks')`.execute(
            corpusDb,
          )
        ).rows[0]?.n,
      );
    const redo = async () =>
      (
        await sql<{
          lsn: string;
        }>`select redo_lsn::text as lsn from pg_control_checkpoint()`.execute(corpusDb)
      ).rows[0]?.lsn;
    const before = { statistics: await statistics(), redo: await redo() };
    expect((await sync()).isError).toBe(false);
    if (kind === "pglite") {
      // No autovacuum or checkpointer runs in PGlite: only the sync can have done these.
      expect(before.statistics).toBe(0);
      expect(await redo()).not.toBe(before.redo);
    }
    expect(await statistics()).toBeGreaterThan(0);
  });

  it("re-reads the overlap window and bumps versions on content change or LR advance only", async () => {
    await sync();
    const pmids = ncbi.corpus.pmidsFor(TERM);
    const target = pmids[pmids.length - 1] ?? "";
    const before = (await callTool(h.client, "rag_get", { doc_id: `pmid:${target}` })).json as {
      version: number;
      lr: string | null;
    };
    expect(before.version).toBe(1);
    // A backfill: move the checkpoint back so the whole range is read again.
    await callTool(h.client, "corpus_checkpoint_set", {
      query_key: "statins",
      last_edat: "2018-01-01T00:00:00Z",
    });
    ncbi.corpus.revise(target, { lr: new Date("2025-06-25T00:00:00Z") });
    const lrOnly = (await sync()).json as SyncOut;
    expect(lrOnly).toMatchObject({ inserted: 0, updated: 1, skipped: pmids.length - 1 });
    const after = (await callTool(h.client, "rag_get", { doc_id: `pmid:${target}` })).json as {
      version: number;
      lr: string;
    };
    expect(after.version).toBe(2);
    expect(after.lr).toBe("2025-06-25"); // DateRevised is a day: no time in the answer

    await callTool(h.client, "corpus_checkpoint_set", {
      query_key: "statins",
      last_edat: "2018-01-01T00:00:00Z",
    });
    ncbi.corpus.revise(target, { lr: new Date("2025-06-25T00:00:00Z"), changeAbstract: true });
    const content = (await sync()).json as SyncOut;
    expect(content.updated).toBe(1);
    expect(
      (
        (await callTool(h.client, "rag_get", { doc_id: `pmid:${target}` })).json as {
          version: number;
        }
      ).version,
    ).toBe(3);
    const audit = await listAudit(corpusDb, "statins");
    expect(audit.filter((a) => a.source === "manual").map((a) => a.newEdat)).toEqual([
      "2018-01-01T00:00:00.000Z",
      "2018-01-01T00:00:00.000Z",
    ]);
  });

  it("never advances the checkpoint past a failed EFetch, and the rerun converges", async () => {
    // max_records splits the range into several windows; the second window's EFetch fails.
    let failing = true;
    ncbi.fake.route((req) =>
      failing &&
      req.utility === "efetch" &&
      ncbi.fake.requests.filter((r) => r.utility === "efetch").length >= 2
        ? { status: 500, body: "boom" }
        : undefined,
    );
    const failed = await sync({ max_records: 100 });
    expect(failed.isError).toBe(true);
    expect((failed.json as ErrOut).error.code).toBe("UPSTREAM");
    const cp = (await callTool(h.client, "corpus_checkpoint_get", { query_key: "statins" }))
      .json as { last_edat: string | null };
    const stored = await storedPmids();
    if (cp.last_edat) {
      // Everything at or before the checkpoint is stored.
      const covered = ncbi.corpus.pmidsFor(TERM, { edatTo: cp.last_edat.slice(0, 10) });
      expect(stored).toEqual(expect.arrayContaining(covered));
    }
    expect(stored.length).toBeLessThan(ncbi.corpus.pmidsFor(TERM).length);
    expect((await listJobs(corpusDb, { queryKey: "statins" }))[0]?.status).toBe("failed");

    failing = false;
    const rerun = (await sync()).json as SyncOut;
    expect(rerun.warnings).toEqual([]);
    expect(await storedPmids()).toEqual([...ncbi.corpus.pmidsFor(TERM)].sort());
    expect(await unindexedPmids()).toEqual([]);
  });

  it("runs two syncs of one key one after the other, never interleaved", async () => {
    const [a, b] = await Promise.all([sync(), sync()]);
    const outs = [a.json as SyncOut, b.json as SyncOut];
    expect(outs.map((o) => o.inserted).sort((x, y) => x - y)).toEqual([
      0,
      ncbi.corpus.pmidsFor(TERM).length,
    ]);
    const jobs = (await listJobs(corpusDb, { queryKey: "statins" })).sort((x, y) =>
      x.startedAt.localeCompare(y.startedAt),
    );
    expect(jobs).toHaveLength(2);
    expect((jobs[0]?.finishedAt ?? "") <= (jobs[1]?.startedAt ?? "")).toBe(true);
  });

  it("bounds one call by max_records and resumes on the next", async () => {
    const total = ncbi.corpus.pmidsFor(TERM).length;
    const first = (await sync({ max_records: 100 })).json as SyncOut;
    expect(first.pmids_processed).toBeLessThanOrEqual(100);
    expect(first.pmids_processed).toBeGreaterThan(0);
    expect(first.warnings.join(" ")).toContain("call again to continue");
    let rounds = 1;
    while ((await storedPmids()).length < total && rounds < 10) {
      await sync({ max_records: 100, overlap_days: 0 });
      rounds++;
    }
    expect(await storedPmids()).toEqual([...ncbi.corpus.pmidsFor(TERM)].sort());
    expect(rounds).toBeGreaterThanOrEqual(3);
  });

  it("says when a key's term changed, and walks the new term from the key's checkpoint, not from the old term's resume point", async () => {
    const other = "ezetimibe adherence";
    ncbi.corpus.add({ term: other, count: 100, edatFrom: "2019-01-01", edatTo: "2025-06-20" });
    const partial = (await sync({ max_records: 100 })).json as SyncOut;
    expect(partial.warnings.join(" ")).toContain("call again to continue");
    const { last_edat: lastEdat } = (
      await callTool(h.client, "corpus_checkpoint_get", { query_key: "statins" })
    ).json as { last_edat: string };

    const switched = (await sync({ term: other, overlap_days: 365 })).json as SyncOut;
    const from = new Date(new Date(lastEdat).getTime() - 365 * 86_400_000);
    const expected = ncbi.corpus.pmidsFor(other, { edatFrom: from.toISOString().slice(0, 10) });
    // Resumed at the old term's mark (the day after its last window), the walk would skip the
    // new term's records of the overlap before it.
    expect(expected.length).toBeGreaterThan(0);
    expect(switched.pmids_processed).toBe(expected.length);
    expect(switched.warnings).toEqual([
      `query_key "statins" was last synced with the term "${TERM}". ` +
        `This call's term is searched from the checkpoint (${lastEdat.slice(0, 10)}) on, less overlap_days, ` +
        "not from the beginning: for all of its records, use a new query_key. " +
        "The earlier term's unfinished sync is not resumed.",
    ]);
    // The same term, spaced and cased otherwise, is the same query: no warning.
    const again = (await sync({ term: `  Ezetimibe   ADHERENCE ` })).json as SyncOut;
    expect(again.warnings).toEqual([]);
  });

  it("searches a corrected term from the beginning when the key's syncs matched nothing", async () => {
    const typo = "statin myopahty";
    const mistyped = (await sync({ term: typo })).json as SyncOut;
    expect(mistyped.pmids_processed).toBe(0);
    const { last_edat: emptyMark } = (
      await callTool(h.client, "corpus_checkpoint_get", { query_key: "statins" })
    ).json as { last_edat: string };
    expect(emptyMark).toMatch(/^\d{4}-\d\d-\d\dT/); // the empty sync covered its windows

    const corrected = (await sync({ max_records: 100 })).json as SyncOut;
    expect(corrected.pmids_processed).toBeLessThanOrEqual(100);
    expect(corrected.warnings[0]).toBe(
      `query_key "statins" was last synced with the term "${typo}", which matched nothing; ` +
        "this call's term is searched from the beginning.",
    );
    // The mark moved from the beginning, not kept at the empty sync's: a crash here loses nothing.
    const { last_edat: partialMark } = (
      await callTool(h.client, "corpus_checkpoint_get", { query_key: "statins" })
    ).json as { last_edat: string | null };
    expect(partialMark === null || partialMark < emptyMark).toBe(true);

    const rest = (await sync()).json as SyncOut;
    expect(rest.warnings).toEqual([]);
    const expected = ncbi.corpus.pmidsFor(TERM);
    expect(corrected.pmids_processed + rest.pmids_processed).toBe(expected.length);
    expect(await storedPmids()).toEqual([...expected].sort());
  });

  it("keeps a checkpoint set by hand for a new term, though the key's syncs matched nothing", async () => {
    await sync({ term: "statin myopahty" });
    await callTool(h.client, "corpus_checkpoint_set", {
      query_key: "statins",
      last_edat: "2025-01-01T00:00:00Z",
    });
    const out = (await sync({ overlap_days: 0 })).json as SyncOut;
    expect(out.pmids_processed).toBe(ncbi.corpus.pmidsFor(TERM, { edatFrom: "2025-01-01" }).length);
    expect(out.pmids_processed).toBeLessThan(ncbi.corpus.pmidsFor(TERM).length);
    expect(out.warnings.join(" ")).toContain("searched from the checkpoint (2025-01-01) on");
  });

  it("sends a later sync's two searches (arrivals, revisions) together, not one after the other", async () => {
    await sync();
    // The arrivals search is answered only once the revisions search has arrived (or after 10 s).
    let revisionsArrived: () => void = () => undefined;
    const revisions = new Promise<void>((resolve) => (revisionsArrived = resolve));
    let together = false;
    ncbi.fake.route(async (req) => {
      if (req.utility !== "esearch") return undefined;
      if (req.params.datetype === "mdat") revisionsArrived();
      else {
        let timer: NodeJS.Timeout | undefined;
        together = await Promise.race([
          revisions.then(() => true),
          new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 10_000))),
        ]);
        clearTimeout(timer);
      }
      return undefined; // the synthetic NCBI answers
    });
    const out = await sync();
    expect(out.isError).toBe(false);
    expect(together).toBe(true);
  });

  it("ends a later sync whose first search fails only once its other search is answered", async () => {
    await sync();
    let revisionsAnswered = false;
    ncbi.fake.route(async (req) => {
      if (req.utility !== "esearch") return undefined;
      if (req.params.datetype !== "mdat") {
        return { status: 400, body: "fake: a search NCBI refuses", contentType: "text/plain" };
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      revisionsAnswered = true;
      return undefined; // the synthetic NCBI answers
    });
    const out = await sync();
    expect(out.isError).toBe(true);
    expect(revisionsAnswered).toBe(true);
  });

  it("passes on what PubMed says of the term, once, without its empty-window notices", async () => {
    // The fake answers such a term as NCBI does: PhraseNotFound, and "No items found."
    const term = "qqqxyz nothing";
    for (const call of [1, 2]) {
      // The second call has a checkpoint: two searches (arrivals, revisions), one warning.
      const out = (await sync({ query_key: "unknown", term })).json as SyncOut;
      expect({ call, out }).toMatchObject({
        call,
        out: { pmids_processed: 0, warnings: [`PubMed on the term: Phrase not found: "${term}"`] },
      });
    }
    const searches = ncbi.fake.requests.filter((r) => r.utility === "esearch");
    expect(searches).toHaveLength(3);
  });

  it("finds a synced paper with rag_search and reads it with rag_get; retracted papers never come back", async () => {
    await sync();
    const pmid = ncbi.corpus.pmidsFor(TERM)[17] ?? "";
    const record = ncbi.corpus.record(pmid);
    const title = (await callTool(h.client, "rag_get", { doc_id: `pmid:${pmid}` })).json as {
      title: string;
      abstract: string;
      quality: { total: number };
    };
    const search = (
      await callTool(h.client, "rag_search", { query: title.title, top_k: 5, quality_bias: false })
    ).json as {
      results: {
        doc_id: string;
        sim: number | null;
        bm25: number | null;
        score: number;
        quality: number;
        title: string;
        text: string;
      }[];
    };
    expect(search.results[0]?.doc_id).toBe(`pmid:${pmid}`);
    expect(search.results[0]?.title).toBe(title.title);
    expect(search.results[0]?.bm25).toBeGreaterThan(0);
    expect(search.results[0]?.sim).toBeGreaterThan(0);
    expect(search.results[0]?.quality).toBe(title.quality.total);
    expect(record).toBeDefined();
    // What an agent is spared (issue 10): the title again at the head of each passage, the chunk
    // uuid unless asked for, digits past the fourth significant one; 10 papers by default.
    const byDefault = (await callTool(h.client, "rag_search", { query: title.title }))
      .json as typeof search;
    expect(byDefault.results).toHaveLength(10);
    for (const r of byDefault.results) {
      expect(r).not.toHaveProperty("uuid");
      expect(r.text.startsWith(r.title)).toBe(false);
      for (const x of [r.sim, r.bm25, r.score]) {
        if (x !== null) expect(Number(x.toPrecision(4))).toBe(x);
      }
    }
    const own = byDefault.results.find((r) => r.doc_id === `pmid:${pmid}`);
    expect(title.abstract).toContain(own?.text.slice(0, 60));
    const withUuid = (
      await callTool(h.client, "rag_search", { query: title.title, top_k: 2, include_uuid: true })
    ).json as { results: { uuid: string }[] };
    for (const r of withUuid.results)
      expect(r.uuid).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
    // The quality boost multiplies each paper's fused relevance by 1 + quality/10, nothing else.
    const biased = (await callTool(h.client, "rag_search", { query: title.title, top_k: 5 }))
      .json as typeof search;
    const unbiased = new Map(
      (
        (
          await callTool(h.client, "rag_search", {
            query: title.title,
            top_k: 50,
            quality_bias: false,
          })
        ).json as typeof search
      ).results.map((r) => [r.doc_id, r.score]),
    );
    // Scores come rounded to 4 significant digits, so the product holds to about 1 part in 1,000.
    for (const r of biased.results) {
      const expected = (unbiased.get(r.doc_id) ?? NaN) * (1 + r.quality / 10);
      expect(Math.abs(r.score / expected - 1)).toBeLessThan(1e-3);
    }
    expect(biased.results.map((r) => r.score)).toEqual(
      [...biased.results.map((r) => r.score)].sort((a, b) => b - a),
    );
    const retracted = ncbi.corpus.pmidsFor(TERM).filter((p) => ncbi.corpus.record(p)?.retraction);
    for (const p of retracted.slice(0, 3)) {
      const doc = (await callTool(h.client, "rag_get", { doc_id: `pmid:${p}` })).json as {
        title: string;
      };
      const res = (await callTool(h.client, "rag_search", { query: doc.title, top_k: 20 }))
        .json as { results: { doc_id: string }[] };
      expect(res.results.map((r) => r.doc_id)).not.toContain(`pmid:${p}`);
    }
    const missing = await callTool(h.client, "rag_get", { doc_id: "pmid:1" });
    expect((missing.json as ErrOut).error).toMatchObject({
      code: "NOT_FOUND",
      message: expect.stringContaining("pubmed_sync_delta"),
    });
  });
});

/**
 * The review tools through a real MCP client, on both stores, against the synthetic NCBI: a
 * review from creation to export, deduplication across sources, decisions with their audit,
 * NCBI failing mid-add (what was stored stays; the same call resumes), bad input, and exports
 * too large to answer inline read back whole through resources/read.
 */
import { expect, it, jest } from "@jest/globals";
import { startSynthServer } from "../../src/devtools/synth-server.js";
import { useCorpusServer } from "../helpers/corpus-server.js";
import { corpusDb } from "../helpers/corpus-db.js";
import { describeEachBackend } from "../helpers/db.js";
import { callTool, type Harness } from "../helpers/mcp.js";
import { useSynthNcbi } from "../helpers/synth-ncbi.js";

jest.setTimeout(300_000);

const TERM = "statins AND myopathy";
const OTHER = "ezetimibe";
/** Three EFetch batches (500, 500, 100). */
const LARGE = "hypertension";

interface Progress {
  stage: string;
  total: number;
  screened: number;
  included: number;
  excluded: number;
  maybe: number;
  remaining: number;
  estimated_relevant_remaining: number;
  stop_suggested: boolean;
  stop_reason: string;
}
interface Screened {
  records: { id: string; title: string; abstract?: string; score: number; notices: unknown[] }[];
  progress: Progress;
  ranking: string;
}
interface Prisma {
  identified: number;
  identified_by_source: Record<string, number>;
  duplicates_removed: number;
  screened: number;
  excluded_screening: number;
  reports_sought: number;
  reports_not_retrieved: number;
  reports_assessed: number;
  excluded_full_text: Record<string, number>;
  included: number;
}

async function ok<T>(h: Harness, tool: string, args: unknown): Promise<T> {
  const out = await callTool(h.client, tool, args);
  expect({ tool, isError: out.isError, json: out.isError ? out.json : "ok" }).toEqual({
    tool,
    isError: false,
    json: "ok",
  });
  return out.json as T;
}

async function refused(h: Harness, tool: string, args: unknown) {
  const out = await callTool(h.client, tool, args);
  expect(out.isError).toBe(true);
  return (out.json as { error: { code: string; message: string } }).error;
}

describeEachBackend("review tools", (kind) => {
  const ncbi = useSynthNcbi({
    seed: 11,
    now: new Date("2025-06-30T12:00:00Z"),
    terms: [
      { term: TERM, count: 120, edatFrom: "2018-01-01", edatTo: "2025-06-20" },
      { term: OTHER, count: 30, edatFrom: "2019-01-01", edatTo: "2025-06-20" },
      { term: LARGE, count: 1_100, edatFrom: "2015-01-01", edatTo: "2025-06-20" },
    ],
  });
  const server = useCorpusServer(kind, ncbi, { EMBEDDINGS_PROVIDER: "none" });

  const create = async (h: Harness, name = "Statin myopathy") =>
    (
      await ok<{ review_id: string }>(h, "review_create", {
        name,
        question: "Do statins cause myopathy in adults?",
        criteria: "Randomised trials or cohorts; adults on statins; outcome myopathy",
      })
    ).review_id;

  it("runs a review: add, deduplicate, screen, decide, status, export", async () => {
    // The ID converter and Europe PMC: the synthetic literature services on the same corpus.
    const literature = await startSynthServer(ncbi.corpus);
    try {
      await runReview(await server.open(literature.env));
    } finally {
      await server.close();
      await literature.close();
    }
  });

  async function runReview(h: Harness): Promise<void> {
    const id = await create(h);
    expect(id).toMatch(/\S/);
    expect(
      (await refused(h, "review_create", { name: "statin MYOPATHY", question: "q" })).code,
    ).toBe("VALIDATION");

    const first = await ok<{
      added: number;
      duplicates: number;
      identified: number;
      by_source: Record<string, number>;
    }>(h, "review_add", { review_id: id, source: "pubmed", term: TERM });
    expect(first).toEqual({
      added: 120,
      duplicates: 0,
      identified: 120,
      by_source: { pubmed: 120 },
    });
    // The same search again identifies nothing new: no double counting.
    const again = await ok<typeof first>(h, "review_add", {
      review_id: id,
      source: "pubmed",
      term: TERM,
    });
    expect(again).toMatchObject({ added: 0, identified: 0, by_source: { pubmed: 120 } });

    // Ids: three already in the review (as a number, digits and a PMID), one of another search.
    const pmids = ncbi.corpus.pmidsFor(TERM);
    const other = ncbi.corpus.pmidsFor(OTHER)[0]!;
    const byIds = await ok<typeof first>(h, "review_add", {
      review_id: id,
      source: "ids",
      ids: [Number(pmids[0]), pmids[1], pmids[2], other],
    });
    expect(byIds).toMatchObject({ added: 1, duplicates: 3, identified: 4 });
    expect(byIds.by_source).toEqual({ pubmed: 120, ids: 4 });

    // A DOI the ID converter cannot map (the record is not in PMC) is found by PubMed's [doi]
    // field; one that names nothing comes back unmatched, with an unknown PMID.
    const notInPmc = ncbi.corpus
      .records(ncbi.corpus.pmidsFor(OTHER))
      .find((r) => r.doi && !r.pmcid && r.pmid !== other)!;
    const byDoi = await ok<{ added: number; unmatched?: string[] }>(h, "review_add", {
      review_id: id,
      source: "ids",
      ids: [notInPmc.doi!, "10.9999/names-nothing", "99999999"],
    });
    expect(byDoi).toMatchObject({ added: 1, unmatched: ["99999999", "10.9999/names-nothing"] });

    // Europe PMC finds records of the PubMed search again: each is stored once.
    const epmc = await ok<typeof first>(h, "review_add", {
      review_id: id,
      source: "europepmc",
      query: `"${ncbi.corpus.record(pmids[5]!)!.title}"`,
      max_records: 5,
    });
    expect(epmc.identified).toBeGreaterThan(0);
    expect(epmc).toMatchObject({ added: 0, duplicates: epmc.identified });

    const screened = await ok<Screened>(h, "review_screen", { review_id: id, limit: 5 });
    expect(screened.ranking).toBe("relevance");
    expect(screened.records).toHaveLength(5);
    expect(screened.progress).toMatchObject({ stage: "title_abstract", total: 122, screened: 0 });
    for (const r of screened.records) expect((r.abstract ?? "").length).toBeLessThanOrEqual(1_501);

    const [a, b, c] = screened.records.map((r) => r.id);
    const decided = await ok<{ recorded: number; unchanged: number; progress: Progress }>(
      h,
      "review_decide",
      {
        review_id: id,
        decisions: [
          { id: a, decision: "include" },
          { id: b, decision: "exclude", reason: "not adults" },
          { id: c, decision: "maybe" },
        ],
      },
    );
    expect(decided).toMatchObject({ recorded: 3, unchanged: 0 });
    // The progress review_decide counts from its cache is the one read from the store.
    const fromStore = await ok<{ progress: { title_abstract: Progress } }>(h, "review_status", {
      review_id: id,
    });
    expect(fromStore.progress.title_abstract).toEqual(decided.progress);
    expect(decided.progress).toMatchObject({
      screened: 3,
      included: 1,
      excluded: 1,
      maybe: 1,
      remaining: 119,
    });

    // A decision on an unknown record writes nothing, the valid one beside it included.
    const unknown = await refused(h, "review_decide", {
      review_id: id,
      decisions: [
        { id: screened.records[3]!.id, decision: "include" },
        { id: "pmid:1", decision: "exclude" },
      ],
    });
    expect(unknown.code).toBe("NOT_FOUND");
    expect(unknown.message).toContain("pmid:1");

    // Changing a decision keeps its history.
    await ok(h, "review_decide", {
      review_id: id,
      decisions: [
        { id: b, decision: "include" },
        { id: screened.records[4]!.id, decision: "exclude" },
      ],
    });
    const audit = await corpusDb
      .selectFrom("review_decisions")
      .select(["decision", "previous", "reason"])
      .where("review_id", "=", id)
      .where("record_id", "=", b!)
      .orderBy("id")
      .execute();
    expect(audit).toEqual([
      { decision: "exclude", previous: null, reason: "not adults" },
      { decision: "include", previous: "exclude", reason: null },
    ]);

    const next = await ok<Screened>(h, "review_screen", { review_id: id, limit: 10 });
    expect(next.ranking).toBe("model");
    expect(next.records.map((r) => r.id)).not.toContain(a);

    await ok(h, "review_decide", {
      review_id: id,
      decisions: next.records.map((r, i) => ({
        id: r.id,
        decision: i < 2 ? "include" : "exclude",
      })),
    });
    // Full text: one include excluded with a reason, one included.
    await ok(h, "review_decide", {
      review_id: id,
      stage: "full_text",
      decisions: [
        { id: a, decision: "include" },
        { id: b, decision: "exclude", reason: "wrong outcome" },
      ],
    });

    const status = await callTool(h.client, "review_status", { review_id: id });
    expect(status.isError).toBe(false);
    const prisma = (status.json as { prisma: Prisma }).prisma;
    expect(prisma).toMatchObject({
      identified: 125 + epmc.identified,
      identified_by_source: { pubmed: 120, ids: 5, europepmc: epmc.identified },
      duplicates_removed: 3 + epmc.identified,
      screened: 14,
      reports_assessed: 2,
      excluded_full_text: { "wrong outcome": 1 },
      included: 1,
    });
    expect(prisma.identified - prisma.duplicates_removed).toBe(122);
    const svg = status.content.find((c) => c.type === "image");
    expect(svg?.mimeType).toBe("image/svg+xml");
    expect(Buffer.from(svg?.data ?? "", "base64").toString()).toContain("Records screened");

    const listed = await ok<{ reviews: { review_id: string; records: number }[] }>(
      h,
      "review_status",
      {},
    );
    expect(listed.reviews).toEqual([expect.objectContaining({ review_id: id, records: 122 })]);

    const ris = await ok<{ records: number; text?: string; uri?: string }>(h, "review_export", {
      review_id: id,
      format: "ris",
    });
    expect(ris.records).toBe(1);
    expect(ris.text?.match(/^TY {2}- /gm)).toHaveLength(1);
    const csv = await ok<{ records: number; text?: string }>(h, "review_export", {
      review_id: id,
      format: "csv",
      which: "excluded",
    });
    expect(csv.text).toContain("wrong outcome");
  }

  it("keeps what NCBI let it store, and the same call resumes", async () => {
    const h = await server.open();
    const id = await create(h);
    // Every EFetch after the first batch fails (each retry too), until `failed` is set.
    let failed = false;
    ncbi.fake.route((req) =>
      req.utility !== "efetch" || failed || req.params.retstart === "0"
        ? undefined
        : { status: 500, body: "Internal Server Error" },
    );
    const stopped = await refused(h, "review_add", {
      review_id: id,
      source: "pubmed",
      term: LARGE,
    });
    expect(stopped.code).toBe("UPSTREAM");
    failed = true;
    const kept = await corpusDb
      .selectFrom("review_records")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("review_id", "=", id)
      .executeTakeFirstOrThrow();
    expect(Number(kept.n)).toBe(500);
    const resumed = await ok<{ added: number; identified: number }>(h, "review_add", {
      review_id: id,
      source: "pubmed",
      term: LARGE,
    });
    // Only the records not stored before are fetched again.
    expect(resumed).toMatchObject({ added: 600, identified: 600 });
    const retstarts = ncbi.fake.requests
      .filter((r) => r.utility === "efetch" && r.params.retstart !== undefined)
      .map((r) => r.params.retstart);
    expect(retstarts.filter((r) => r === "0")).toHaveLength(1);
  });

  it("refuses bad input with a message that says how to fix the call", async () => {
    const h = await server.open();
    const id = await create(h);
    const cases: [string, unknown, string, RegExp][] = [
      ["review_screen", { review_id: "rv-nope" }, "NOT_FOUND", /review_create/],
      ["review_add", { review_id: id, source: "pubmed" }, "VALIDATION", /needs term/],
      [
        "review_add",
        { review_id: id, source: "corpus", query_key: "never-synced" },
        "VALIDATION",
        /pubmed_sync_delta/,
      ],
      [
        "review_add",
        { review_id: id, source: "citations", direction: "backward" },
        "VALIDATION",
        /no included records/,
      ],
      ["review_decide", { review_id: id, decisions: [] }, "VALIDATION", /at least one/],
      [
        "review_decide",
        { review_id: id, decisions: [{ id: "banana", decision: "include" }] },
        "VALIDATION",
        /pmid:31452104/,
      ],
      ["review_screen", { review_id: id, limit: 51 }, "VALIDATION", /limit/],
      ["review_export", { review_id: id, format: "docx" }, "VALIDATION", /format/],
    ];
    for (const [tool, args, code, message] of cases) {
      const error = await refused(h, tool, args);
      expect({ tool, code: error.code }).toEqual({ tool, code });
      expect(error.message).toMatch(message);
    }
    // A search past what the history server hands out is refused before any record is fetched;
    // an empty one adds nothing and says why.
    ncbi.fake.route((req) =>
      req.utility === "esearch" && req.params.term === "everything"
        ? {
            body:
              '<?xml version="1.0"?><eSearchResult><Count>100000</Count><RetMax>0</RetMax>' +
              "<RetStart>0</RetStart><QueryKey>1</QueryKey><WebEnv>MCID_1</WebEnv><IdList/>" +
              "</eSearchResult>",
          }
        : undefined,
    );
    const huge = await refused(h, "review_add", {
      review_id: id,
      source: "pubmed",
      term: "everything",
    });
    expect(huge).toMatchObject({
      code: "VALIDATION",
      message: expect.stringMatching(/100000 records.*Split the term/),
    });
    expect(ncbi.fake.requests.filter((r) => r.utility === "efetch")).toEqual([]);
    const empty = await ok<{ added: number; warnings?: string[] }>(h, "review_add", {
      review_id: id,
      source: "pubmed",
      term: "zzzz qqqq nothing",
    });
    expect(empty.added).toBe(0);
    expect(empty.warnings?.join(" ")).toMatch(/finds no records/);
  });

  it("adds a synced query from the corpus, and exports a large review as a resource", async () => {
    const h = await server.open({ MCP_MAX_ANSWER_BYTES: "16384" });
    await ok(h, "pubmed_sync_delta", { query_key: "statins", term: TERM });
    const id = await create(h);
    const added = await ok<{ added: number; by_source: Record<string, number> }>(h, "review_add", {
      review_id: id,
      source: "corpus",
      query_key: "statins",
    });
    expect(added).toMatchObject({ added: 120, by_source: { corpus: 120 } });
    const out = await callTool(h.client, "review_export", {
      review_id: id,
      format: "bibtex",
      which: "all",
    });
    expect(out.isError).toBe(false);
    const json = out.json as { records: number; bytes: number; uri?: string; text?: string };
    expect(json).toMatchObject({ records: 120 });
    expect(json.text).toBeUndefined();
    expect(json.uri).toBe(`resource://pubmed/review/${id}/export/bibtex?which=all`);
    expect(out.content.find((c) => c.type === "resource_link")).toMatchObject({ uri: json.uri });
    const read = await h.client.readResource({ uri: json.uri! });
    const text = (read.contents[0] as { text: string }).text;
    expect(Buffer.byteLength(text)).toBe(json.bytes);
    expect(text.match(/^@(article|misc)\{/gm)).toHaveLength(120);
  });

  it("pubmed_export writes a search inline or as a resource kept for reading", async () => {
    const h = await server.open();
    const small = await ok<{ records: number; text?: string }>(h, "pubmed_export", {
      term: OTHER,
      format: "csl_json",
    });
    expect(small.records).toBe(30);
    expect(JSON.parse(small.text ?? "[]")).toHaveLength(30);
    const big = await ok<{ records: number; uri?: string; bytes: number; text?: string }>(
      h,
      "pubmed_export",
      { term: LARGE, format: "csv" },
    );
    expect(big).toMatchObject({
      records: 1_100,
      uri: expect.stringMatching(/^resource:\/\/pubmed\/export\/ex-/),
    });
    expect(big.text).toBeUndefined();
    const read = await h.client.readResource({ uri: big.uri! });
    const csv = read.contents[0] as { text: string; mimeType: string };
    expect(Buffer.byteLength(csv.text)).toBe(big.bytes);
    expect(csv.mimeType).toBe("text/csv");
    const missing = await h.client
      .readResource({ uri: "resource://pubmed/export/ex-aaaaaaaaaaaa" })
      .catch((e: unknown) => e);
    expect(String(missing)).toMatch(/kept for a day/);
  });
});

/**
 * Systematic reviews in the store (src/store/reviews.ts and the modules behind it), on both
 * backends: reviews and their names, adding records with deduplication and PRISMA's counts,
 * decisions with their audit, exports; and query_documents as a real sync writes it.
 */
import { afterAll, beforeAll, beforeEach, expect, it, jest } from "@jest/globals";
import { NotFoundError, ValidationError } from "../../src/errors.js";
import type { Store } from "../../src/store/db.js";
import {
  addCandidates,
  candidatesFromCorpus,
  countExport,
  createReview,
  decide,
  decisionHistory,
  deleteReview,
  exportPage,
  getAddState,
  getRecords,
  getReview,
  identifiedBySource,
  listReviews,
  noticedRecords,
  prismaCounts,
  screeningDocs,
  setAddState,
  setFullTextAvailability,
  type Candidate,
  screeningPool,
  type PoolEntry,
} from "../../src/store/reviews.js";
import { progressFrom } from "../../src/review/screen.js";
import type { ReviewSource } from "../../src/store/review-types.js";
import { corpusDb } from "../helpers/corpus-db.js";
import { useCorpusServer } from "../helpers/corpus-server.js";
import { describeEachBackend, openTestStore, resetStore, type TestStore } from "../helpers/db.js";
import { callTool } from "../helpers/mcp.js";
import { useSynthNcbi } from "../helpers/synth-ncbi.js";

jest.setTimeout(120_000);

const NOW = new Date("2026-12-02T10:00:00.000Z");

/** The decided records of a stage's pool, in the order first decided (what the stop rule reads). */
const decidedInOrder = (pool: PoolEntry[]) =>
  pool
    .filter((p) => p.decision)
    .sort((a, b) => (a.order ?? 0) - (b.order ?? 0))
    .map(({ id, decision }) => ({ id, decision }));

/** A candidate; the hit key is its first identifier unless given. */
function cand(over: Partial<Candidate>): Candidate {
  const c = {
    title: "A randomised trial",
    abstract: "",
    authors: [],
    mesh: [],
    pubTypes: [],
    notices: [],
    ...over,
  } as Candidate;
  c.hitKey ??= c.pmid ? `pmid:${c.pmid}` : c.pprid ? `ppr:${c.pprid}` : `doi:${c.doi ?? c.pmcid}`;
  return c;
}

describeEachBackend("reviews", (kind) => {
  let t: TestStore;
  let store: Store;
  let rv: string;
  beforeAll(async () => {
    t = await openTestStore(kind);
    store = t.store;
  });
  afterAll(() => t.cleanup());
  beforeEach(async () => {
    await resetStore(store);
    rv = (await createReview(store.db, { name: "Statins", question: "q", criteria: "c" }, NOW)).id;
  });
  const add = (source: ReviewSource, cs: Candidate[]) => addCandidates(store.db, rv, source, cs);
  const record = async (id: string) => (await getRecords(store.db, rv, [id]))[0];
  const revision = async () => (await getReview(store.db, rv))?.revision;

  it("creates, reads and lists reviews; a name is taken case-insensitively", async () => {
    const later = new Date(NOW.getTime() + 1000);
    const r = await createReview(
      store.db,
      { name: "  Statin Myopathy ", question: "Do statins harm muscle?", criteria: "RCTs" },
      later,
    );
    expect(r).toEqual({
      id: expect.stringMatching(/^statin-myopathy-[a-z2-7]{6}$/),
      name: "Statin Myopathy",
      question: "Do statins harm muscle?",
      criteria: "RCTs",
      created_at: later.toISOString(),
      revision: 0,
    });
    expect(await getReview(store.db, r.id)).toEqual(r);
    expect(await getReview(store.db, "nope")).toBeNull();
    const taken = createReview(store.db, { name: "STATIN myopathy", question: "", criteria: "" });
    await expect(taken).rejects.toThrow(ValidationError);
    await expect(taken).rejects.toThrow(r.id);
    const odd = await createReview(
      store.db,
      { name: "?!", question: "", criteria: "" },
      new Date(NOW.getTime() + 2000),
    );
    expect(odd.id).toMatch(/^rv-[a-z2-7]{8}$/);
    await add("pubmed", [cand({ pmid: "1" }), cand({ pmid: "2" })]);
    await decide(store.db, rv, [{ id: "pmid:1", decision: "include", stage: "title_abstract" }]);
    const list = await listReviews(store.db);
    expect(list.map((x) => [x.name, x.records, x.included])).toEqual([
      ["Statins", 2, 1],
      ["Statin Myopathy", 0, 0],
      ["?!", 0, 0],
    ]);
    await expect(addCandidates(store.db, "nope", "pubmed", [cand({ pmid: "1" })])).rejects.toThrow(
      NotFoundError,
    );

    // Deleting takes everything the review holds, and nothing of another.
    await addCandidates(store.db, r.id, "pubmed", [cand({ pmid: "1" })]);
    expect(await deleteReview(store.db, rv)).toBe(true);
    expect(await deleteReview(store.db, rv)).toBe(false);
    expect(await getReview(store.db, rv)).toBeNull();
    for (const table of [
      "review_records",
      "review_hits",
      "review_keys",
      "review_decisions",
    ] as const) {
      const rows = await store.db.selectFrom(table).select("review_id").execute();
      expect(rows.map((x) => x.review_id)).not.toContain(rv);
      if (table !== "review_decisions") expect(rows.map((x) => x.review_id)).toContain(r.id);
    }
  });

  it("merges by PMID, DOI (any case or prefix), PMCID, title key and preprint versions", async () => {
    const first = await add("pubmed", [
      cand({ pmid: "1", doi: "10.1/abc", title: "One" }),
      cand({ pmid: "2", title: "Two" }),
      cand({ pmid: "3", pmcid: "PMC3", title: "Three" }),
      cand({ pmid: "4", title: "Statins and muscle", year: 2020, authors: [{ family: "Lee" }] }),
      cand({ pmid: "6", title: "Published", abstract: "Full abstract." }),
    ]);
    expect(first).toEqual({
      identified: 5,
      added: 5,
      duplicates: 0,
      addedIds: ["pmid:1", "pmid:2", "pmid:3", "pmid:4", "pmid:6"],
      matchedIds: [],
    });
    const second = await add("europepmc", [
      cand({ doi: "https://doi.org/10.1/ABC", title: "One", journal: "J One" }),
      cand({ pmid: "0002", title: "Two" }),
      cand({ pmcid: "pmc3", doi: "10.9/c", title: "Three" }),
      cand({
        doi: "10.5/d",
        title: "STATINS AND MUSCLE.",
        year: 2020,
        authors: [{ family: "LEE", given: "A" }],
      }),
      cand({ pprid: "PPR1", title: "Preprint", versionOf: ["pmid:5"] }),
      cand({ pprid: "PPR2", doi: "10.1101/p2", title: "Early", versionOf: ["pmid:6"] }),
    ]);
    expect(second).toEqual({
      identified: 6,
      added: 1,
      duplicates: 5,
      addedIds: ["ppr:PPR1"],
      matchedIds: ["pmid:1", "pmid:2", "pmid:3", "pmid:4", "pmid:6"],
    });
    // The published version of PPR1 arrives later: it joins the preprint's record, whose id stays.
    const third = await add("pubmed", [cand({ pmid: "5", doi: "10.7/pub", title: "Preprint" })]);
    expect(third).toMatchObject({
      identified: 1,
      added: 0,
      duplicates: 1,
      matchedIds: ["ppr:PPR1"],
    });

    expect(await record("pmid:1")).toMatchObject({
      doi: "10.1/abc",
      journal: "J One",
      sources: ["pubmed", "europepmc"],
    });
    expect(await record("pmid:3")).toMatchObject({ pmcid: "PMC3", doi: "10.9/c" });
    expect(await record("pmid:4")).toMatchObject({ doi: "10.5/d", title: "Statins and muscle" });
    expect(await record("pmid:6")).toMatchObject({
      pprid: "PPR2",
      versionOf: ["pmid:6"],
      abstract: "Full abstract.",
    });
    expect(await record("ppr:PPR1")).toMatchObject({
      pmid: "5",
      doi: "10.7/pub",
      pprid: "PPR1",
      sources: ["europepmc", "pubmed"],
    });
    expect(await getRecords(store.db, rv, ["pmid:5", "ppr:PPR1"])).toHaveLength(1);
    expect(await identifiedBySource(store.db, rv)).toEqual({ europepmc: 6, pubmed: 6 });
  });

  it("keeps a record first found by DOI under its id once it gets a PMID", async () => {
    await add("europepmc", [cand({ doi: "10.3/x", title: "Only a DOI" })]);
    const out = await add("pubmed", [cand({ pmid: "77", doi: "10.3/X", pmcid: "PMC77" })]);
    expect(out).toMatchObject({ added: 0, duplicates: 1, matchedIds: ["doi:10.3/x"] });
    expect(await record("doi:10.3/x")).toMatchObject({
      id: "doi:10.3/x",
      pmid: "77",
      pmcid: "PMC77",
    });
    // Found by its PMID alone from now on.
    expect(await add("ids", [cand({ pmid: "77" })])).toMatchObject({ added: 0, duplicates: 1 });
  });

  it("never merges by title without a year or an author, nor two different PMIDs", async () => {
    const out = await add("pubmed", [
      cand({ doi: "10.1/a", title: "Editorial", authors: [{ family: "Ng" }] }),
      cand({ doi: "10.1/b", title: "Editorial", authors: [{ family: "Ng" }] }),
      cand({ doi: "10.1/c", title: "Editorial", year: 2020 }),
      cand({ doi: "10.1/d", title: "Editorial", year: 2020 }),
      cand({ pmid: "10", title: "Same title", year: 2020, authors: [{ family: "Ng" }] }),
      cand({ pmid: "11", title: "Same title", year: 2020, authors: [{ family: "Ng" }] }),
      cand({ doi: "10.1/e", title: "Same title", year: 2020, authors: [{ family: "Ng" }] }),
    ]);
    // Only the last joins a record (pmid:10, the first holder of the title key).
    expect(out).toMatchObject({ identified: 7, added: 6, duplicates: 1 });
    expect((await record("pmid:10"))?.doi).toBe("10.1/e");
  });

  it("counts within-batch duplicates, and a re-added search counts nothing again", async () => {
    const batch = [
      cand({ pmid: "1" }),
      cand({ pmid: "1", hitKey: "pmid:1" }), // the same hit twice: one hit
      cand({ hitKey: "doi:10.1/one", doi: "10.1/ONE", pmid: "1" }),
      cand({ pmid: "2", doi: "10.1/two" }),
      cand({ doi: "10.1/two", title: "Two again" }),
    ];
    expect(await add("europepmc", batch)).toMatchObject({
      identified: 4,
      added: 2,
      duplicates: 2,
      addedIds: ["pmid:1", "pmid:2"],
      matchedIds: [],
    });
    const rev = await revision();
    expect(await add("europepmc", batch)).toEqual({
      identified: 0,
      added: 0,
      duplicates: 0,
      addedIds: [],
      matchedIds: ["pmid:1", "pmid:2"],
    });
    expect(await revision()).toBe(rev);
    // The same records from another source are that source's hits, all duplicates.
    expect(await add("pubmed", [cand({ pmid: "1" }), cand({ pmid: "2" })])).toMatchObject({
      identified: 2,
      duplicates: 2,
    });
    const p = await prismaCounts(store.db, rv);
    expect(p.identified_by_source).toEqual({ europepmc: 4, pubmed: 2 });
    expect(p).toMatchObject({ identified: 6, duplicates_removed: 4 });
    const records = await countExport(store.db, rv, "all");
    expect(p.identified - records).toBe(p.duplicates_removed);
  });

  it("records decisions with their audit; the same again is unchanged", async () => {
    await add("pubmed", [cand({ pmid: "1" }), cand({ pmid: "2" }), cand({ pmid: "3" })]);
    const rev = await revision();
    const ta = "title_abstract" as const;
    const at = new Date("2026-12-02T11:00:00.000Z");
    expect(
      await decide(
        store.db,
        rv,
        [
          { id: "pmid:2", decision: "exclude", reason: "wrong population", stage: ta },
          { id: "pmid:1", decision: "maybe", stage: ta },
          { id: "pmid:1", decision: "include", reason: " ", stage: ta },
        ],
        at,
      ),
    ).toEqual({ recorded: 3, unchanged: 0, revision: rev! + 1 });
    expect(await revision()).toBe(rev! + 1);
    expect(
      await decide(store.db, rv, [
        { id: "pmid:1", decision: "include", stage: ta },
        { id: "pmid:2", decision: "exclude", reason: "wrong population", stage: ta },
      ]),
    ).toEqual({ recorded: 0, unchanged: 2 });
    expect(await revision()).toBe(rev! + 1);
    expect(await decisionHistory(store.db, rv, "pmid:1")).toEqual([
      { stage: ta, decision: "maybe", previous: null, reason: null, at: at.toISOString() },
      { stage: ta, decision: "include", previous: "maybe", reason: null, at: at.toISOString() },
    ]);
    expect(await record("pmid:2")).toMatchObject({
      titleAbstract: { decision: "exclude", reason: "wrong population", at: at.toISOString() },
    });
    // Order of first decision: pmid:2 then pmid:1, whatever happened after.
    expect(decidedInOrder(await screeningPool(store.db, rv, ta))).toEqual([
      { id: "pmid:2", decision: "exclude" },
      { id: "pmid:1", decision: "include" },
    ]);
    expect(progressFrom(await screeningPool(store.db, rv, ta), ta)).toMatchObject({
      total: 3,
      screened: 2,
      included: 1,
      excluded: 1,
      maybe: 0,
      remaining: 1,
    });
    expect((await screeningDocs(store.db, rv, ta)).map((d) => [d.id, d.decision])).toEqual([
      ["pmid:1", "include"],
      ["pmid:2", "exclude"],
      ["pmid:3", undefined],
    ]);
  });

  it("writes nothing when an id is unknown or a full-text decision is out of stage", async () => {
    await add("pubmed", [cand({ pmid: "1" }), cand({ pmid: "2" })]);
    const ft = "full_text" as const;
    const ta = "title_abstract" as const;
    const unknown = decide(store.db, rv, [
      { id: "pmid:1", decision: "include", stage: ta },
      { id: "pmid:9", decision: "include", stage: ta },
      { id: "doi:10.1/x", decision: "include", stage: ta },
    ]);
    await expect(unknown).rejects.toThrow(NotFoundError);
    await expect(unknown).rejects.toThrow(/"pmid:9", "doi:10\.1\/x"/);
    const outOfStage = decide(store.db, rv, [
      { id: "pmid:1", decision: "include", stage: ta },
      { id: "pmid:2", decision: "include", stage: ft },
    ]);
    await expect(outOfStage).rejects.toThrow(ValidationError);
    await expect(outOfStage).rejects.toThrow(/"pmid:2"/);
    expect(await decisionHistory(store.db, rv, "pmid:1")).toEqual([]);
    expect((await record("pmid:1"))?.titleAbstract).toBeUndefined();
    // Included at title/abstract earlier in the same call is in the stage.
    expect(
      await decide(store.db, rv, [
        { id: "pmid:2", decision: "maybe", stage: ta },
        { id: "pmid:2", decision: "exclude", reason: "no outcome", stage: ft },
      ]),
    ).toMatchObject({ recorded: 2, unchanged: 0 });
    expect(
      (await getRecords(store.db, rv, ["pmid:2", "pmid:8", "pmid:1"])).map((r) => r.id),
    ).toEqual(["pmid:2", "pmid:1"]);
  });

  it("audits concurrent decisions on one record one after the other", async () => {
    await add("pubmed", [cand({ pmid: "1" })]);
    const ta = "title_abstract" as const;
    const decisions = ["include", "exclude", "maybe", "include", "exclude", "maybe"] as const;
    await Promise.all(
      decisions.map((decision, i) =>
        decide(store.db, rv, [{ id: "pmid:1", decision, reason: `client ${i}`, stage: ta }]),
      ),
    );
    const history = await decisionHistory(store.db, rv, "pmid:1");
    expect(history).toHaveLength(decisions.length);
    // Each change names the one before it: no two calls read the same previous decision.
    expect(history.map((h) => h.previous)).toEqual([
      null,
      ...history.slice(0, -1).map((h) => h.decision),
    ]);
    const last = history[history.length - 1]!;
    expect((await record("pmid:1"))?.titleAbstract).toMatchObject({
      decision: last.decision,
      reason: last.reason,
    });
    expect(decidedInOrder(await screeningPool(store.db, rv, ta))).toEqual([
      { id: "pmid:1", decision: last.decision },
    ]);
  });

  it("counts a worked PRISMA example and exports by inclusion, page by page", async () => {
    const ta = "title_abstract" as const;
    const ft = "full_text" as const;
    const ids = Array.from({ length: 10 }, (_, i) => String(i + 1));
    await add(
      "pubmed",
      ids.map((pmid) => cand({ pmid })),
    );
    await add("europepmc", [cand({ pmid: "1" }), cand({ pmid: "2" }), cand({ pprid: "PPR9" })]);
    // 13 hits, 11 records. Title/abstract: 1-6 include, 7 maybe, 8-9 exclude; 10 and PPR9 open.
    const decisions = [
      ...["1", "2", "3", "4", "5", "6"].map((p) => ({
        id: `pmid:${p}`,
        decision: "include" as const,
      })),
      { id: "pmid:7", decision: "maybe" },
      { id: "pmid:8", decision: "exclude" },
      { id: "pmid:9", decision: "exclude" },
    ] as const;
    await decide(
      store.db,
      rv,
      decisions.map((d) => ({ ...d, stage: ta })),
    );
    // Screened at one stage only: included = included at title/abstract.
    expect((await prismaCounts(store.db, rv)).included).toBe(6);
    expect(await countExport(store.db, rv, "included")).toBe(6);
    await setFullTextAvailability(store.db, rv, [
      { id: "pmid:6", available: false },
      { id: "pmid:7", available: false },
      { id: "pmid:1", available: true },
      { id: "pmid:99", available: false },
    ]);
    await decide(store.db, rv, [
      { id: "pmid:1", decision: "include", stage: ft },
      { id: "pmid:2", decision: "include", stage: ft },
      { id: "pmid:3", decision: "exclude", reason: "wrong outcome", stage: ft },
      { id: "pmid:4", decision: "exclude", reason: "wrong outcome", stage: ft },
      { id: "pmid:5", decision: "exclude", stage: ft },
      { id: "pmid:7", decision: "maybe", stage: ft },
    ]);
    expect(await prismaCounts(store.db, rv)).toEqual({
      identified: 13,
      identified_by_source: { pubmed: 10, europepmc: 3 },
      duplicates_removed: 2,
      screened: 9,
      excluded_screening: 2,
      reports_sought: 7,
      reports_not_retrieved: 1, // pmid:6 (pmid:7 has none either but was assessed)
      reports_assessed: 6,
      excluded_full_text: { "wrong outcome": 2, "no reason given": 1 },
      included: 2,
    });
    expect(progressFrom(await screeningPool(store.db, rv, ft), ft)).toMatchObject({
      total: 7,
      screened: 6,
      included: 2,
      excluded: 3,
      maybe: 1,
    });
    expect((await screeningDocs(store.db, rv, ft)).map((d) => d.id)).toEqual(
      ["1", "2", "3", "4", "5", "6", "7"].map((p) => `pmid:${p}`),
    );
    expect((await record("pmid:6"))?.fullTextAvailable).toBe(false);
    expect((await record("pmid:10"))?.fullTextAvailable).toBeUndefined();

    const all = async (which: "included" | "excluded" | "undecided" | "all") => {
      const out: string[] = [];
      for (let after = 0; ;) {
        const page = await exportPage(store.db, rv, which, after, 3);
        out.push(...page.map((r) => r.id));
        if (page.length < 3) return out;
        after = page[page.length - 1]!.seq;
      }
    };
    expect(await all("included")).toEqual(["pmid:1", "pmid:2"]);
    expect(await all("excluded")).toEqual(["pmid:3", "pmid:4", "pmid:5", "pmid:8", "pmid:9"]);
    expect(await all("undecided")).toEqual(["pmid:10", "ppr:PPR9"]);
    expect(await all("all")).toEqual([...ids.map((p) => `pmid:${p}`), "ppr:PPR9"]);
    expect((await exportPage(store.db, rv, "all", 0, 100)).map((r) => r.seq)).toEqual(
      Array.from({ length: 11 }, (_, i) => i + 1),
    );
    for (const which of ["included", "excluded", "undecided", "all"] as const) {
      expect(await countExport(store.db, rv, which)).toBe((await all(which)).length);
    }
    expect((await listReviews(store.db))[0]).toMatchObject({ records: 11, included: 2 });
  });

  it("lists the records with notices that are not excluded, at most as many as asked", async () => {
    const retraction = [{ type: "retraction" as const, notice_pmid: "900" }];
    await add("pubmed", [
      cand({ pmid: "1", notices: retraction }),
      cand({ pmid: "2", title: "Second", notices: retraction }),
      cand({ pmid: "3", title: "Third" }),
      cand({ pmid: "4", title: "Fourth", notices: [{ type: "correction" }] }),
    ]);
    await decide(store.db, rv, [{ id: "pmid:2", decision: "exclude", stage: "title_abstract" }]);
    expect(await noticedRecords(store.db, rv, 10)).toEqual([
      { id: "pmid:1", title: "A randomised trial", notices: retraction },
      { id: "pmid:4", title: "Fourth", notices: [{ type: "correction" }] },
    ]);
    expect((await noticedRecords(store.db, rv, 1)).map((r) => r.id)).toEqual(["pmid:1"]);
  });

  it("keeps where a long add resumes", async () => {
    expect(await getAddState(store.db, rv, "pubmed", "statin")).toBeNull();
    await setAddState(store.db, rv, "pubmed", "statin", { next: 500, total: 1200 });
    await setAddState(store.db, rv, "pubmed", "statin", { next: 1000, total: 1200 });
    expect(await getAddState(store.db, rv, "pubmed", "statin")).toEqual({
      next: 1000,
      total: 1200,
    });
    expect(await getAddState(store.db, rv, "europepmc", "statin")).toBeNull();
  });

  it("adds 10,000 candidates in one call, then 10,000 more that half match", async () => {
    const abstract = "Background. ".repeat(80);
    const make = (i: number, source: "a" | "b") =>
      cand({
        pmid: source === "a" || i % 2 === 0 ? String(100_000 + i) : undefined,
        doi: `10.1000/trial.${i}`,
        hitKey: `${source}:${i}`,
        title: `Trial ${i} of "something" in patients`,
        abstract,
        year: 2000 + (i % 25),
        authors: [{ family: `Author${i}`, given: "A" }],
        mesh: ["Humans", "Statins"],
        pubTypes: ["Journal Article"],
      });
    const a = Array.from({ length: 10_000 }, (_, i) => make(i, "a"));
    const b = Array.from({ length: 10_000 }, (_, i) => make(i + 5_000, "b"));
    let start = performance.now();
    const first = await add("pubmed", a);
    const firstMs = performance.now() - start;
    start = performance.now();
    const second = await add("europepmc", b);
    const secondMs = performance.now() - start;
    process.stderr.write(
      `reviews [${kind}]: 10,000 new candidates ${firstMs.toFixed(0)} ms; ` +
        `10,000 more, 5,000 of them duplicates, ${secondMs.toFixed(0)} ms\n`,
    );
    expect(first).toMatchObject({ identified: 10_000, added: 10_000, duplicates: 0 });
    expect(second).toMatchObject({ identified: 10_000, added: 5_000, duplicates: 5_000 });
    expect(await countExport(store.db, rv, "all")).toBe(15_000);
    expect((await prismaCounts(store.db, rv)).duplicates_removed).toBe(5_000);
  });
});

describeEachBackend("query_documents", (kind) => {
  const TERM = "statin myopathy";
  const ncbi = useSynthNcbi({
    seed: 3,
    now: new Date("2025-06-30T12:00:00Z"),
    terms: [{ term: TERM, count: 40, edatFrom: "2023-01-01", edatTo: "2025-06-20" }],
  });
  const server = useCorpusServer(kind, ncbi);

  it("holds the records each query key's syncs stored, as review candidates", async () => {
    const h = await server.open();
    const out = await callTool(h.client, "pubmed_sync_delta", { query_key: "statins", term: TERM });
    expect(out.isError).toBe(false);
    const expected = [...ncbi.corpus.pmidsFor(TERM)].sort();
    const pmidsOf = async (key: string) =>
      (await candidatesFromCorpus(corpusDb, key, 1000)).map((c) => c.pmid);
    expect(await pmidsOf("statins")).toEqual(expected);
    expect(await pmidsOf("other")).toEqual([]);
    // Again: nothing new, nothing doubled.
    await callTool(h.client, "pubmed_sync_delta", { query_key: "statins", term: TERM });
    expect(await pmidsOf("statins")).toEqual(expected);

    const candidates = await candidatesFromCorpus(corpusDb, "statins", 1000);
    expect(candidates.map((c) => c.pmid)).toEqual(expected);
    const c = candidates[0]!;
    const stored = (await corpusDb
      .selectFrom("documents")
      .select(["title", "doi", "pdat_year"])
      .where("pmid", "=", c.pmid!)
      .executeTakeFirstOrThrow())!;
    expect(c).toMatchObject({ hitKey: `pmid:${c.pmid}`, title: stored.title });
    expect(c.authors.length).toBeGreaterThan(0);
    expect(c.authors[0]).toEqual({ family: expect.any(String), given: expect.any(String) });
    expect(c.year).toBe(stored.pdat_year ?? undefined);
    const page = await candidatesFromCorpus(corpusDb, "statins", 5, 5);
    expect(page.map((p) => p.pmid)).toEqual(expected.slice(5, 10));
  });
});

import { describe, expect, it } from "@jest/globals";
import { createSynthCorpus } from "../../src/devtools/synth.js";
import { synthHandler } from "../../src/devtools/synth-ncbi.js";

type Params = Record<string, string>;

const ids = (body: string) => [...body.matchAll(/<Id>(\d+)<\/Id>/g)].map((m) => m[1] ?? "");
const tag = (body: string, name: string) =>
  new RegExp(`<${name}>([^<]*)</${name}>`).exec(body)?.[1];
const count = (body: string) => Number(tag(body, "Count"));

function call(handler: ReturnType<typeof synthHandler>, utility: string, params: Params) {
  const reply = handler({ utility, params });
  if (!reply) throw new Error(`no reply for ${utility}`);
  return reply;
}

describe("synthHandler: PubMed's 9,999-record reach", () => {
  const corpus = createSynthCorpus({
    seed: 11,
    terms: [{ term: "big sync term", count: 25_000, edatFrom: "2015-01-01", edatTo: "2025-12-31" }],
  });
  const ncbi = synthHandler(corpus);
  const esearch = (params: Params) =>
    call(ncbi, "esearch", { db: "pubmed", term: "big sync term", datetype: "edat", ...params })
      .body;

  it("counts past 10,000 but refuses retstart beyond 9,998 with NCBI's message", () => {
    const window = { mindate: "2015/01/01", maxdate: "2020/12/31" };
    expect(count(esearch({ ...window, rettype: "count" }))).toBeGreaterThan(10_000);
    const last = esearch({ ...window, retstart: "9998", retmax: "100" });
    expect(ids(last)).toHaveLength(1);
    expect(last).toContain("Restrictions achieved");
    const refused = esearch({ ...window, retstart: "9999", retmax: "100" });
    expect(refused).toMatch(
      /<eSearchResult><ERROR>Search Backend failed: Exception:\n'retstart' cannot be larger than 9998\./,
    );
    expect(ids(esearch({ ...window, retmax: "20000" }))).toHaveLength(9_999);
  });

  it("lets a sync that splits its window by year collect every record exactly once", () => {
    const seen: string[] = [];
    for (let y = 2015; y <= 2025; y++) {
      const window = { mindate: `${y}/01/01`, maxdate: `${y}/12/31` };
      const n = count(esearch({ ...window, rettype: "count" }));
      expect(n).toBeLessThan(9_999);
      for (let start = 0; start < n; start += 5_000)
        seen.push(...ids(esearch({ ...window, retstart: String(start), retmax: "5000" })));
    }
    expect(seen).toHaveLength(25_000);
    expect([...seen].sort()).toEqual(corpus.pmidsFor("big sync term"));
    const y2019 = corpus.pmidsFor("big sync term", {
      edatFrom: "2019-01-01",
      edatTo: "2019-12-31",
    });
    expect(count(esearch({ mindate: "2019", maxdate: "2019", rettype: "count" }))).toBe(
      y2019.length,
    );
  });

  it("pages a stored result set through EFetch, within the same reach", () => {
    const search = esearch({
      mindate: "2016/01/01",
      maxdate: "2016/12/31",
      usehistory: "y",
      retmax: "0",
    });
    const webEnv = tag(search, "WebEnv") ?? "";
    const queryKey = tag(search, "QueryKey") ?? "";
    expect(webEnv).toMatch(/^MCID_[0-9a-f]{24}$/);
    expect(queryKey).toBe("1");
    const expected = ids(esearch({ mindate: "2016/01/01", maxdate: "2016/12/31", retmax: "9999" }));
    const paged: string[] = [];
    for (let start = 0; start < count(search); start += 700) {
      const body = call(ncbi, "efetch", {
        db: "pubmed",
        WebEnv: webEnv,
        query_key: queryKey,
        retstart: String(start),
        retmax: "700",
        rettype: "uilist",
        retmode: "text",
      }).body;
      paged.push(...body.split("\n").filter((l) => l !== ""));
    }
    expect(paged).toEqual(expected);
    const xml = call(ncbi, "efetch", {
      db: "pubmed",
      WebEnv: webEnv,
      query_key: queryKey,
      retstart: "10",
      retmax: "3",
      retmode: "xml",
    }).body;
    expect([...xml.matchAll(/<PMID Version="1">(\d+)<\/PMID>/g)].map((m) => m[1])).toEqual(
      expected.slice(10, 13),
    );

    const second = esearch({ mindate: "2015", maxdate: "2021", usehistory: "y", WebEnv: webEnv });
    expect(tag(second, "WebEnv")).toBe(webEnv);
    expect(tag(second, "QueryKey")).toBe("2");
    const beyond = call(ncbi, "efetch", {
      db: "pubmed",
      WebEnv: webEnv,
      query_key: "2",
      retstart: "9999",
      retmax: "10",
    }).body;
    expect(beyond).toContain("'retstart' cannot be larger than 9998");
    const lost = call(ncbi, "efetch", {
      db: "pubmed",
      WebEnv: "MCID_unknown",
      query_key: "1",
    }).body;
    expect(lost).toContain("<eFetchResult><ERROR>Unable to obtain query #1</ERROR></eFetchResult>");
  });
});

describe("synthHandler: create and modification dates", () => {
  const corpus = createSynthCorpus({
    seed: 5,
    now: new Date("2025-06-30T12:00:00Z"),
    terms: [{ term: "crdt term", count: 50, edatFrom: "2024-01-01", edatTo: "2024-12-31" }],
  });
  // Published and EDAT-stamped in 2020, created in PubMed in June 2025.
  const [late] = corpus.add({
    term: "crdt term",
    count: 1,
    edatFrom: "2020-05-05",
    edatTo: "2020-05-05",
    createdAt: "2025-06-10",
  });
  const revised = corpus.pmidsFor("crdt term")[0] ?? "";
  corpus.revise(revised, { lr: new Date("2025-06-20T00:00:00Z"), retract: true });
  const ncbi = synthHandler(corpus);
  const search = (params: Params) =>
    ids(call(ncbi, "esearch", { db: "pubmed", retmax: "100", ...params }).body).sort();
  const crdt = (from: string, to: string) => `"${from}"[crdt] : "${to}"[crdt]`;

  it("finds a back-dated arrival by its create date, not by its Entrez date", () => {
    expect(search({ term: `(crdt term) AND (${crdt("2025/06/01", "2025/06/30")})` })).toEqual([
      late,
    ]);
    expect(
      search({ term: "crdt term", datetype: "edat", mindate: "2025/06/01", maxdate: "2025/06/30" }),
    ).toEqual([]);
    const notLate = search({ term: `(crdt term) NOT (${crdt("2025/06/01", "2025/06/30")})` });
    expect(notLate).toHaveLength(50);
    expect(notLate).not.toContain(late);
  });

  it("finds a revision by its modification date, with the retraction in the record", () => {
    const modified = { datetype: "mdat", mindate: "2025/06/01", maxdate: "2025/06/30" };
    // The late arrival was last modified when it was created; NOT leaves it to the arrivals walk.
    expect(search({ term: "crdt term", ...modified })).toEqual([revised, late].sort());
    expect(
      search({ term: `(crdt term) NOT (${crdt("2025/06/01", "2025/06/30")})`, ...modified }),
    ).toEqual([revised]);
    const xml = call(ncbi, "efetch", { db: "pubmed", id: revised, retmode: "xml" }).body;
    expect(xml).toContain("Retracted Publication");
    expect(xml).toMatch(/<DateRevised>\s*<Year>2025<\/Year>\s*<Month>06<\/Month>\s*<Day>20<\/Day>/);
  });
});

import { describe, expect, it } from "@jest/globals";
import { demoCorpus, synthHandler } from "../../src/devtools/synth-ncbi.js";

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

describe("synthHandler: ESearch", () => {
  const demo = demoCorpus();
  const ncbi = synthHandler(demo);
  const esearch = (params: Params) => call(ncbi, "esearch", { db: "pubmed", ...params }).body;

  it("finds a term's records newest-EDAT first and pages with retstart/retmax", () => {
    const all = ids(esearch({ term: "long covid", retmax: "500" }));
    expect([...all].sort()).toEqual(demo.pmidsFor("long covid"));
    const edats = all.map((p) => demo.record(p)?.edat ?? 0);
    expect(edats).toEqual([...edats].sort((a, b) => b - a));
    expect(ids(esearch({ term: "long covid", retstart: "100", retmax: "50" }))).toEqual(
      all.slice(100),
    );
    expect(ids(esearch({ term: "long covid" }))).toHaveLength(20);
    expect(ids(esearch({ term: "  LONG   Covid " }))).toEqual(all.slice(0, 20));
  });

  it("answers an unknown term with Count 0, PhraseNotFound and 'No items found.'", () => {
    const body = esearch({ term: "zebra finch song" });
    expect(count(body)).toBe(0);
    expect(body).toContain("<IdList/>");
    expect(body).toContain(
      "<ErrorList><PhraseNotFound>zebra finch song</PhraseNotFound></ErrorList>",
    );
    expect(body).toContain(
      "<WarningList><OutputMessage>No items found.</OutputMessage></WarningList>",
    );
  });

  it("applies date windows inclusively by day, for edat and pdat, and rettype=count", () => {
    const total = demo.pmidsFor("long covid").length;
    for (const datetype of ["edat", "pdat"]) {
      let sum = 0;
      for (let y = 2018; y <= 2027; y++) {
        sum += count(
          esearch({
            term: "long covid",
            datetype,
            mindate: String(y),
            maxdate: String(y),
            rettype: "count",
          }),
        );
      }
      expect(sum).toBe(total);
    }
    const pmid = demo.pmidsFor("long covid")[42] ?? "";
    const day = new Date(demo.record(pmid)?.edat ?? 0)
      .toISOString()
      .slice(0, 10)
      .replace(/-/g, "/");
    expect(
      ids(esearch({ term: "long covid", datetype: "edat", mindate: day, maxdate: day })),
    ).toContain(pmid);
    expect(esearch({ term: "long covid", rettype: "count" })).toMatch(
      /<eSearchResult><Count>120<\/Count><\/eSearchResult>/,
    );
    expect(esearch({ term: "long covid", datetype: "edat", mindate: "2022/13/01" })).toContain(
      "<ERROR>",
    );
  });

  it("filters by the publication types pubmed_search adds, and sorts by publication date", () => {
    const reviews = ids(
      esearch({ term: '(long covid) AND ("Review"[Publication Type])', retmax: "200" }),
    );
    expect(reviews.length).toBeGreaterThan(0);
    for (const p of reviews)
      expect(demo.record(p)?.publicationTypes.map((t) => t.name)).toContain("Review");
    const byPdat = ids(esearch({ term: "long covid", sort: "pub_date", retmax: "200" })).map(
      (p) => demo.record(p)?.pdat ?? 0,
    );
    expect(byPdat).toEqual([...byPdat].sort((a, b) => b - a));
  });
});

describe("synthHandler: the other utilities", () => {
  const demo = demoCorpus();
  const ncbi = synthHandler(demo);
  const [a = "", b = "", c = ""] = demo.pmidsFor("crispr therapy");

  it("EFetch returns known ids in the order asked, omits unknown ones, and speaks MEDLINE", () => {
    const xml = call(ncbi, "efetch", { db: "pubmed", id: `${c},99999999,${a}`, retmode: "xml" });
    expect(xml.contentType).toMatch(/^text\/xml/);
    expect([...xml.body.matchAll(/<PMID Version="1">(\d+)<\/PMID>/g)].map((m) => m[1])).toEqual([
      c,
      a,
    ]);
    expect(call(ncbi, "efetch", { db: "pubmed", id: "1", retmode: "xml" }).body).toMatch(
      /<PubmedArticleSet>\n<\/PubmedArticleSet>$/,
    );
    expect(call(ncbi, "efetch", { db: "pubmed", retmode: "xml" }).body).toContain(
      "<ERROR>Empty id list - nothing todo</ERROR>",
    );
    const medline = call(ncbi, "efetch", {
      db: "pubmed",
      id: `${a},${b}`,
      rettype: "medline",
      retmode: "text",
    });
    expect(medline.contentType).toMatch(/^text\/plain/);
    expect(medline.body).toContain(`PMID- ${a}\n`);
    expect(medline.body).toContain(`\n\nPMID- ${b}\n`);
    expect(medline.body).toMatch(/\nTI {2}- \S/);
    for (const line of medline.body.split("\n").filter((l) => l !== "")) {
      expect(line).toMatch(/^([A-Z]{2,4} *- \S| {6}\S)/);
      expect(line.length).toBeLessThanOrEqual(80 + 40); // one over-long word may overhang
    }
  });

  it("ESummary answers per id, with NCBI's per-uid error for unknown ones", () => {
    const body = call(ncbi, "esummary", { db: "pubmed", id: `${a},123`, version: "2.0" }).body;
    expect(body).toContain(`<DocumentSummary uid="${a}">`);
    expect(body).toContain(`\t<Title>${demo.record(a)?.title}</Title>`);
    expect(body).toContain(
      '<DocumentSummary uid="123">\n<error>cannot get document summary</error>',
    );
    expect(call(ncbi, "esummary", { db: "pubmed" }).body).toContain(
      "<ERROR>Neither query_key nor id specified</ERROR>",
    );
  });

  it("ELink: similar articles scored (itself first), references and cited-by mutually consistent", () => {
    const body = call(ncbi, "elink", {
      dbfrom: "pubmed",
      db: "pubmed",
      id: b,
      cmd: "neighbor_score",
      linkname: "pubmed_pubmed",
    }).body;
    const scores = [...body.matchAll(/<Score>(\d+)<\/Score>/g)].map((m) => Number(m[1]));
    expect(ids(body).slice(0, 2)).toEqual([b, b]);
    expect(scores.length).toBeGreaterThan(5);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    for (const id of ids(body)) expect(demo.record(id)?.topic).toBe(demo.record(b)?.topic);
    expect(
      call(ncbi, "elink", { dbfrom: "pubmed", id: b, linkname: "pubmed_pubmed" }).body,
    ).not.toContain("<Score>");

    let citing = 0;
    for (const pmid of demo.pmidsFor("long covid")) {
      for (const ref of demo.referencesOf(pmid)) {
        expect(demo.citedByOf(ref)).toContain(pmid);
        citing++;
      }
    }
    expect(citing).toBeGreaterThan(100);
    const cited = demo.pmidsFor("long covid").find((p) => demo.citedByOf(p).length > 0) ?? "";
    const citedIn = call(ncbi, "elink", {
      dbfrom: "pubmed",
      id: cited,
      linkname: "pubmed_pubmed_citedin",
    }).body;
    expect(ids(citedIn).slice(1)).toEqual(demo.citedByOf(cited));
    expect(citedIn).not.toContain("pubmed_pubmed_refs");
    expect(call(ncbi, "elink", { dbfrom: "pubmed", id: "99999999" }).body).not.toContain(
      "<LinkSetDb>",
    );
  });

  it("ESpell corrects words from its table and leaves the rest alone", () => {
    const body = call(ncbi, "espell", { db: "pubmed", term: "asthmaa in childrn" }).body;
    expect(tag(body, "CorrectedQuery")).toBe("asthma in children");
    expect(body).toContain(
      "<SpelledQuery><Replaced>asthma</Replaced><Original> in </Original><Replaced>children</Replaced></SpelledQuery>",
    );
    expect(
      tag(call(ncbi, "espell", { db: "pubmed", term: "diabetis" }).body, "CorrectedQuery"),
    ).toBe("diabetes");
    expect(
      tag(call(ncbi, "espell", { db: "pubmed", term: "heart failure" }).body, "CorrectedQuery"),
    ).toBe("");
  });

  it("ECitMatch matches on year, volume, first page and first author; else NOT_FOUND or AMBIGUOUS", () => {
    const line = (i: number, key: string) => {
      const cit = demo.citationAt(i);
      return `${cit.journal.iso}|${cit.pubDate.year}|${cit.volume}|${cit.startPage}|${cit.firstAuthor.lastName} ${cit.firstAuthor.initials}|${key}|`;
    };
    const twin = Array.from({ length: demo.size }, (_, i) => i).find(
      (i) => i > 0 && JSON.stringify(demo.citationAt(i)) === JSON.stringify(demo.citationAt(i - 1)),
    );
    expect(twin).toBeDefined();
    const single =
      Array.from({ length: demo.size }, (_, i) => i).find(
        (i) => i !== twin && i !== (twin ?? 0) - 1,
      ) ?? 0;
    const bdata = [
      line(single, "k1"),
      "Nowhere J|1999|1|1|nobody x|k2|",
      line(twin ?? 0, "k3"),
    ].join("\r");
    const reply = call(ncbi, "ecitmatch", { db: "pubmed", retmode: "xml", bdata });
    expect(reply.contentType).toMatch(/^text\/plain/);
    expect(reply.body.split("\n")).toEqual([
      `${line(single, "k1")}${demo.pmidOf(single)}`,
      "Nowhere J|1999|1|1|nobody x|k2|NOT_FOUND",
      `${line(twin ?? 0, "k3")}AMBIGUOUS (2 citations)`,
      "",
    ]);
  });

  it("EInfo reports the corpus size; unknown utilities and databases are refused NCBI's way", () => {
    const info = call(ncbi, "einfo", { db: "pubmed" }).body;
    expect(count(info)).toBe(demo.size);
    expect(tag(info, "LastUpdate")).toBe("2026/01/15 12:00");
    expect(call(ncbi, "einfo", {}).body).toContain("<DbName>pubmed</DbName>");
    expect(call(ncbi, "einfo", { db: "pmc" }).body).toContain(
      "<ERROR>Invalid db name specified: pmc</ERROR>",
    );
    expect(
      call(ncbi, "esearch.fcgi", { db: "pubmed", term: "long covid", rettype: "count" }).body,
    ).toContain("<Count>120</Count>");
    expect(ncbi({ utility: "epost", params: {} })).toBeUndefined();
    expect(ncbi({ utility: "toString", params: {} })).toBeUndefined();
  });
});

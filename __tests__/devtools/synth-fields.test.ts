/**
 * The synthetic ESearch and ECitMatch answering what pubmed_verify_references sends (and the
 * offline demo therefore needs): DOI, title-word and PMID clauses joined by OR, many citation
 * lines in one request. Plain terms keep the corpus's own matching.
 */
import { describe, expect, it } from "@jest/globals";
import { foldWords, STOPWORDS } from "../../src/devtools/pubmed-fields.js";
import { demoCorpus, synthHandler } from "../../src/devtools/synth-ncbi.js";
import { parseECitMatch } from "../../src/ncbi/parse/ecitmatch.js";
import { parseESearch } from "../../src/ncbi/parse/esearch.js";

const corpus = demoCorpus();
const ncbi = synthHandler(corpus);
const body = (utility: string, params: Record<string, string>) => {
  const reply = ncbi({ utility, params });
  if (!reply) throw new Error(`no reply for ${utility}`);
  return reply.body;
};
const esearch = (term: string, retmax = "100") =>
  parseESearch(body("esearch", { db: "pubmed", term, retmax }));
/** PubMed's default order here: newest Entrez date first. */
const byEdat = (pmids: string[]) =>
  [...pmids].sort(
    (a, b) =>
      corpus.edatOf(corpus.indexOf(b) ?? 0) - corpus.edatOf(corpus.indexOf(a) ?? 0) ||
      Number(b) - Number(a),
  );

const withDoi = Array.from({ length: corpus.size }, (_, i) => corpus.recordAt(i)).filter(
  (r) => r.doi !== null,
);
const [a, b, c] = [withDoi[3], withDoi[40], withDoi[150]];
if (!a || !b || !c) throw new Error("demo corpus too small");
/** Four distinctive words of a title, as the verifier picks them. */
const titleGroup = (title: string) =>
  `(${foldWords(title)
    .filter((w) => !STOPWORDS.has(w) && w.length > 3)
    .slice(0, 4)
    .map((w) => `${w}[ti]`)
    .join(" AND ")})`;

describe("synthetic ESearch: field-tagged clauses", () => {
  it('finds a record by "<doi>"[aid], in any case', () => {
    expect(esearch(`"${a.doi?.toLowerCase()}"[aid]`).ids).toEqual([a.pmid]);
    expect(esearch(`"${a.doi?.toUpperCase()}"[aid]`).ids).toEqual([a.pmid]);
    expect(esearch('"10.5555/nothing.2020.000000"[aid]').count).toBe(0);
  });

  it("ANDs title words: every record found has them all, and the record itself is found", () => {
    const found = esearch(titleGroup(b.title));
    expect(found.ids).toContain(b.pmid);
    const words = foldWords(titleGroup(b.title).replace(/\[ti\]|AND|[()]/g, " "));
    for (const pmid of found.ids) {
      const title = foldWords(corpus.record(pmid)?.title ?? "");
      expect(words.every((w) => title.includes(w))).toBe(true);
    }
    expect(esearch("(zzqx[ti] AND metformin[ti] AND aging[ti])").count).toBe(0);
  });

  it("ORs DOI, title and PMID clauses, in PubMed's order, retmax honoured", () => {
    const term = [`"${a.doi}"[aid]`, `${c.pmid}[pmid]`, "99999999[pmid]", titleGroup(b.title)].join(
      " OR ",
    );
    const all = esearch(term);
    const expected = byEdat([...new Set([a.pmid, c.pmid, ...esearch(titleGroup(b.title)).ids])]);
    expect(all.ids).toEqual(expected);
    expect(all.count).toBe(expected.length);
    expect(esearch(term, "2").ids).toEqual(expected.slice(0, 2));
  });

  it("keeps plain terms as they were, and refuses a malformed one with <ERROR>", () => {
    expect(esearch("metformin aging", "1000").ids).toEqual(
      byEdat(corpus.pmidsFor("metformin aging")),
    );
    const bad = body("esearch", { db: "pubmed", term: "(metformin[ti] AND" });
    expect(bad).toContain("<ERROR>");
  });
});

describe("synthetic ECitMatch with many lines", () => {
  it("answers every one of 100 lines, each with its record", () => {
    const records = Array.from({ length: 100 }, (_, i) => corpus.recordAt(i * 2));
    const bdata = records
      .map((r, i) => {
        const cit = r.citation;
        return `${cit.journal.iso}|${cit.pubDate.year}|${cit.volume}|${cit.startPage}|${cit.firstAuthor.lastName} ${cit.firstAuthor.initials}|k${i}|`;
      })
      .join("\r");
    const lines = parseECitMatch(body("ecitmatch", { db: "pubmed", retmode: "xml", bdata }));
    expect(lines.map((l) => l.key)).toEqual(records.map((_, i) => `k${i}`));
    lines.forEach((l, i) => {
      // Twins share a citation (the corpus lists ~2% twice): those lines are ambiguous.
      expect([records[i]?.pmid, "AMBIGUOUS (2 citations)"]).toContain(l.answer);
    });
    expect(lines.filter((l) => /^\d+$/.test(l.answer)).length).toBeGreaterThan(90);
  });
});

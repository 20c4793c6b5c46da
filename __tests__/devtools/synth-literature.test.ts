/**
 * The offline demo's synthetic server answers every endpoint the reading tools call, and its
 * project-written replies read through the phase-1 parsers and the real service clients into
 * content consistent with the synthetic corpus (same PMIDs, PMCIDs, DOIs, titles, MeSH).
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { loadConfig } from "../../src/config.js";
import { demoCorpus } from "../../src/devtools/synth-ncbi.js";
import { pmcWithholds } from "../../src/devtools/synth-jats.js";
import { startSynthServer, type SynthServer } from "../../src/devtools/synth-server.js";
import type { SynthCorpus, SynthRecord } from "../../src/devtools/synth.js";
import { meshLookup } from "../../src/literature/mesh.js";
import {
  convertIds,
  europePmcFullTextXml,
  europePmcLinks,
  fetchPmcJats,
  pubtatorExport,
  unpaywallLookup,
} from "../../src/literature/reading.js";
import { europePmcSearch } from "../../src/pubmed/europepmc-search.js";
import { closeProcess, setStateForTests } from "../../src/worker/process.js";

let server: SynthServer;
let corpus: SynthCorpus;
let records: SynthRecord[];

beforeAll(async () => {
  corpus = demoCorpus();
  records = Array.from({ length: corpus.size }, (_, i) => corpus.recordAt(i));
  server = await startSynthServer(corpus);
  await setStateForTests(
    loadConfig({
      NCBI_EUTILS_BASE_URL: server.baseUrl,
      ...server.env,
      UNPAYWALL_EMAIL: "demo@example.org",
      NCBI_MAX_RPS: "50",
      NCBI_MAX_RETRIES: "0",
      LOG_LEVEL: "error",
      PUBMED_MCP_DATA_DIR: "/nonexistent-not-opened",
    }),
  );
});
afterAll(async () => {
  await closeProcess();
  await server.close();
});

const withPmc = () => records.filter((r) => r.pmcid !== null && !pmcWithholds(r));

describe("synthetic literature services", () => {
  it("has records of every kind the full-text chain needs", () => {
    expect(withPmc().length).toBeGreaterThan(5);
    expect(records.some(pmcWithholds)).toBe(true);
    expect(records.some((r) => r.pmcid === null && r.doi !== null)).toBe(true);
  });

  it("converts ids between PMID, PMCID and DOI", async () => {
    const r = withPmc()[0]!;
    const without = records.find((x) => x.pmcid === null)!;
    const out = await convertIds([r.pmid, r.pmcid!, without.pmid]);
    expect(out[0]).toMatchObject({ pmid: r.pmid, pmcid: r.pmcid });
    expect(out[1]).toMatchObject({ pmid: r.pmid, pmcid: r.pmcid });
    expect(out[2]).toMatchObject({ input: without.pmid, status: "error" });
  });

  it("serves JATS through EFetch db=pmc: sections, captions, references, licence, identity", async () => {
    const r = withPmc().find((x) => x.references.length > 0)!;
    const doc = await fetchPmcJats(r.pmcid!);
    const [article] = doc.articles;
    expect(article).toMatchObject({
      pmid: r.pmid,
      pmcid: r.pmcid,
      title: r.title,
      hasBody: true,
      articleType: "research-article",
    });
    expect(article!.sections.map((s) => [s.level, s.title])).toEqual([
      [1, "Introduction"],
      [1, "Methods"],
      [2, "Study design"],
      [2, "Statistical analysis"],
      [1, "Results"],
      [1, "Discussion"],
    ]);
    expect(article!.figures).toEqual([
      { id: "F1", label: "Figure 1", caption: "Main outcome by group (synthetic data)." },
    ]);
    expect(article!.referenceCount).toBe(r.references.length);
    expect(article!.license?.url).toBe("https://creativecommons.org/licenses/by/4.0/");
    expect(JSON.stringify(article)).not.toMatch(/<\/?(?:italic|sec|p|xref)\b/);
    const unknown = await fetchPmcJats("PMC1");
    expect(unknown.errors).toHaveLength(1);
  });

  it("withholds some articles at PMC that Europe PMC has in full", async () => {
    const r = records.find((x) => pmcWithholds(x))!;
    const pmc = await fetchPmcJats(r.pmcid!);
    expect(pmc.articles[0]?.notFullText?.reason).toBe("withheld");
    const europe = await europePmcFullTextXml(r.pmcid!);
    expect("articles" in europe && europe.articles[0]).toMatchObject({
      pmcid: r.pmcid,
      hasBody: true,
    });
    expect(await europePmcFullTextXml("PMC1")).toHaveProperty("unavailable");
  });

  it("searches Europe PMC with cursor paging, and links citations and references", async () => {
    const first = await europePmcSearch("long covid", { pageSize: 10, resultType: "core" });
    expect(first.hitCount).toBeGreaterThan(10);
    expect(first.results).toHaveLength(10);
    expect(first.results[0]?.abstract).toBeDefined();
    const second = await europePmcSearch("long covid", {
      pageSize: 10,
      cursorMark: first.nextCursorMark!,
    });
    expect(second.results[0]?.id).not.toBe(first.results[0]?.id);
    expect((await europePmcSearch("long covid", { sources: ["PPR"] })).hitCount).toBe(0);
    const r = records.find((x) => x.references.length > 0)!;
    const refs = await europePmcLinks(r.pmid, "references");
    expect(refs.items.map((i) => i.pmid)).toEqual(
      r.references.map((x) => x.pmid).filter((p) => corpus.has(p)),
    );
    const cited = await europePmcLinks(r.pmid, "citations");
    expect(cited.hitCount).toBe(corpus.citedByOf(r.pmid).length);
  });

  it("answers Unpaywall with a link (and closed access) and PubTator with grouped entities", async () => {
    const green = withPmc().find((r) => r.doi !== null)!;
    expect(await unpaywallLookup(green.doi!)).toMatchObject({ isOa: true, oaStatus: "green" });
    const closed = records.find((r) => r.pmcid === null && r.doi && Number(r.pmid) % 3 !== 0)!;
    expect(await unpaywallLookup(closed.doi!)).toMatchObject({ isOa: false, oaStatus: "closed" });
    const { articles, notFound } = await pubtatorExport([green.pmid, "1"], false);
    expect(articles.map((a) => a.pmid)).toEqual([green.pmid]);
    expect(notFound).toEqual(["1"]);
    expect(articles[0]!.title).toBe(green.title);
  });

  it("looks MeSH descriptors up by name and by UI", async () => {
    const heading = records.flatMap((r) => r.mesh).find((h) => h.name === "COVID-19")!;
    const byName = await meshLookup("COVID-19");
    expect(byName.records[0]).toMatchObject({
      ui: heading.ui,
      name: "COVID-19",
      searchTag: '"COVID-19"[Mesh]',
    });
    const byUi = await meshLookup(heading.ui);
    expect(byUi.records.map((m) => m.ui)).toEqual([heading.ui]);
    const none = await meshLookup("zzzz nothing");
    expect(none).toMatchObject({ totalFound: 0, records: [] });
  });
});

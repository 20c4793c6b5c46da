/**
 * pubmed_verify_references through the official MCP client, against a stand-in PubMed serving the
 * real recorded records of ../shared/fixtures/eutils (src/devtools/fixture-pubmed.ts). The
 * references are written here from those records; the notice records are real records with a
 * CommentsCorrections link added by the test (no recorded record carries one), and say so.
 */
import { afterAll, beforeAll, expect, test } from "@jest/globals";
import {
  fixturePubmedOf,
  fixturePubmedRoute,
  loadFixturePubmed,
  type FixturePubmed,
  type FixtureRecord,
} from "../../src/devtools/fixture-pubmed.js";
import { parseEFetch } from "../../src/ncbi/parse/efetch.js";
import type { Article } from "../../src/ncbi/types.js";
import { crossrefDate, startFakeCrossref, type FakeCrossref } from "../helpers/fake-crossref.js";
import type { FakeRequest } from "../helpers/fake-eutils.js";
import { startHarness, type Harness } from "../helpers/mcp.js";
import { EUTILS_FIXTURES, describeShared } from "../helpers/shared.js";

interface Result {
  index: number;
  input: string;
  status: string;
  pmid?: string;
  doi?: string;
  matched?: { title: string; first_author?: string; journal?: string; year?: string };
  differences: string[];
  notices: { type: string; notice_pmid?: string; date?: string }[];
  candidates?: { pmid: string }[];
  note?: string;
}
interface Out {
  results: Result[];
  summary: Record<string, number>;
  note?: string;
}

let pubmed: FixturePubmed;
let h: Harness;

async function verify(references: unknown): Promise<Out> {
  const res = await h.client.callTool({
    name: "pubmed_verify_references",
    arguments: { references },
  });
  const text = (res.content as { text: string }[])[0]!.text;
  if (res.isError) throw new Error(text);
  return JSON.parse(text) as Out;
}

async function refused(references: unknown): Promise<string> {
  const res = await h.client.callTool({
    name: "pubmed_verify_references",
    arguments: { references },
  });
  expect(res.isError).toBe(true);
  const env = JSON.parse((res.content as { text: string }[])[0]!.text) as {
    error: { code: string; message: string };
  };
  expect(env.error.code).toBe("VALIDATION");
  return env.error.message;
}

function vancouver(
  a: Article,
  over: Partial<{ year: string; pages: string; authors: string }> = {},
) {
  const j = a.journalInfo;
  const authors =
    over.authors ??
    a.authors
      .slice(0, 3)
      .map((x) => x.collectiveName ?? `${x.lastName} ${x.initials ?? ""}`.trim())
      .join(", ") + (a.authors.length > 3 ? ", et al" : "");
  const issue = j.issue ? `(${j.issue})` : "";
  return `${authors}. ${a.title.replace(/[.]$/, "")}. ${j.isoAbbreviation ?? j.title}. ${over.year ?? j.publicationDate.year};${j.volume ?? ""}${issue}:${over.pages ?? j.pages ?? ""}.`;
}

/** Records with what a Vancouver reference needs, in a stable order. */
function citable(): Article[] {
  return pubmed.records
    .map((r) => r.article)
    .filter(
      (a) =>
        a.authors.length > 0 &&
        a.title.split(" ").length >= 4 &&
        a.journalInfo.volume &&
        a.journalInfo.pages &&
        a.journalInfo.publicationDate.year,
    );
}

const calls = (utility: string) => h.fake.requests.filter((r) => r.utility === utility).length;

describeShared("pubmed_verify_references", () => {
  beforeAll(async () => {
    pubmed = loadFixturePubmed(EUTILS_FIXTURES);
    const route = fixturePubmedRoute(pubmed);
    h = await startHarness({ routes: [(req: FakeRequest) => route(req)] });
  });
  afterAll(async () => {
    await h?.close();
  });

  test("real references are verified with their PMID, in few requests for a batch", async () => {
    const records = citable().slice(0, 60);
    expect(records.length).toBe(60);
    h.fake.reset();
    const out = await verify(records.map((a) => vancouver(a)));
    expect(out.results.map((r) => [r.status, r.pmid])).toEqual(
      records.map((a) => ["verified", a.pmid]),
    );
    expect(out.summary).toMatchObject({ verified: 60, mismatch: 0, not_found: 0, ambiguous: 0 });
    // 3 ESearch (20 titles each), 3 ECitMatch (25 lines each), 1 EFetch of every candidate.
    expect(h.fake.requests.length).toBeLessThanOrEqual(8);
    expect(calls("efetch")).toBe(1);
  });

  test("a wrong year, wrong pages or other authors make a mismatch naming the field", async () => {
    const [a, b, c] = citable().slice(5, 8) as [Article, Article, Article];
    const wrongYear = String(Number(a.journalInfo.publicationDate.year) - 3);
    const otherAuthors = "Zzyzx Q, Quimby RT";
    const out = await verify([
      vancouver(a, { year: wrongYear }),
      vancouver(b, { pages: "9999-10001" }),
      vancouver(c, { authors: otherAuthors }),
    ]);
    expect(out.results.map((r) => [r.status, r.pmid, r.differences])).toEqual([
      ["mismatch", a.pmid, ["year"]],
      ["mismatch", b.pmid, ["pages"]],
      ["mismatch", c.pmid, ["authors"]],
    ]);
    expect(out.results[0]!.matched?.year).toBe(a.journalInfo.publicationDate.year);
  });

  test("invented references are not found, never verified", async () => {
    const out = await verify([
      "Quimby RT, Zzyzx Q. Lunar tidal cycles modulate hepatic glycogen turnover in hibernating marmots. J Biol Chem. 2011;286(4):1234-41.",
      "Smith et al., Photonic entanglement of ventricular myocytes under orbital microgravity, Nature 2021",
      "Unicorn-derived exosomes reverse sarcopenia",
      // A DOI that resolves nowhere, on an invented paper.
      "Quimby RT. Marmot glycogen and the moon. Lancet. 2019;393:1-9. doi:10.9999/nowhere.12345",
    ]);
    expect(out.results.map((r) => r.status)).toEqual([
      "not_found",
      "not_found",
      "not_found",
      "not_found",
    ]);
    expect(out.summary.verified).toBe(0);
  });

  test("a DOI or PMID that names a real record with another paper's details is a mismatch", async () => {
    const [a, b] = citable()
      .filter((x) => x.doi)
      .slice(0, 2) as [Article, Article];
    const out = await verify([
      `${vancouver(b)} doi:${a.doi}`,
      `Zzyzx Q. An invented title about nothing at all. Lancet. 2001;1:1. PMID: ${a.pmid}`,
    ]);
    // b's details agree with b; the DOI is a's: the record meant is b, and the DOI differs.
    expect(out.results[0]).toMatchObject({
      status: "mismatch",
      pmid: b.pmid,
      differences: ["doi"],
    });
    expect(out.results[1]).toMatchObject({ status: "mismatch", pmid: a.pmid });
    expect(out.results[1]!.differences).toEqual(
      expect.arrayContaining(["title", "authors", "journal"]),
    );
  });

  test("a pasted numbered list is split; empty and oversized items are answered, not failed", async () => {
    const [a, b] = citable().slice(10, 12) as [Article, Article];
    const out = await verify([
      `1. ${vancouver(a)}\n2. ${vancouver(b)}`,
      "   ",
      "x".repeat(5_000),
      "王小明. 中药治疗慢性胃炎的临床研究. 中华医学杂志. 2019;99(3):100-5.",
    ]);
    expect(out.results.map((r) => [r.index, r.status])).toEqual([
      [0, "verified"],
      [1, "verified"],
      [2, "not_found"],
      [3, "not_found"],
      [4, "not_found"],
    ]);
    expect(out.results[2]!.note).toBe("empty reference");
    expect(out.results[3]!.note).toMatch(/longer than 3000 characters/);
    expect(out.results[3]!.input.length).toBeLessThanOrEqual(101);
    expect(out.results[4]!.note).toMatch(/not in Latin script/);
    expect(out.note).toMatch(/split: 5 references/);
  });

  test("BibTeX and RIS blocks are read", async () => {
    const [a, b] = citable()
      .filter((x) => x.doi)
      .slice(2, 4) as [Article, Article];
    const bib = `@article{k1,\n  author = {${a.authors[0]!.lastName}, ${a.authors[0]!.initials}},\n  title = {${a.title}},\n  journal = {${a.journalInfo.title}},\n  year = {${a.journalInfo.publicationDate.year}},\n  doi = {${a.doi}}\n}`;
    const ris = [
      "TY  - JOUR",
      `AU  - ${b.authors[0]!.lastName}, ${b.authors[0]!.firstName ?? b.authors[0]!.initials}`,
      `TI  - ${b.title}`,
      `JO  - ${b.journalInfo.isoAbbreviation}`,
      `PY  - ${b.journalInfo.publicationDate.year}`,
      `VL  - ${b.journalInfo.volume}`,
      "ER  - ",
    ].join("\n");
    const out = await verify([bib, ris]);
    expect(out.results.map((r) => [r.status, r.pmid])).toEqual([
      ["verified", a.pmid],
      ["verified", b.pmid],
    ]);
  });

  test("a PMID sent as a number, alone or in the list, is taken", async () => {
    const [a, b] = citable().slice(20, 22) as [Article, Article];
    const one = await verify(Number(a.pmid));
    expect(one.results.map((r) => [r.status, r.pmid])).toEqual([["verified", a.pmid]]);
    const two = await verify([Number(a.pmid), vancouver(b)]);
    expect(two.results.map((r) => [r.status, r.pmid])).toEqual([
      ["verified", a.pmid],
      ["verified", b.pmid],
    ]);
  });

  test("more than 100 references after splitting is refused with how to fix it", async () => {
    const many = Array.from({ length: 101 }, (_, i) => `${i + 1}. Ref number ${i + 1}.`).join("\n");
    expect(await refused(many)).toMatch(/101 references once lists are split; send at most 100/);
    expect(await refused([])).toMatch(/at least one reference/);
  });
});

describeShared("pubmed_verify_references: notices", () => {
  let local: Harness;
  beforeAll(async () => {
    const base = loadFixturePubmed(EUTILS_FIXTURES);
    const [target, notice] = base.records.filter((r) => r.article.authors.length > 0) as [
      FixtureRecord,
      FixtureRecord,
    ];
    // Added by this test: the target is retracted by `notice`, which says so from its side too.
    const link = (xml: string, type: string, pmid: string, source: string) =>
      xml.replace(
        /<\/MedlineCitation>/,
        `<CommentsCorrectionsList><CommentsCorrections RefType="${type}"><RefSource>${source}</RefSource><PMID Version="1">${pmid}</PMID></CommentsCorrections></CommentsCorrectionsList></MedlineCitation>`,
      );
    const edit = (r: FixtureRecord, xml: string): FixtureRecord => ({
      ...r,
      xml,
      article: parseEFetch(`<PubmedArticleSet>${xml}</PubmedArticleSet>`)[0]!,
    });
    const records = [
      edit(
        target,
        link(target.xml, "RetractionIn", notice.pmid, "Lancet. 2021 Feb 6;397(10273):470"),
      ),
      edit(notice, link(notice.xml, "RetractionOf", target.pmid, "Some J. 2019;1:1")),
      ...base.records.slice(2),
    ];
    pubmed = fixturePubmedOf(records);
    const route = fixturePubmedRoute(pubmed);
    local = await startHarness({ routes: [(req: FakeRequest) => route(req)] });
  });
  afterAll(async () => {
    await local?.close();
  });

  test("a verified reference carries its retraction notice with the notice's PMID and date", async () => {
    const target = pubmed.records[0]!.article;
    const res = await local.client.callTool({
      name: "pubmed_verify_references",
      arguments: { references: [`PMID: ${target.pmid}`] },
    });
    const out = JSON.parse((res.content as { text: string }[])[0]!.text) as Out;
    expect(out.results[0]).toMatchObject({
      status: "verified",
      pmid: target.pmid,
      notices: [{ type: "retraction", notice_pmid: pubmed.records[1]!.pmid, date: "2021-02-06" }],
    });
    expect(out.summary.with_notices).toBe(1);
  });
});

describeShared("pubmed_verify_references: Crossref", () => {
  let cr: FakeCrossref;
  let local: Harness;
  let paper: Article;
  beforeAll(async () => {
    pubmed = loadFixturePubmed(EUTILS_FIXTURES);
    paper = citable().find((a) => a.doi)!;
    // Written after Crossref's documented `updated-by` shape: Retraction Watch's withdrawal.
    cr = await startFakeCrossref({
      works: [
        {
          DOI: paper.doi!.toLowerCase(),
          "updated-by": [
            {
              DOI: "10.9999/withdrawal-notice",
              type: "withdrawal",
              source: "retraction-watch",
              updated: crossrefDate(2024, 5, 2),
            },
          ],
        },
      ],
    });
    const route = fixturePubmedRoute(pubmed);
    local = await startHarness({
      routes: [(req: FakeRequest) => route(req)],
      env: { ...cr.env, CROSSREF_MAILTO: "ops-verify@example.org" },
    });
  });
  afterAll(async () => {
    await local?.close();
    await cr?.close();
  });

  const call = async (references: string[]) => {
    const res = await local.client.callTool({
      name: "pubmed_verify_references",
      arguments: { references },
    });
    return JSON.parse((res.content as { text: string }[])[0]!.text) as Out & {
      warnings?: string[];
    };
  };

  test("Crossref's notice on the record meant is added, with its DOI and date", async () => {
    const out = await call([vancouver(paper)]);
    expect(out.results[0]).toMatchObject({
      status: "verified",
      pmid: paper.pmid,
      notices: [
        { type: "withdrawal", notice_doi: "10.9999/withdrawal-notice", date: "2024-05-02" },
      ],
    });
    expect(out.warnings).toBeUndefined();
    expect(JSON.stringify(out)).not.toContain("ops-verify@example.org");
  });

  test("Crossref failing costs only its notices: the verdicts stand and a warning says so", async () => {
    // Another paper: Crossref's reply about the first one is cached.
    const other = citable().filter((a) => a.doi)[1]!;
    cr.failWith({ status: 500, body: "busy" });
    try {
      const out = await call([vancouver(other)]);
      expect(out.results[0]).toMatchObject({ status: "verified", pmid: other.pmid, notices: [] });
      expect(out.warnings).toEqual([expect.stringMatching(/^Crossref was not consulted/)]);
    } finally {
      cr.failWith(undefined);
    }
  });
});

/**
 * The evidence-quality score (docs/reference.md#rag_get, `quality`; one test per rule) and the chunker
 * (stable ids, section labels, sentence-bounded splits, the title in every chunk).
 */
import { describe, expect, it } from "@jest/globals";
import { createHash } from "node:crypto";
import { v5 as uuidv5 } from "uuid";
import { CHUNK_NAMESPACE, chunkArticle, chunkUuid } from "../../src/corpus/chunk.js";
import { contentHash, documentInputFromArticle } from "../../src/corpus/document.js";
import { computeQuality, publicationYear } from "../../src/corpus/quality.js";
import { parseEFetch } from "../../src/ncbi/parse/efetch.js";
import { emptyArticle, type AbstractSection, type Article } from "../../src/ncbi/types.js";
import { describeShared, eutilsFixture } from "../helpers/shared.js";

const NOW = new Date("2025-06-30T12:00:00Z");

function article(
  over: Partial<Article> & { year?: string | null; medlineDate?: string | null } = {},
): Article {
  const { year = "2010", medlineDate = null, ...rest } = over;
  const empty = emptyArticle("12345678");
  return {
    ...empty,
    title: "Statins and muscle symptoms",
    journalInfo: {
      ...empty.journalInfo,
      title: "A Journal",
      publicationDate: { year, month: null, day: null, medlineDate },
    },
    publicationTypes: ["Journal Article"],
    languages: ["eng"],
    ...rest,
  };
}

const mesh = (...names: string[]): Article["meshTerms"] =>
  names.map((descriptorName) => ({
    descriptorName,
    descriptorUi: null,
    isMajorTopic: false,
    qualifiers: [],
  }));

const quality = (over: Parameters<typeof article>[0]) => computeQuality(article(over), NOW);

describe("quality: design", () => {
  it.each([
    [["Meta-Analysis"], 3],
    [["Systematic Review"], 3],
    [["Randomized Controlled Trial"], 3],
    [["Clinical Trial"], 2],
    [["Clinical Trial, Phase I"], 2],
    [["Clinical Trial, Phase III"], 2],
    [["Controlled Clinical Trial"], 2],
    [["Pragmatic Clinical Trial"], 2],
    [["Equivalence Trial"], 2],
    [["Observational Study"], 1],
    [["Comparative Study"], 1],
    [["Multicenter Study"], 1],
    [["Journal Article", "Review"], 0],
    [["Case Reports"], 0],
    // The strongest design present counts.
    [["Multicenter Study", "Randomized Controlled Trial"], 3],
  ])("%j scores %i", (publicationTypes, points) => {
    expect(quality({ publicationTypes }).design).toBe(points);
  });

  it("reads cohort and case-control designs from MeSH", () => {
    expect(quality({ meshTerms: mesh("Cohort Studies") }).design).toBe(1);
    expect(quality({ meshTerms: mesh("Case-Control Studies") }).design).toBe(1);
    expect(
      quality({ meshTerms: mesh("Cohort Studies"), publicationTypes: ["Clinical Trial"] }).design,
    ).toBe(2);
    expect(quality({ meshTerms: mesh("Humans") }).design).toBe(0);
  });

  it.each([
    "Prospective Studies",
    "Retrospective Studies",
    "Follow-Up Studies",
    "Longitudinal Studies",
  ])("counts %s, below Cohort/Case-Control Studies in the MeSH tree, as design 1", (name) => {
    expect(quality({ meshTerms: mesh(name) }).design).toBe(1);
    expect(quality({ meshTerms: mesh(name), publicationTypes: ["Meta-Analysis"] }).design).toBe(3);
  });
});

describeShared("quality: recorded MEDLINE records", () => {
  it("a retrospective study indexed only with the MeSH descriptor gets its design point", () => {
    const [record] = parseEFetch(eutilsFixture("metapub/pmid_xml/36987902.xml"));
    expect(record?.publicationTypes).toEqual(["Journal Article"]);
    expect(record?.meshTerms.map((m) => m.descriptorName)).toContain("Retrospective Studies");
    expect(computeQuality(record as Article, NOW).design).toBe(1);
  });
});

describe("quality: recency (today is 2025-06-30)", () => {
  it.each([
    ["2025", 2],
    ["2020", 2],
    ["2019", 1],
    ["2015", 1],
    ["2014", 0],
    ["1987", 0],
  ])("published %s scores %i", (year, points) => {
    expect(quality({ year }).recency).toBe(points);
  });

  it("uses the first year of a MedlineDate, and 0 when no year is known", () => {
    expect(quality({ year: null, medlineDate: "2021 Dec-2022 Jan" }).recency).toBe(2);
    expect(quality({ year: null, medlineDate: "1998 Dec-1999 Jan" }).recency).toBe(0);
    expect(publicationYear(article({ year: null, medlineDate: "Winter 2017-2018" }))).toBe(2017);
    expect(quality({ year: null, medlineDate: null }).recency).toBe(0);
    expect(quality({ year: null, medlineDate: "Spring" }).recency).toBe(0);
  });
});

describe("quality: journal and human", () => {
  it.each([
    [["AIM", "IM"], 2],
    [["AIM"], 2],
    [["IM"], 1],
    [["OM"], 0],
    [[], 0],
  ])("citation subsets %j score %i", (citationSubsets, points) => {
    expect(quality({ citationSubsets }).journal).toBe(points);
  });

  it.each([
    [["Humans"], 2],
    [["Animals", "Humans"], 2],
    [["Animals", "Mice"], 1],
    [["Cohort Studies"], 0],
  ])("MeSH %j scores %i", (names, points) => {
    expect(quality({ meshTerms: mesh(...names) }).human).toBe(points);
  });
});

describe("quality: total and retraction", () => {
  const best = {
    year: "2024",
    publicationTypes: ["Meta-Analysis"],
    citationSubsets: ["AIM"],
    meshTerms: mesh("Humans"),
  };

  it("sums the parts, up to 9", () => {
    expect(quality(best)).toEqual({ design: 3, recency: 2, journal: 2, human: 2, total: 9 });
    expect(quality({ year: "2018", meshTerms: mesh("Animals"), citationSubsets: ["IM"] })).toEqual({
      design: 0,
      recency: 1,
      journal: 1,
      human: 1,
      total: 3,
    });
  });

  it("scores a retracted paper 0 and flags it", () => {
    const doc = documentInputFromArticle(article({ ...best, isRetracted: true }), NOW);
    expect(doc.quality).toEqual({ design: 0, recency: 0, journal: 0, human: 0, total: 0 });
    expect(doc.isRetracted).toBe(true);
  });

  it("scores a parsed MEDLINE record: MedlineDate, AIM, MeSH cohort design, retraction notice", () => {
    const xml = (extra: string) => `<?xml version="1.0"?><PubmedArticleSet><PubmedArticle>
      <MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">34000001</PMID>
      <Article><Journal><JournalIssue><PubDate><MedlineDate>2021 Nov-Dec</MedlineDate></PubDate>
      </JournalIssue><Title>Ann Intern Med</Title></Journal><ArticleTitle>A cohort</ArticleTitle>
      <PublicationTypeList><PublicationType UI="D016428">Journal Article</PublicationType>
      </PublicationTypeList></Article><CitationSubset>AIM</CitationSubset>
      <CitationSubset>IM</CitationSubset>${extra}<MeshHeadingList>
      <MeshHeading><DescriptorName UI="D015331" MajorTopicYN="N">Cohort Studies</DescriptorName></MeshHeading>
      <MeshHeading><DescriptorName UI="D006801" MajorTopicYN="N">Humans</DescriptorName></MeshHeading>
      </MeshHeadingList></MedlineCitation><PubmedData><ArticleIdList>
      <ArticleId IdType="pubmed">34000001</ArticleId></ArticleIdList></PubmedData>
      </PubmedArticle></PubmedArticleSet>`;
    const [plain] = parseEFetch(xml(""));
    expect(computeQuality(plain as Article, NOW)).toEqual({
      design: 1,
      recency: 2,
      journal: 2,
      human: 2,
      total: 7,
    });
    const [retracted] = parseEFetch(
      xml(`<CommentsCorrectionsList><CommentsCorrections RefType="RetractionIn">
        <RefSource>Ann Intern Med. 2023</RefSource><PMID Version="1">36000001</PMID>
        </CommentsCorrections></CommentsCorrectionsList>`),
    );
    expect(retracted?.isRetracted).toBe(true);
    expect(computeQuality(retracted as Article, NOW).total).toBe(0);
  });
});

const sentence = (i: number, words = 20) =>
  `Sentence ${i} ${Array.from({ length: words - 2 }, (_, w) => `w${w}`).join(" ")}.`;
const section = (label: string | null, text: string): AbstractSection => ({
  label,
  nlmCategory: label,
  text,
});

describe("chunking", () => {
  it("keeps ids stable: uuid5 over <pmid>:<chunk_id> in the fixed namespace", () => {
    const a = article({
      abstractSections: [section("BACKGROUND", "Short."), section("METHODS", "Also short.")],
    });
    const chunks = chunkArticle(a);
    expect(chunks.map((c) => [c.chunkId, c.id])).toEqual([
      ["abs:0:0", chunkUuid("12345678", "abs:0:0")],
      // Pinned: changing the namespace or the id scheme would orphan every stored vector.
      ["abs:1:0", "46980c5c-63a4-5bac-9ae4-b785bb7d9287"],
    ]);
    expect(CHUNK_NAMESPACE).toBe("6f1d7a52-3b0e-5c1a-9d4e-2a7b8c9d0e1f");
    // A revised text with the same layout overwrites the same points; another PMID does not.
    const revised = article({
      abstractSections: [section("BACKGROUND", "Changed."), section("METHODS", "Changed too.")],
    });
    expect(chunkArticle(revised).map((c) => c.id)).toEqual(chunks.map((c) => c.id));
    expect(chunkArticle({ ...a, pmid: "12345679" })[0]?.id).not.toBe(chunks[0]?.id);
  });

  it("labels each chunk with its section and starts it with the title", () => {
    const chunks = chunkArticle(
      article({
        abstractSections: [
          section("BACKGROUND", "Statins are common."),
          section("RESULTS", "Myalgia was rare."),
        ],
      }),
    );
    expect(chunks).toEqual([
      expect.objectContaining({
        ord: 0,
        section: "BACKGROUND",
        text: "Statins and muscle symptoms\nBACKGROUND: Statins are common.",
      }),
      expect.objectContaining({
        ord: 1,
        section: "RESULTS",
        text: "Statins and muscle symptoms\nRESULTS: Myalgia was rare.",
      }),
    ]);
    const plain = chunkArticle(article({ abstractSections: [section(null, "One paragraph.")] }));
    expect(plain[0]?.text).toBe("Statins and muscle symptoms\nOne paragraph.");
  });

  it("splits a long section on sentence boundaries, at most 180 words a part", () => {
    const text = Array.from({ length: 25 }, (_, i) => sentence(i)).join(" ");
    const chunks = chunkArticle(article({ abstractSections: [section("RESULTS", text)] }));
    expect(chunks.map((c) => c.chunkId)).toEqual(["abs:0:0", "abs:0:1", "abs:0:2"]);
    const bodies = chunks.map((c) => {
      const [title, body] = c.text.split("\n");
      expect(title).toBe("Statins and muscle symptoms");
      expect(body?.startsWith("RESULTS: Sentence ")).toBe(true);
      return (body ?? "").replace(/^RESULTS: /, "");
    });
    for (const b of bodies) {
      expect(b.split(/\s+/).length).toBeLessThanOrEqual(180);
      expect(b.endsWith(".")).toBe(true);
    }
    expect(bodies.join(" ")).toBe(text);
    expect(chunks.every((c) => c.section === "RESULTS")).toBe(true);
  });

  it("keeps a sentence longer than a part whole", () => {
    const long = sentence(1, 250);
    const chunks = chunkArticle(
      article({ abstractSections: [section(null, `Intro here. ${long} Outro here.`)] }),
    );
    expect(chunks.map((c) => c.text.split("\n")[1])).toEqual(["Intro here.", long, "Outro here."]);
  });

  it("gives a paper without an abstract one title chunk", () => {
    for (const abstractSections of [[], [section("BACKGROUND", "   ")]]) {
      expect(chunkArticle(article({ abstractSections }))).toEqual([
        {
          id: chunkUuid("12345678", "title"),
          chunkId: "title",
          ord: 0,
          section: null,
          text: "Statins and muscle symptoms",
        },
      ]);
    }
    expect(chunkUuid("12345678", "title")).toBe("3f38b7c4-96cd-51d5-bb7c-2816820711e9");
  });

  it("computes the same uuid5 as the uuid package, for ASCII and non-ASCII names alike", () => {
    // Stores made before chunkUuid hashed by itself hold the uuid package's ids.
    const ids = ["title", "abs:0:0", "abs:12:3", "abs:RÉSULTATS:1", "abs:β-blocker✓:0", ""];
    for (let i = 0; i < 2000; i++) {
      const pmid = String((i * 7_919_311) % 40_000_000);
      const chunkId = ids[i % ids.length] ?? "";
      expect(chunkUuid(pmid, chunkId)).toBe(uuidv5(`${pmid}:${chunkId}`, CHUNK_NAMESPACE));
    }
  });
});

describe("documentInputFromArticle: one serialisation for the hash and the stored record", () => {
  const a = article({ title: 'Ünïcode “quotes” and "escapes"', abstractText: "Line\nbreak." });

  it("stores the record as JSON that parses back to the article", () => {
    const d = documentInputFromArticle(a, NOW);
    expect(JSON.parse(d.recordJson ?? "")).toEqual(a);
  });

  it("hashes what stores already hold: SHA-256 of the record's JSON without its dates", () => {
    const { articleDates: _dates, ...content } = a;
    const expected = createHash("sha256").update(JSON.stringify(content)).digest("hex");
    expect(documentInputFromArticle(a, NOW).contentHash).toBe(expected);
    expect(contentHash(a)).toBe(expected);
  });

  it("changes the hash with the content, not with the bookkeeping dates", () => {
    const base = contentHash(a);
    const dated = { ...a, articleDates: { ...a.articleDates, lr: "2025-01-01T00:00:00.000Z" } };
    expect(contentHash(dated)).toBe(base);
    expect(contentHash({ ...a, title: "Another title" })).not.toBe(base);
  });
});

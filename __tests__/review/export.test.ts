import { describe, expect, it } from "@jest/globals";
import { createRequire } from "node:module";
import { CSV_COLUMNS, exportWriter, recordToCsl } from "../../src/review/export.js";
import type { ExportFormat, ReviewRecord } from "../../src/store/review-types.js";

// citation-js is loaded through Node's require, as src/live/citations.ts explains; its RIS and
// BibTeX input plugins are the independent readers the exports must satisfy.
const nodeRequire = createRequire(import.meta.url);
const { Cite } = nodeRequire("@citation-js/core") as typeof import("@citation-js/core");
nodeRequire("@citation-js/plugin-ris");
nodeRequire("@citation-js/plugin-bibtex");

type Parsed = Record<string, unknown>;
const parse = (text: string): Parsed[] => new Cite(text).data;

/** RFC 4180: fields split by commas, quoted fields may hold commas, CRLF and doubled quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    let value = "";
    if (text[i] === '"') {
      for (i++; ; i++) {
        if (i >= text.length) throw new Error("unterminated quoted field");
        if (text[i] === '"' && text[i + 1] === '"') value += text[i++];
        else if (text[i] === '"') break;
        else value += text[i];
      }
      i++;
    } else {
      while (i < text.length && text[i] !== "," && text[i] !== "\r") {
        if (text[i] === '"' || text[i] === "\n") throw new Error(`bare ${text[i]} at ${i}`);
        value += text[i++];
      }
    }
    row.push(value);
    if (text[i] === ",") i++;
    else if (text.startsWith("\r\n", i)) {
      rows.push(row);
      row = [];
      i += 2;
    } else throw new Error(`expected a separator at ${i}`);
  }
  if (row.length > 0) throw new Error("last row not ended by CRLF");
  return rows;
}

const base = {
  seq: 1,
  sources: ["pubmed"],
  mesh: [],
  pubTypes: ["Journal Article"],
  notices: [],
  abstract: "",
} satisfies Partial<ReviewRecord>;

const AWKWARD: ReviewRecord = {
  ...base,
  id: "pmid:30955001",
  pmid: "30955001",
  doi: "10.1016/s0140-6736(19)30001_1",
  pmcid: "PMC6500001",
  title:
    'Effects of "quoted" {braces}, 50% & $5 #1 a_b \\ back on naïve Ω-β HIV patients:\nthe ~2^x study',
  abstract: 'BACKGROUND: One, two.\n\nMETHODS: {unbalanced and 100% "quoted" naïve',
  journal: "Lancet (London, England)",
  year: 2019,
  volume: "393",
  issue: "10180",
  pages: "1032-48",
  authors: [
    { family: "Müller", given: "Anna" },
    { family: "WHO Collaborating Group" },
    { family: "O'Brien", given: "Seán" },
  ],
  mesh: ["Humans", "Aged, 80 and over", "HIV Infections"],
  sources: ["pubmed", "europepmc"],
  notices: [
    { type: "retraction", notice_pmid: "31000001", date: "2020-06-05" },
    { type: "correction", notice_doi: "10.1016/s0140-6736(19)31000-2" },
  ],
  titleAbstract: { decision: "include", at: "2024-01-01T00:00:00Z" },
  fullText: {
    decision: "exclude",
    reason: 'wrong population, "adults"',
    at: "2024-01-02T00:00:00Z",
  },
};

const DOI_ONLY: ReviewRecord = {
  ...base,
  id: "doi:10.5555/abc.5",
  seq: 2,
  doi: "10.5555/abc.5",
  title: "Outcomes in a cohort",
  journal: "J Test",
  year: 2021,
  pages: "e123",
  authors: [{ family: "Nakamoto" }],
  sources: ["europepmc"],
};

const PREPRINT: ReviewRecord = {
  ...base,
  id: "ppr:PPR123",
  seq: 3,
  pprid: "PPR123",
  doi: "10.1101/2020.01.01.20000001",
  title: "A preprint about masks",
  abstract: "Masks.",
  journal: "medRxiv",
  year: 2020,
  authors: [{ family: "Smith", given: "Jo" }],
  pubTypes: ["Preprint"],
  sources: ["europepmc"],
};

/** Cells a spreadsheet would run as formulas. */
const FORMULA: ReviewRecord = {
  ...base,
  id: "pmid:7",
  seq: 4,
  pmid: "7",
  title: '=HYPERLINK("http://evil.example","click")',
  abstract: "-2+3",
  authors: [{ family: "@home", given: "+x" }],
  titleAbstract: { decision: "exclude", reason: "=1+1", at: "2024-01-01T00:00:00Z" },
};

const RECORDS = [AWKWARD, DOI_ONLY, PREPRINT, FORMULA];

/** header + write(batch)… + footer, as the export streams it. */
function exportText(format: ExportFormat, batches: readonly ReviewRecord[][]): string {
  const writer = exportWriter(format);
  return writer.header() + batches.map((b) => writer.write(b)).join("") + writer.footer();
}

/** The fields a reader keeps, without citation-js's own bookkeeping. */
function fields(item: Parsed, names: readonly string[]): Parsed {
  return Object.fromEntries(names.filter((n) => n in item).map((n) => [n, item[n]]));
}

const oneLine = (s: string): string => s.replace(/\s+/g, " ").trim();

describe("exportWriter('ris')", () => {
  const text = exportText("ris", [[AWKWARD, DOI_ONLY], [], [PREPRINT]]);

  it("writes one tag a line and ends every reference with ER", () => {
    for (const line of text.split("\n")) expect(line).toMatch(/^$|^[A-Z][A-Z0-9] {2}- /);
    expect(text.match(/^ER {2}- $/gm)).toHaveLength(3);
    expect(text.split("\n")[0]).toEqual("TY  - JOUR");
  });

  it("imports into citation-js's RIS reader with every field", () => {
    const names = ["id", "type", "title", "author", "issued", "container-title", "volume"];
    const more = ["issue", "page", "DOI", "PMCID", "abstract", "URL"];
    expect(parse(text).map((item) => fields(item, [...names, ...more]))).toEqual([
      {
        id: "pmid:30955001",
        type: "article-journal",
        title: oneLine(AWKWARD.title),
        author: [
          { family: "Müller", given: "Anna" },
          { literal: "WHO Collaborating Group" },
          { family: "O'Brien", given: "Seán" },
        ],
        issued: { "date-parts": [[2019]] },
        "container-title": "Lancet (London, England)",
        volume: "393",
        issue: "10180",
        page: "1032-1048",
        DOI: "10.1016/s0140-6736(19)30001_1",
        PMCID: "PMC6500001",
        abstract: oneLine(AWKWARD.abstract),
        URL: "https://pubmed.ncbi.nlm.nih.gov/30955001/",
      },
      {
        id: "doi:10.5555/abc.5",
        type: "article-journal",
        title: "Outcomes in a cohort",
        author: [{ family: "Nakamoto" }],
        issued: { "date-parts": [[2021]] },
        "container-title": "J Test",
        page: "e123",
        DOI: "10.5555/abc.5",
        URL: "https://doi.org/10.5555/abc.5",
      },
      {
        id: "ppr:PPR123",
        // UNPB: an unpublished work, which citation-js reads as a manuscript.
        type: "manuscript",
        title: "A preprint about masks",
        author: [{ family: "Smith", given: "Jo" }],
        issued: { "date-parts": [[2020]] },
        DOI: "10.1101/2020.01.01.20000001",
        abstract: "Masks.",
        URL: "https://doi.org/10.1101/2020.01.01.20000001",
      },
    ]);
  });

  it("writes the PMID, each MeSH term, the notices and the decisions", () => {
    const first = text.slice(0, text.indexOf("ER  - "));
    expect(first.split("\n").filter((l) => /^(AN|KW|N1) /.test(l))).toEqual([
      "AN  - 30955001",
      "KW  - Humans",
      "KW  - Aged, 80 and over",
      "KW  - HIV Infections",
      "N1  - Notice: retraction: PMID 31000001 (2020-06-05)",
      "N1  - Notice: correction: DOI 10.1016/s0140-6736(19)31000-2",
      "N1  - Title/abstract screening: include",
      'N1  - Full-text screening: exclude (wrong population, "adults")',
    ]);
    expect(text).toContain("TY  - UNPB\nID  - ppr:PPR123\n");
  });

  it("gives the same file whatever the batches", () => {
    expect(exportText("ris", [[AWKWARD, DOI_ONLY, PREPRINT]])).toEqual(text);
  });
});

describe("exportWriter('bibtex')", () => {
  const text = exportText("bibtex", [[AWKWARD, DOI_ONLY], [PREPRINT]]);

  it("imports into citation-js's BibTeX reader with every field", () => {
    const names = ["id", "type", "title", "author", "issued", "container-title", "publisher"];
    const more = ["volume", "issue", "page", "DOI", "PMID", "PMCID", "abstract", "URL"];
    expect(parse(text).map((item) => fields(item, [...names, ...more]))).toEqual([
      {
        id: "Muller2019Effects",
        type: "article-journal",
        title: oneLine(AWKWARD.title),
        author: [
          { family: "Müller", given: "Anna" },
          { family: "WHO Collaborating Group" },
          { family: "O'Brien", given: "Seán" },
        ],
        issued: { "date-parts": [[2019]] },
        "container-title": "Lancet (London, England)",
        volume: "393",
        issue: "10180",
        page: "1032-1048",
        DOI: "10.1016/s0140-6736(19)30001_1",
        PMID: "30955001",
        PMCID: "PMC6500001",
        abstract: oneLine(AWKWARD.abstract),
      },
      {
        id: "Nakamoto2021Outcomes",
        type: "article-journal",
        title: "Outcomes in a cohort",
        author: [{ family: "Nakamoto" }],
        issued: { "date-parts": [[2021]] },
        "container-title": "J Test",
        page: "e123",
        DOI: "10.5555/abc.5",
        URL: "https://doi.org/10.5555/abc.5",
      },
      {
        id: "Smith2020Preprint",
        // @misc, its server in howpublished.
        type: "document",
        title: "A preprint about masks",
        author: [{ family: "Smith", given: "Jo" }],
        issued: { "date-parts": [[2020]] },
        publisher: "medRxiv",
        DOI: "10.1101/2020.01.01.20000001",
        abstract: "Masks.",
        URL: "https://doi.org/10.1101/2020.01.01.20000001",
      },
    ]);
  });

  it("escapes LaTeX's specials, keeps non-ASCII as UTF-8 and braces acronyms", () => {
    expect(text).toContain(
      '\ttitle = {Effects of "quoted" \\textbraceleft{}braces\\textbraceright{}, 50\\% \\& \\$5 \\#1 a\\_b \\textbackslash{} back on naïve Ω-β {HIV} patients: the \\textasciitilde{}2\\textasciicircum{}x study},\n',
    );
    expect(text).toContain(
      "\tauthor = {Müller, Anna and {WHO Collaborating Group} and O'Brien, Seán},\n",
    );
    expect(text).toContain("\tkeywords = {Humans; Aged, 80 and over; HIV Infections},\n");
    expect(text).toContain(
      '\tannote = {Notice: retraction: PMID 31000001 (2020-06-05); Notice: correction: DOI 10.1016/s0140-6736(19)31000-2; Title/abstract screening: include; Full-text screening: exclude (wrong population, "adults")},\n',
    );
  });

  it("keeps keys unique across batches with a, b, … suffixes", () => {
    const twin = (i: number): ReviewRecord => ({ ...DOI_ONLY, id: `doi:10.5555/t${i}`, seq: i });
    const writer = exportWriter("bibtex");
    const batches = [[twin(1), twin(2)], [twin(3)], [twin(4)]].map((b) => writer.write(b));
    const keys = batches.flatMap((b) => [...b.matchAll(/^@\w+\{([^,]+),/gm)].map((m) => m[1]));
    expect(keys).toEqual([
      "Nakamoto2021Outcomes",
      "Nakamoto2021Outcomesa",
      "Nakamoto2021Outcomesb",
      "Nakamoto2021Outcomesc",
    ]);
    expect(parse(batches.join("")).map((item) => item.id)).toEqual(keys);
  });
});

describe("exportWriter('csl_json')", () => {
  it("writes one JSON array across batches, empty ones included", () => {
    const text = exportText("csl_json", [[], [AWKWARD], [], [DOI_ONLY, PREPRINT], []]);
    expect(JSON.parse(text)).toEqual([AWKWARD, DOI_ONLY, PREPRINT].map(recordToCsl));
    expect(JSON.parse(exportText("csl_json", []))).toEqual([]);
    expect(JSON.parse(exportText("csl_json", [[]]))).toEqual([]);
  });

  it("maps a record to CSL-JSON that citation-js reads back", () => {
    expect(recordToCsl(DOI_ONLY)).toEqual({
      id: "doi:10.5555/abc.5",
      type: "article-journal",
      title: "Outcomes in a cohort",
      "container-title": "J Test",
      author: [{ family: "Nakamoto" }],
      issued: { "date-parts": [[2021]] },
      page: "e123",
      DOI: "10.5555/abc.5",
      URL: "https://doi.org/10.5555/abc.5",
    });
    expect(recordToCsl(PREPRINT).type).toEqual("article");
    expect(recordToCsl(AWKWARD)).toMatchObject({
      PMID: "30955001",
      PMCID: "PMC6500001",
      page: "1032-1048",
      keyword: "Humans; Aged, 80 and over; HIV Infections",
      note: [
        "Notice: retraction: PMID 31000001 (2020-06-05)",
        "Notice: correction: DOI 10.1016/s0140-6736(19)31000-2",
        "Title/abstract screening: include",
        'Full-text screening: exclude (wrong population, "adults")',
      ].join("\n"),
    });
    const [item] = parse(exportText("csl_json", [[AWKWARD]]));
    expect(fields(item ?? {}, ["id", "title", "author", "DOI"])).toEqual({
      id: "pmid:30955001",
      title: oneLine(AWKWARD.title),
      author: recordToCsl(AWKWARD).author,
      DOI: AWKWARD.doi,
    });
  });
});

describe("exportWriter('csv')", () => {
  const text = exportText("csv", [[AWKWARD], [DOI_ONLY, PREPRINT], [FORMULA]]);
  const rows = parseCsv(text);
  const byColumn = rows
    .slice(1)
    .map((r) => Object.fromEntries(CSV_COLUMNS.map((c, i) => [c, r[i]])));

  it("writes one header row and one RFC 4180 row per record", () => {
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows.slice(1).map((r) => r.length)).toEqual([18, 18, 18, 18]);
  });

  it("keeps awkward text exactly: quotes, commas, newlines, non-ASCII", () => {
    expect(byColumn[0]).toEqual({
      id: "pmid:30955001",
      pmid: "30955001",
      doi: "10.1016/s0140-6736(19)30001_1",
      pmcid: "PMC6500001",
      title: AWKWARD.title,
      authors: "Müller, Anna; WHO Collaborating Group; O'Brien, Seán",
      journal: "Lancet (London, England)",
      year: "2019",
      volume: "393",
      issue: "10180",
      pages: "1032-48",
      sources: "pubmed; europepmc",
      title_abstract_decision: "include",
      title_abstract_reason: "",
      full_text_decision: "exclude",
      full_text_reason: 'wrong population, "adults"',
      notices:
        "retraction: PMID 31000001 (2020-06-05); correction: DOI 10.1016/s0140-6736(19)31000-2",
      abstract: AWKWARD.abstract,
    });
    expect(byColumn.map((r) => [r.id, r.pmid, r.doi])).toEqual([
      ["pmid:30955001", "30955001", AWKWARD.doi],
      ["doi:10.5555/abc.5", "", "10.5555/abc.5"],
      ["ppr:PPR123", "", "10.1101/2020.01.01.20000001"],
      ["pmid:7", "7", ""],
    ]);
  });

  it("defuses cells a spreadsheet would run as formulas", () => {
    expect(byColumn[3]).toMatchObject({
      title: `'${FORMULA.title}`,
      abstract: "'-2+3",
      authors: "'@home, +x",
      title_abstract_reason: "'=1+1",
    });
  });
});

describe("exportWriter", () => {
  it("names each format's media type and extension", () => {
    const formats = ["ris", "bibtex", "csl_json", "csv"] as const;
    expect(formats.map((f) => [exportWriter(f).mime, exportWriter(f).extension])).toEqual([
      ["application/x-research-info-systems", "ris"],
      ["application/x-bibtex", "bib"],
      ["application/vnd.citationstyles.csl+json", "json"],
      ["text/csv; charset=utf-8; header=present", "csv"],
    ]);
  });

  it("exports every record of a batch whatever the format", () => {
    expect(parse(exportText("ris", [RECORDS]))).toHaveLength(4);
    expect(parse(exportText("bibtex", [RECORDS]))).toHaveLength(4);
    expect(JSON.parse(exportText("csl_json", [RECORDS]))).toHaveLength(4);
    expect(parseCsv(exportText("csv", [RECORDS]))).toHaveLength(5);
  });
});

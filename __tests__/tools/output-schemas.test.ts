/**
 * Every tool's real replies against the outputSchema it advertises in tools/list: the official SDK
 * client (which validates structuredContent itself once it has listed the tools) and ajv (draft-07,
 * the dialect the schemas name), against the fake NCBI serving the offline demo's synthetic corpus
 * and, where ../shared is present, recorded NCBI records (structured abstracts, collective
 * authors, MathML, comments/corrections, a book). Corpus tools run on the embedded store.
 * The review tools run a review through every source and both stages on the same store.
 * A reply that drifts from its schema — a field missing, mistyped or undeclared — fails here.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { Ajv, type ValidateFunction } from "ajv";
import { synthReference } from "../../src/devtools/reference-styles.js";
import { pmcWithholds } from "../../src/devtools/synth-jats.js";
import { demoCorpus, synthHandler } from "../../src/devtools/synth-ncbi.js";
import { startSynthServer, type SynthServer } from "../../src/devtools/synth-server.js";
import { recordedEfetchRoute, startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { callTool, startHarness, type Harness } from "../helpers/mcp.js";
import { HAS_SHARED, eutilsFixture } from "../helpers/shared.js";

jest.setTimeout(120_000);

const corpus = demoCorpus();
const TERM = "metformin aging";
const SYNTH = corpus.pmidsFor(TERM);
const FIRST = SYNTH[0] ?? "";
/** A MeSH heading the corpus indexes with, and a record with no references (pubmed_related's fallback). */
const HEADING = Array.from({ length: corpus.size }, (_, i) => corpus.recordAt(i)).flatMap(
  (r) => r.mesh,
)[0]?.name;
const NO_REFS = SYNTH.find((p) => corpus.referencesOf(p).length === 0) ?? FIRST;
/** A retracted record (RetractionIn): rag_get gives its notices. */
const RETRACTED = SYNTH.find((p) => corpus.record(p)?.retraction) ?? FIRST;
/** For pubmed_fulltext: a PMC article, one PMC withholds (Europe PMC has it), one outside PMC. */
const ALL = Array.from({ length: corpus.size }, (_, i) => corpus.recordAt(i));
const IN_PMC = ALL.find((r) => r.pmcid !== null && !pmcWithholds(r) && r.references.length > 0);
const WITHHELD = ALL.find(pmcWithholds);
const OUTSIDE_PMC = ALL.find((r) => r.pmcid === null && r.doi && Number(r.pmid) % 3 === 0);
const sources = (r: Reply) => (r.results as { source?: string }[]).map((x) => x.source ?? "-");

/** Recorded EFetch records with the rarer shapes; served for requests naming only their PMIDs. */
const RECORDED_FILES = [
  "biopython/Entrez/pubmed4.xml",
  "biopython/Entrez/pubmed7.xml",
  "Eutils-JSON/samples/efetch.pubmedbook.xml",
  "metapub/pmid_xml/25364329.xml",
  "metapub/pmid_xml/38700094.xml",
];
const recorded = new Map<string, string>();
if (HAS_SHARED) {
  for (const file of RECORDED_FILES) {
    const xml = eutilsFixture(file);
    for (const [record] of xml.matchAll(
      /<(PubmedArticle|PubmedBookArticle)\b[^>]*>[\s\S]*?<\/\1>/g,
    )) {
      const pmid = /<PMID[^>]*>(\d+)<\/PMID>/.exec(record)?.[1];
      if (pmid) recorded.set(pmid, record);
    }
  }
} else {
  process.stderr.write("note: output-schemas: ../shared is absent; recorded records skipped\n");
}
/**
 * pubmed4.xml's record (27797938) with integrity-notice links inserted by this test (no recorded
 * record has one), so a reply carries `notices`.
 */
const NOTICED = "27797938";
const noticed = recorded.get(NOTICED);
if (noticed) {
  recorded.set(
    NOTICED,
    noticed.replace(
      "<CommentsCorrectionsList>",
      '<CommentsCorrectionsList><CommentsCorrections RefType="RetractionIn"><RefSource>Gut. ' +
        "2019 Mar 5;68(3):560. doi: 10.1136/gutjnl-2019-notice.</RefSource><PMID>31000001</PMID>" +
        '</CommentsCorrections><CommentsCorrections RefType="ErratumIn"><RefSource>Gut. 2018 ' +
        "Jan;67(1):200</RefSource><PMID>31000002</PMID></CommentsCorrections>",
    ),
  );
}
const RECORDED = [...recorded.keys()];
const isRecorded = (ids: string[]) => ids.length > 0 && ids.every((id) => recorded.has(id));

/** Adds `additionalProperties: false` to every object schema: a reply may not carry undeclared fields. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== "object") return schema;
  const out = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, closed(v)]));
  return "properties" in out ? { additionalProperties: false, ...out } : out;
}

type Args = Record<string, unknown>;
type Reply = Record<string, unknown[] | unknown>;
/** What makes a case worth its place (it reached the shape it is there for). */
type Probe = (reply: Reply) => unknown;
const len = (key: string) => (r: Reply) => (r[key] as unknown[]).length;
const recordTypes = (r: Reply) =>
  [...new Set((r.articles as { recordType?: string }[]).map((a) => a.recordType))].sort();

/**
 * The review the review cases share (review_create's own case makes another): made on first use.
 * Its records are TERM's, so RETRACTED is among them; included first, its notices reach
 * review_status.
 */
let sharedReview: Promise<string> | undefined;
const review = () =>
  (sharedReview ??= callTool(h.client, "review_create", {
    name: "Schemas: metformin and ageing",
    question: "In older adults, does metformin slow biological ageing?",
  }).then((out) => (out.json as { review_id: string }).review_id));
const INCLUDED = [...new Set([RETRACTED, ...SYNTH.slice(0, 3)])]
  .slice(0, 3)
  .map((p) => `pmid:${p}`);
const EXCLUDED = SYNTH.filter((p) => !INCLUDED.includes(`pmid:${p}`))
  .slice(0, 3)
  .map((p) => `pmid:${p}`);
const inReview = (args: Args) => async () => ({ review_id: await review(), ...args });

/** Calls in order (the corpus ones need the sync first), each with a probe and what it must give. */
const CASES: [
  tool: string,
  args: Args | (() => Args | Promise<Args>),
  probe?: Probe,
  expected?: unknown,
][] = [
  [
    "pubmed_search",
    { query: TERM, maxResults: 5, fetchBriefSummaries: 3 },
    len("briefSummaries"),
    3,
  ],
  ["pubmed_search", { query: "nothing matches this zzzz" }],
  ["pubmed_fetch", { pmids: SYNTH.slice(0, 3), includeGrantInfo: true }, len("articles"), 3],
  ["pubmed_fetch", { pmids: [FIRST], detailLevel: "citation_data" }],
  ["pubmed_fetch", { pmids: [FIRST], detailLevel: "medline_text" }],
  ["pubmed_fetch", { pmids: [FIRST], detailLevel: "full_xml" }],
  ["pubmed_related", { pmid: FIRST, relationship: "similar", maxResults: 5 }, len("related"), 5],
  ["pubmed_related", { pmid: FIRST, relationship: "cited_by" }],
  ["pubmed_related", { pmid: FIRST, relationship: "references" }],
  ["pubmed_cite", { pmids: [FIRST, "99999999"], styles: ["ris", "bibtex", "apa", "csl_json"] }],
  ["pubmed_spell", { query: "metformn agng" }],
  [
    "pubmed_match_citations",
    () => {
      const c = corpus.record(FIRST)?.citation;
      return {
        citations: [
          {
            journal: c?.journal.iso,
            year: String(c?.pubDate.year),
            volume: c?.volume,
            firstPage: c?.startPage,
            authorName: `${c?.firstAuthor.lastName} ${c?.firstAuthor.initials}`,
            key: "real",
          },
          { journal: "j nowhere", year: "1900", volume: "1", firstPage: "1", key: "none" },
        ],
      };
    },
  ],
  ["pubmed_trend", { query: TERM, startYear: 2019, endYear: 2022 }],
  [
    "pubmed_verify_references",
    () => ({
      references: [
        synthReference(ALL[0]!),
        synthReference(ALL[1]!, "apa", { doi: true }),
        synthReference(ALL[2]!).replace(/\. (\d{4});/, (_m, y: string) => `. ${Number(y) - 3};`),
        "Quimby RT. Lunar tidal cycles and hepatic glycogen in marmots. J Imaginary Res. 2011;3:1-9.",
        "",
      ],
    }),
    (r) => (r.results as { status: string }[]).map((x) => x.status),
    ["verified", "verified", "mismatch", "not_found", "not_found"],
  ],
  ["pubmed_mesh", { term: HEADING }, (r) => (r.records as { name: string }[])[0]?.name, HEADING],
  ["pubmed_mesh", { term: "zzzz nothing" }, len("records"), 0],
  ["europepmc_search", { query: "long covid", resultType: "core", pageSize: 5 }, len("results"), 5],
  ["pubmed_annotations", { pmids: [FIRST, "1"], fullText: true }, len("articles"), 1],
  ["pubmed_related", { pmid: NO_REFS, relationship: "references" }, (r) => r.source, "europepmc"],
  [
    "pubmed_fulltext",
    {
      pmids: [IN_PMC?.pmid, WITHHELD?.pmid, OUTSIDE_PMC?.pmid, "1"],
      maxCharacters: 1500,
      includeReferences: true,
      includeTables: true,
    },
    sources,
    ["pmc", "europepmc", "unpaywall", "-"],
  ],
  ["pubmed_fulltext", { pmcids: [IN_PMC?.pmcid], mode: "outline", sections: ["methods", "x"] }],
  ["pubmed_convert_ids", { ids: [IN_PMC?.pmid, IN_PMC?.pmcid, "1"] }, len("records"), 3],
  ["rag_search", { query: TERM }, (r) => r.note !== undefined, true],
  ["pubmed_sync_delta", { query_key: "schemas", term: TERM }, (r) => r.inserted, SYNTH.length],
  ["rag_search", { query: corpus.record(FIRST)?.title ?? TERM, top_k: 3 }, len("results"), 3],
  ["rag_search", { query: "metformin", top_k: 2, quality_bias: false }],
  ["rag_get", { doc_id: `pmid:${FIRST}` }],
  [
    "rag_get",
    { doc_id: `pmid:${RETRACTED}` },
    (r) => (r.notices as { type: string }[] | undefined)?.map((n) => n.type),
    ["retraction"],
  ],
  ["corpus_checkpoint_get", { query_key: "schemas" }],
  ["corpus_checkpoint_get", { query_key: "never-synced" }],
  ["corpus_checkpoint_set", { query_key: "schemas", last_edat: "2024-01-01T00:00:00Z" }],
  // A review through every source and both stages (after the sync: source "corpus" reads it).
  [
    "review_create",
    { name: "Schemas review", question: "Does metformin slow ageing?", criteria: "RCTs" },
    (r) => r.name,
    "Schemas review",
  ],
  [
    "review_add",
    inReview({ source: "pubmed", term: TERM, max_records: 50 }),
    (r) => [r.added, r.remaining],
    [50, SYNTH.length - 50],
  ],
  [
    "review_add",
    inReview({ source: "corpus", query_key: "schemas" }),
    (r) => [r.added, r.duplicates],
    [SYNTH.length - 50, 50],
  ],
  [
    "review_add",
    inReview({ source: "ids", ids: [IN_PMC?.pmcid, "PMC999999999"] }),
    (r) => r.unmatched,
    ["PMC999999999"],
  ],
  [
    "review_add",
    inReview({ source: "europepmc", query: "long covid", max_records: 20 }),
    (r) => (r.by_source as Record<string, number>).europepmc,
    20,
  ],
  [
    "review_screen",
    inReview({ limit: 5 }),
    (r) => [len("records")(r), r.ranking],
    [5, "relevance"],
  ],
  [
    "review_decide",
    inReview({
      decisions: [
        ...INCLUDED.map((id) => ({ id, decision: "include" })),
        ...EXCLUDED.map((id) => ({ id, decision: "exclude", reason: "not older adults" })),
      ],
    }),
    (r) => r.recorded,
    6,
  ],
  ["review_screen", inReview({ limit: 5 }), (r) => r.ranking, "model"],
  [
    "review_screen",
    inReview({ stage: "full_text" }),
    (r) =>
      (r.records as { id: string; full_text_available?: unknown }[])
        .map((x) => [x.id, typeof x.full_text_available])
        .sort(),
    INCLUDED.map((id) => [id, "boolean"]).sort(),
  ],
  [
    "review_add",
    inReview({ source: "citations", direction: "forward" }),
    (r) => [
      (r.identified as number) > 0,
      r.identified === (r.added as number) + (r.duplicates as number),
    ],
    [true, true],
  ],
  [
    "review_decide",
    inReview({
      stage: "full_text",
      decisions: [
        { id: INCLUDED[0], decision: "include" },
        { id: INCLUDED[1], decision: "exclude", reason: "wrong population" },
        { id: INCLUDED[2], decision: "maybe" },
      ],
    }),
    (r) => (r.progress as { stage: string; screened: number }).screened,
    3,
  ],
  [
    "review_status",
    inReview({}),
    (r) => [
      (r.prisma as { excluded_full_text: unknown }).excluded_full_text,
      (r.notices as { id: string }[] | undefined)?.map((n) => n.id),
    ],
    [{ "wrong population": 1 }, [INCLUDED[0]]],
  ],
  ["review_status", {}, len("reviews"), 2],
  ["review_export", inReview({ format: "ris" }), (r) => [r.records, typeof r.text], [1, "string"]],
  [
    "review_export",
    inReview({ format: "bibtex", which: "all" }),
    (r) => [typeof r.uri, r.text],
    ["string", undefined],
  ],
  ["pubmed_export", { pmids: SYNTH.slice(0, 3), format: "csl_json" }, (r) => r.records, 3],
  [
    "pubmed_export",
    { term: TERM, format: "csv", max_records: 10 },
    (r) => [r.records, r.remaining],
    [10, SYNTH.length - 10],
  ],
  [
    "pubmed_export",
    { term: "long covid", format: "ris" },
    (r) => String(r.uri),
    expect.stringMatching(/^resource:\/\/pubmed\/export\/ex-[a-z0-9]{12}$/),
  ],
  ...(HAS_SHARED
    ? ([
        [
          "pubmed_fetch",
          { pmids: [...RECORDED, "99999999"], includeGrantInfo: true },
          recordTypes,
          ["PubmedArticle", "PubmedBookArticle"],
        ],
        [
          "pubmed_fetch",
          { pmids: [NOTICED], detailLevel: "citation_data" },
          (r) => (r.articles as { notices?: unknown[] }[])[0]?.notices?.length,
          2,
        ],
        [
          "pubmed_fetch",
          { pmids: RECORDED, detailLevel: "citation_data" },
          len("articles"),
          RECORDED.length,
        ],
        [
          "pubmed_cite",
          { pmids: RECORDED, styles: ["mla", "vancouver", "csl_json"] },
          len("citations"),
          RECORDED.length,
        ],
      ] as (typeof CASES)[number][])
    : []),
];

let fake: FakeEutils;
/** The demo's synthetic server, for the literature services (Europe PMC, PubTator, …). */
let literature: SynthServer;
let h: Harness;
const strict = new Map<string, ValidateFunction>();
const open = new Map<string, ValidateFunction>();
const called = new Set<string>();

beforeAll(async () => {
  const synth = synthHandler(corpus);
  fake = await startFakeEutils({
    routes: [
      recordedEfetchRoute(recorded, (ids) => isRecorded(ids.filter((id) => id !== "99999999"))),
      (req) => synth(req),
    ],
  });
  literature = await startSynthServer(corpus);
  h = await startHarness({
    fake,
    env: {
      EMBEDDINGS_PROVIDER: "hash",
      ...literature.env,
      UNPAYWALL_EMAIL: "demo@example.org",
    },
  });
  // Listing first makes the SDK client cache each tool's output validator, as a real client does.
  const { tools } = await h.client.listTools();
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  for (const tool of tools) {
    open.set(tool.name, ajv.compile(tool.outputSchema ?? {}));
    strict.set(tool.name, ajv.compile(closed(tool.outputSchema ?? {}) as object));
  }
});
afterAll(async () => {
  await h.close();
  await fake.close();
  await literature.close();
});

describe("structuredContent matches the advertised outputSchema", () => {
  it.each(
    CASES.map(([tool, args, probe, expected], i) => [i, tool, args, probe, expected] as const),
  )("case %i: %s", async (_i, tool, args, probe, expected) => {
    const out = await callTool(h.client, tool, typeof args === "function" ? await args() : args);
    expect({ tool, isError: out.isError, reply: out.isError ? out.json : "ok" }).toEqual({
      tool,
      isError: false,
      reply: "ok",
    });
    const data = out.structuredContent;
    const check = (v: ValidateFunction | undefined) => (v?.(data) ? [] : (v?.errors ?? ["none"]));
    expect({ tool, advertised: check(open.get(tool)), closed: check(strict.get(tool)) }).toEqual({
      tool,
      advertised: [],
      closed: [],
    });
    expect(out.json).toEqual(data);
    if (probe) expect(probe(data as Reply)).toEqual(expected);
    called.add(tool);
  });

  it("called every listed tool successfully", async () => {
    const { tools } = await h.client.listTools();
    expect([...called].sort()).toEqual(tools.map((t) => t.name).sort());
  });

  it("has validators that reject a drifted reply", async () => {
    const out = await callTool(h.client, "pubmed_fetch", { pmids: [FIRST] });
    const reply = out.structuredContent as { articles: Record<string, unknown>[] };
    const article = reply.articles[0] ?? {};
    const { title: _dropped, ...missing } = article;
    const drifts = [
      { ...reply, articles: [missing] },
      { ...reply, articles: [{ ...article, isRetracted: "no" }] },
      { ...reply, articles: [{ ...article, pubYear: 2020 }] },
    ];
    const verdicts = drifts.map((d) => [
      open.get("pubmed_fetch")?.(d),
      strict.get("pubmed_fetch")?.(d),
    ]);
    expect(verdicts).toEqual([
      [false, false],
      [false, false],
      [true, false], // an added field is fine for clients (open schema), never undeclared here
    ]);
  });
});

describe("error results with an outputSchema", () => {
  it("reach the SDK client as isError with the envelope in text, no validation exception", async () => {
    const res = await h.client.callTool({ name: "pubmed_fetch", arguments: { pmids: ["x1"] } });
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toBeUndefined();
    const text = (res.content as { type: string; text: string }[])[0]?.text ?? "";
    expect(JSON.parse(text)).toEqual({
      error: {
        code: "VALIDATION",
        message: expect.stringContaining("pmids[0] must be digits"),
        details: expect.anything(),
      },
    });
  });
});

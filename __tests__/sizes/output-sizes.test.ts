/**
 * What an agent pays for each answer: every registered tool is called through the official SDK
 * client on recorded NCBI records (../shared, when present) and on the offline demo's synthetic
 * corpus, and the UTF-8 bytes of its text content are held under the ceilings committed in
 * ceilings.json (per tool, per scenario), as is the length of tools/list. Growth past a ceiling is
 * a deliberate change: re-measure with `SIZES_UPDATE=1 npm test -- __tests__/sizes` (writes
 * measured × 1.1, rounded up to 100) and commit the new file with the reason.
 * A tool with no ceiling entry fails here, and so does a reply whose structuredContent holds
 * anything its text does not (clients show many models the text only). tools/list is also held
 * under a ceiling per toolset, served alone (MCP_TOOLSETS), in UTF-8 bytes.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { synthReference } from "../../src/devtools/reference-styles.js";
import { pmcWithholds } from "../../src/devtools/synth-jats.js";
import { demoCorpus, synthHandler } from "../../src/devtools/synth-ncbi.js";
import { startSynthServer, type SynthServer } from "../../src/devtools/synth-server.js";
import { recordedEfetchRoute, startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { pmcEfetchRoute } from "../helpers/fake-literature.js";
import { TOOLS } from "../../src/tools/index.js";
import { TOOLSETS } from "../../src/toolsets.js";
import { INLINE_EXPORT_BYTES } from "../../src/review/links.js";
import { callTool, startHarness, type Harness, type ToolOutcome } from "../helpers/mcp.js";
import { HAS_SHARED, eutilsFixture } from "../helpers/shared.js";

jest.setTimeout(180_000);

const CEILINGS_FILE = join(dirname(fileURLToPath(import.meta.url)), "ceilings.json");
interface Ceilings {
  toolsList: number;
  /** Bytes of tools/list from a server offering that toolset alone. */
  toolsListByToolset: Record<string, number>;
  tools: Record<string, Record<string, number>>;
}
const ceilings = JSON.parse(readFileSync(CEILINGS_FILE, "utf8")) as Ceilings;
const UPDATE = process.env.SIZES_UPDATE === "1";
const HEADROOM = 1.1;
/** A folder to write each answer's text to, for reading what the bytes are spent on. */
const DUMP = process.env.SIZES_DUMP;

const corpus = demoCorpus();
const TERM = "metformin aging";
const SYNTH = corpus.pmidsFor(TERM);
const FIRST = SYNTH[0] ?? "";

/** Five recorded records: structured and unstructured abstracts, grants, keywords, many authors. */
const RECORDED_PMIDS = ["25364329", "31588070", "32525788", "36598232", "38591913"];
const recorded = new Map<string, string>();
if (HAS_SHARED) {
  for (const pmid of RECORDED_PMIDS) {
    const xml = eutilsFixture(`metapub/pmid_xml/${pmid}.xml`);
    recorded.set(pmid, /<PubmedArticle\b[\s\S]*<\/PubmedArticle>/.exec(xml)?.[0] ?? "");
  }
} else {
  process.stderr.write("note: output-sizes: ../shared is absent; recorded scenarios skipped\n");
}

/** A synthetic PMC article and one outside PMC (for pubmed_fulltext and pubmed_convert_ids). */
const ALL = Array.from({ length: corpus.size }, (_, i) => corpus.recordAt(i));
const IN_PMC = ALL.find((r) => r.pmcid !== null && !pmcWithholds(r) && r.references.length > 0);
const OUTSIDE_PMC = ALL.find((r) => r.pmcid === null && r.doi !== null);
/** A MeSH heading the corpus indexes with; a record with no references (pubmed_related's fallback). */
const HEADING = ALL.flatMap((r) => r.mesh)[0]?.name;
const NO_REFS = SYNTH.find((p) => corpus.referencesOf(p).length === 0) ?? FIRST;

type Args = Record<string, unknown>;
interface Scenario {
  tool: string;
  name: string;
  /** A function builds its arguments when the scenario runs (after the ones before it). */
  args: Args | (() => Args | Promise<Args>);
  /** Needs the recorded records in ../shared. */
  shared?: boolean;
  /** Checks the reply is the shape the scenario is there for (and keeps what later ones need). */
  then?: (out: ToolOutcome) => void;
}

/** The review the review scenarios build, in call order (review_create keeps its id). */
let reviewId = "";
const REVIEW_QUESTION = {
  name: "Metformin and ageing",
  question: "In older adults, does metformin slow biological ageing or extend healthspan?",
  criteria: "Randomised trials or cohorts; adults over 60; metformin vs none; ageing outcomes",
};
const recordIds = SYNTH.map((p) => `pmid:${p}`);

/**
 * The largest review export answered inline: a second review holding as many of TERM's records as
 * fit in review_export's 64 KiB as RIS. An undecided record's RIS is pubmed_export's (the same
 * writer), so the count is found on pubmed_export's bytes, without touching the review.
 */
async function reviewAtInlineLimit(): Promise<Args> {
  const risBytes = async (n: number) =>
    (
      (await callTool(h.client, "pubmed_export", { pmids: SYNTH.slice(0, n), format: "ris" }))
        .json as { bytes: number }
    ).bytes;
  let [fits, over] = [1, SYNTH.length];
  expect(await risBytes(SYNTH.length)).toBeGreaterThan(INLINE_EXPORT_BYTES);
  while (over - fits > 1) {
    const mid = Math.floor((fits + over) / 2);
    if ((await risBytes(mid)) <= INLINE_EXPORT_BYTES) fits = mid;
    else over = mid;
  }
  const created = await callTool(h.client, "review_create", {
    ...REVIEW_QUESTION,
    name: "Metformin and ageing, at the inline limit",
  });
  const id = (created.json as { review_id: string }).review_id;
  const added = await callTool(h.client, "review_add", {
    review_id: id,
    source: "ids",
    ids: SYNTH.slice(0, fits),
  });
  expect(added.json).toMatchObject({ added: fits });
  return { review_id: id, format: "ris", which: "all" };
}

/** In call order: the corpus tools need the sync first. */
const SCENARIOS: Scenario[] = [
  { tool: "pubmed_search", name: "20 PMIDs", args: { query: TERM } },
  {
    tool: "pubmed_search",
    name: "10 PMIDs, 10 brief summaries",
    args: { query: TERM, maxResults: 10, fetchBriefSummaries: 10 },
  },
  {
    tool: "pubmed_fetch",
    name: "5 recorded PMIDs, abstract_plus",
    args: { pmids: RECORDED_PMIDS },
    shared: true,
  },
  {
    tool: "pubmed_fetch",
    name: "5 recorded PMIDs, citation_data",
    args: { pmids: RECORDED_PMIDS, detailLevel: "citation_data" },
    shared: true,
  },
  {
    tool: "pubmed_fetch",
    name: "5 synthetic PMIDs, abstract_plus",
    args: { pmids: SYNTH.slice(0, 5) },
  },
  { tool: "pubmed_related", name: "10 similar", args: { pmid: FIRST } },
  {
    tool: "pubmed_cite",
    name: "5 recorded PMIDs, ris",
    args: { pmids: RECORDED_PMIDS },
    shared: true,
  },
  {
    tool: "pubmed_cite",
    name: "3 synthetic PMIDs, 3 styles",
    args: { pmids: SYNTH.slice(0, 3), styles: ["ris", "bibtex", "apa"] },
  },
  { tool: "pubmed_spell", name: "one correction", args: { query: "metformn agng" } },
  {
    tool: "pubmed_match_citations",
    name: "one match, one miss",
    args: () => {
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
  },
  { tool: "pubmed_trend", name: "10 years", args: { query: TERM, startYear: 2016, endYear: 2025 } },
  {
    tool: "pubmed_fulltext",
    name: "recorded PMC3040717, default budget",
    args: { pmcids: ["PMC3040717"] },
    shared: true,
  },
  {
    tool: "pubmed_fulltext",
    name: "synthetic article, default budget",
    args: { pmids: [IN_PMC?.pmid] },
  },
  {
    tool: "pubmed_fulltext",
    name: "synthetic article, outline",
    args: { pmids: [IN_PMC?.pmid], mode: "outline" },
  },
  {
    tool: "pubmed_convert_ids",
    name: "3 synthetic ids",
    args: { ids: [IN_PMC?.pmid, IN_PMC?.pmcid, OUTSIDE_PMC?.pmid] },
  },
  { tool: "pubmed_mesh", name: "one heading", args: { term: HEADING } },
  { tool: "europepmc_search", name: "10 lite hits", args: { query: "long covid" } },
  {
    tool: "europepmc_search",
    name: "10 core hits",
    args: { query: "long covid", resultType: "core" },
  },
  { tool: "pubmed_annotations", name: "5 synthetic PMIDs", args: { pmids: SYNTH.slice(0, 5) } },
  {
    tool: "pubmed_related",
    name: "references via Europe PMC",
    args: { pmid: NO_REFS, relationship: "references" },
  },
  {
    tool: "pubmed_verify_references",
    name: "10 references: 8 real, a wrong year, an invented one",
    args: () => ({
      references: [
        ...ALL.slice(0, 8).map((r) => synthReference(r)),
        synthReference(ALL[8]!).replace(/\. (\d{4});/, (_m, y: string) => `. ${Number(y) - 3};`),
        "Quimby RT, Zzyzx Q. Lunar tidal cycles modulate hepatic glycogen in marmots. J Imaginary Res. 2011;3(4):1-9.",
      ],
    }),
  },
  { tool: "pubmed_sync_delta", name: "60 records", args: { query_key: "sizes", term: TERM } },
  { tool: "rag_search", name: "default", args: { query: "metformin effect on aging" } },
  { tool: "rag_search", name: "top_k 3", args: { query: "metformin effect on aging", top_k: 3 } },
  { tool: "rag_get", name: "one paper", args: { doc_id: `pmid:${FIRST}` } },
  { tool: "corpus_checkpoint_get", name: "synced", args: { query_key: "sizes" } },
  {
    tool: "corpus_checkpoint_set",
    name: "set",
    args: { query_key: "sizes-set", last_edat: "2024-01-01T00:00:00Z" },
  },
  // A review of TERM's records from start to export (docs/reviews.md, "A worked example").
  {
    tool: "review_create",
    name: "question and criteria",
    args: REVIEW_QUESTION,
    then: (out) => {
      reviewId = (out.json as { review_id: string }).review_id;
      expect(reviewId).toMatch(/\S/);
    },
  },
  {
    tool: "review_add",
    name: "pubmed, 60 records",
    args: () => ({ review_id: reviewId, source: "pubmed", term: TERM }),
    then: (out) => expect(out.json).toMatchObject({ added: SYNTH.length }),
  },
  {
    tool: "review_screen",
    name: "title_abstract, limit 50",
    args: () => ({ review_id: reviewId, limit: 50 }),
    then: (out) => expect((out.json as { records: unknown[] }).records).toHaveLength(50),
  },
  {
    tool: "review_decide",
    name: "50 title/abstract decisions",
    // The first 40 included, 10 excluded with a reason: then 40 reports go on to full text.
    args: () => ({
      review_id: reviewId,
      decisions: recordIds
        .slice(0, 50)
        .map((id, i) =>
          i < 40
            ? { id, decision: "include" }
            : { id, decision: "exclude", reason: "not older adults" },
        ),
    }),
    then: (out) => expect(out.json).toMatchObject({ recorded: 50 }),
  },
  {
    tool: "review_screen",
    name: "full_text, limit 50 (40 reports)",
    args: () => ({ review_id: reviewId, stage: "full_text", limit: 50 }),
    then: (out) => {
      const records = (out.json as { records: { full_text_available?: boolean }[] }).records;
      expect(records).toHaveLength(40);
      expect(records.every((r) => typeof r.full_text_available === "boolean")).toBe(true);
    },
  },
  {
    tool: "review_decide",
    name: "20 full-text decisions, four reasons",
    args: () => ({
      review_id: reviewId,
      stage: "full_text",
      decisions: recordIds.slice(0, 20).map((id, i) =>
        i < 8
          ? { id, decision: "include" }
          : {
              id,
              decision: "exclude",
              reason: ["wrong population", "wrong outcome", "not randomised", "duplicate report"][
                i % 4
              ],
            },
      ),
    }),
    then: (out) => expect(out.json).toMatchObject({ recorded: 20 }),
  },
  {
    tool: "review_status",
    name: "PRISMA counts, progress, notices (diagram not text)",
    args: () => ({ review_id: reviewId }),
    then: (out) => {
      const prisma = (out.json as { prisma: { excluded_full_text: object } }).prisma;
      expect(Object.keys(prisma.excluded_full_text)).toHaveLength(4);
      // The flow diagram is a second block, an image: not text, so not counted here.
      expect(out.content.map((c) => c.type)).toEqual(["text", "image"]);
    },
  },
  {
    tool: "review_status",
    name: "every review",
    args: {},
    then: (out) => expect((out.json as { reviews: unknown[] }).reviews).toHaveLength(1),
  },
  {
    tool: "review_export",
    name: "ris, included (8 records)",
    args: () => ({ review_id: reviewId, format: "ris" }),
    then: (out) => expect(out.json).toMatchObject({ records: 8, text: expect.any(String) }),
  },
  {
    tool: "review_export",
    name: "ris, all, the most records inline (64 KiB)",
    args: reviewAtInlineLimit,
    then: (out) => {
      const { bytes, text } = out.json as { bytes: number; text?: string };
      expect(text).toBeDefined();
      expect(bytes).toBeGreaterThan(INLINE_EXPORT_BYTES * 0.95);
      expect(bytes).toBeLessThanOrEqual(INLINE_EXPORT_BYTES);
    },
  },
  {
    tool: "review_export",
    name: "bibtex, all, as a resource_link",
    args: () => ({ review_id: reviewId, format: "bibtex", which: "all" }),
    then: (out) => {
      expect(out.json).toMatchObject({ records: SYNTH.length, uri: expect.any(String) });
      expect(out.content.map((c) => c.type)).toEqual(["text", "resource_link"]);
    },
  },
  {
    tool: "pubmed_export",
    name: "search, csl_json, 40 records inline",
    args: { term: "crispr therapy", format: "csl_json" },
    then: (out) => expect(out.json).toMatchObject({ records: 40, text: expect.any(String) }),
  },
  {
    tool: "pubmed_export",
    name: "search, ris, as a resource_link",
    args: { term: TERM, format: "ris" },
    then: (out) =>
      expect(out.json).toMatchObject({ records: SYNTH.length, uri: expect.any(String) }),
  },
];

let fake: FakeEutils;
/** The demo's synthetic server, for the literature services (ID converter, Europe PMC, …). */
let literature: SynthServer;
let h: Harness;
const measured: Record<string, Record<string, number>> = {};
const measuredChars: Record<string, Record<string, number>> = {};
let toolsListChars = 0;
const toolsListBytes: Record<string, number> = {};

beforeAll(async () => {
  const synth = synthHandler(corpus);
  fake = await startFakeEutils({
    routes: [
      recordedEfetchRoute(recorded),
      ...(HAS_SHARED ? [pmcEfetchRoute()] : []),
      (req) => synth(req),
    ],
  });
  literature = await startSynthServer(corpus);
  h = await startHarness({
    fake,
    env: { EMBEDDINGS_PROVIDER: "hash", ...literature.env, UNPAYWALL_EMAIL: "demo@example.org" },
  });
});

afterAll(async () => {
  await h.close();
  await fake.close();
  await literature.close();
  if (UPDATE) {
    const up = (n: number) => Math.ceil((n * HEADROOM) / 100) * 100;
    const tools = Object.fromEntries(
      Object.entries(measured)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([tool, byName]) => [
          tool,
          Object.fromEntries(Object.entries(byName).map(([name, n]) => [name, up(n)])),
        ]),
    );
    // A toolset not measured this run (a -t filter) keeps its ceiling.
    const byToolset = Object.fromEntries(
      TOOLSETS.map((t) => {
        const n = toolsListBytes[t];
        return [t, n === undefined ? (ceilings.toolsListByToolset[t] ?? 0) : up(n)];
      }),
    );
    const next: Ceilings = {
      toolsList: up(toolsListChars),
      toolsListByToolset: byToolset,
      tools,
    };
    writeFileSync(CEILINGS_FILE, `${JSON.stringify(next, null, 2)}\n`);
  }
  process.stderr.write(
    `output sizes (text bytes): tools/list ${toolsListChars} chars\n` +
      Object.entries(toolsListBytes)
        .map(([toolset, n]) => `  tools/list, ${toolset} alone: ${n} bytes\n`)
        .join("") +
      Object.entries(measured)
        .flatMap(([tool, byName]) =>
          Object.entries(byName).map(
            ([name, n]) => `  ${tool} [${name}]: ${n} bytes, ${measuredChars[tool]?.[name]} chars`,
          ),
        )
        .join("\n") +
      "\n",
  );
});

describe("answer sizes", () => {
  it("has a ceiling for every registered tool and a scenario for every ceiling", async () => {
    const { tools } = await h.client.listTools();
    const names = tools.map((t) => t.name).sort();
    if (!UPDATE) expect(Object.keys(ceilings.tools).sort()).toEqual(names);
    if (!UPDATE) expect(Object.keys(ceilings.toolsListByToolset)).toEqual([...TOOLSETS]);
    expect([...new Set(SCENARIOS.map((s) => s.tool))].sort()).toEqual(names);
    for (const [tool, byName] of Object.entries(ceilings.tools)) {
      expect({ tool, scenarios: Object.keys(byName).sort() }).toEqual({
        tool,
        scenarios: SCENARIOS.filter((s) => s.tool === tool)
          .map((s) => s.name)
          .sort(),
      });
    }
  });

  it("keeps tools/list under its ceiling", async () => {
    const list = JSON.stringify(await h.client.listTools());
    toolsListChars = list.length;
    if (DUMP) writeFileSync(join(DUMP, "tools-list.json"), list);
    if (!UPDATE) expect(toolsListChars).toBeLessThanOrEqual(ceilings.toolsList);
  });

  it.each(SCENARIOS.map((s) => [s.tool, s.name, s] as const))(
    "%s [%s] stays under its ceiling, all of it in the text",
    async (tool, name, s) => {
      if (s.shared && !HAS_SHARED) return;
      const out = await callTool(
        h.client,
        tool,
        typeof s.args === "function" ? await s.args() : s.args,
      );
      expect({ tool, isError: out.isError, json: out.isError ? out.json : "ok" }).toEqual({
        tool,
        isError: false,
        json: "ok",
      });
      s.then?.(out);
      const text = out.content
        .filter((c) => c.type === "text")
        .map((c) => c.text ?? "")
        .join("");
      // The text is the structured result itself, so no field is shown to the client only.
      expect(out.json).toEqual(out.structuredContent);
      const bytes = Buffer.byteLength(text, "utf8");
      (measured[tool] ??= {})[name] = bytes;
      (measuredChars[tool] ??= {})[name] = text.length;
      if (DUMP) writeFileSync(join(DUMP, `${tool} ${name}.json`.replace(/[^\w.-]+/g, "_")), text);
      if (!UPDATE) {
        expect({ tool, name, bytes, over: bytes > (ceilings.tools[tool]?.[name] ?? 0) }).toEqual({
          tool,
          name,
          bytes,
          over: false,
        });
      }
    },
  );
});

/**
 * What an operator who narrows the server (MCP_TOOLSETS) pays up front: tools/list from a server
 * offering each toolset alone, its names taken from each tool's own `toolset`, so a new tool
 * counts against its toolset's ceiling. Last in the file: each server installs its own state
 * through the test hook, which closes the one the answers above were measured on.
 */
describe("tools/list per toolset", () => {
  it.each(TOOLSETS.map((t) => [t] as const))(
    "%s alone stays under its ceiling",
    async (toolset) => {
      const alone = await startHarness({ fake, env: { MCP_TOOLSETS: toolset } });
      try {
        const list = await alone.client.listTools();
        expect(list.tools.map((t) => t.name).sort()).toEqual(
          TOOLS.filter((t) => t.toolset === toolset)
            .map((t) => t.name)
            .sort(),
        );
        const bytes = Buffer.byteLength(JSON.stringify(list), "utf8");
        toolsListBytes[toolset] = bytes;
        if (!UPDATE) {
          const over = bytes > (ceilings.toolsListByToolset[toolset] ?? 0);
          expect({ toolset, bytes, over }).toEqual({ toolset, bytes, over: false });
        }
      } finally {
        await alone.close();
      }
    },
  );
});

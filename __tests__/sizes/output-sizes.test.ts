/**
 * What an agent pays for each answer: every registered tool is called through the official SDK
 * client on recorded NCBI records (../shared, when present) and on the offline demo's synthetic
 * corpus, and the UTF-8 bytes of its text content are held under the ceilings committed in
 * ceilings.json (per tool, per scenario), as is the length of tools/list. Growth past a ceiling is
 * a deliberate change: re-measure with `SIZES_UPDATE=1 npm test -- __tests__/sizes` (writes
 * measured × 1.1, rounded up to 100) and commit the new file with the reason.
 * A tool with no ceiling entry fails here, and so does a reply whose structuredContent holds
 * anything its text does not (clients show many models the text only).
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
import { callTool, startHarness, type Harness } from "../helpers/mcp.js";
import { HAS_SHARED, eutilsFixture } from "../helpers/shared.js";

jest.setTimeout(180_000);

const CEILINGS_FILE = join(dirname(fileURLToPath(import.meta.url)), "ceilings.json");
interface Ceilings {
  toolsList: number;
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
  args: Args | (() => Args);
  /** Needs the recorded records in ../shared. */
  shared?: boolean;
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
];

let fake: FakeEutils;
/** The demo's synthetic server, for the literature services (ID converter, Europe PMC, …). */
let literature: SynthServer;
let h: Harness;
const measured: Record<string, Record<string, number>> = {};
const measuredChars: Record<string, Record<string, number>> = {};
let toolsListChars = 0;

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
    const next: Ceilings = { toolsList: up(toolsListChars), tools };
    writeFileSync(CEILINGS_FILE, `${JSON.stringify(next, null, 2)}\n`);
  }
  process.stderr.write(
    `output sizes (text bytes): tools/list ${toolsListChars} chars\n` +
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
      const out = await callTool(h.client, tool, typeof s.args === "function" ? s.args() : s.args);
      expect({ tool, isError: out.isError }).toEqual({ tool, isError: false });
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

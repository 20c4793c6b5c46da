/**
 * The official MCP Inspector (CLI mode) against this server over every transport a user can point
 * it at: stdio (the Inspector spawns the server), Streamable HTTP (/mcp) and legacy SSE (/sse)
 * of the real HTTP front. Each lists the tools and calls one against a fake NCBI, and the parsed
 * JSON output is compared with what the server must answer. These are the commands the README's
 * "Inspecting" section documents.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onUtility } from "../helpers/fake-eutils.js";
import { ESPELL_XML, startHttpHarness, type HttpHarness } from "../http/harness.js";
import { inspect, stdioTarget } from "./run.js";

/** A project-written ESearch reply (NCBI's eSearchResult shape). */
const ESEARCH_XML = `<?xml version="1.0" encoding="UTF-8" ?>
<!DOCTYPE eSearchResult PUBLIC "-//NLM//DTD esearch 20060628//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20060628/esearch.dtd">
<eSearchResult><Count>2</Count><RetMax>2</RetMax><RetStart>0</RetStart>
<IdList><Id>30000219</Id><Id>30000218</Id></IdList>
<TranslationSet/><QueryTranslation>"asthma"[MeSH Terms] OR "asthma"[All Fields]</QueryTranslation>
</eSearchResult>`;

const SPELLED = { original: "asthmaa childrn", corrected: "asthma children", hasSuggestion: true };

interface ToolList {
  tools: { name: string; description?: string; inputSchema: { type: string } }[];
}
interface CallResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const LIST_TOOLS = ["--method", "tools/list"];
const SPELL = [
  "--method",
  "tools/call",
  "--tool-name",
  "pubmed_spell",
  "--tool-arg",
  "query=asthmaa childrn",
];

function expectToolList(list: ToolList): void {
  const names = list.tools.map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(["pubmed_search", "pubmed_spell", "rag_search"]));
  for (const tool of list.tools) {
    expect(tool.description).toEqual(expect.any(String));
    expect(tool.inputSchema.type).toBe("object");
  }
}

function expectSpelled(result: CallResult): void {
  expect(result.isError ?? false).toBe(false);
  expect(JSON.parse(result.content[0]?.text ?? "{}")).toEqual(SPELLED);
  expect(result.structuredContent).toEqual(SPELLED);
}

let h: HttpHarness;
beforeAll(async () => {
  h = await startHttpHarness({
    routes: [
      onUtility("espell", { body: ESPELL_XML }),
      onUtility("esearch", { body: ESEARCH_XML }),
    ],
  });
}, 60_000);
afterAll(async () => {
  await h.close();
});

describe("MCP Inspector CLI over Streamable HTTP", () => {
  const target = () => ["--transport", "http", "--server-url", `${h.http.url}/mcp`];

  it("lists the tools", async () => {
    expectToolList(await inspect<ToolList>([...LIST_TOOLS, ...target()]));
  }, 120_000);

  it("calls pubmed_spell", async () => {
    expectSpelled(await inspect<CallResult>([...SPELL, ...target()]));
  }, 120_000);

  it("calls pubmed_search with a key=value count, which reaches NCBI as retmax", async () => {
    h.fake.reset();
    const result = await inspect<CallResult>([
      "--method",
      "tools/call",
      "--tool-name",
      "pubmed_search",
      "--tool-arg",
      "query=asthma",
      "maxResults=2",
      ...target(),
    ]);
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({
      effectiveQuery: "asthma",
      totalFound: 2,
      offset: 0,
      pmids: ["30000219", "30000218"],
    });
    expect(h.fake.requests.find((r) => r.utility === "esearch")?.params).toMatchObject({
      term: "asthma",
      retmax: "2",
    });
  }, 120_000);

  it("lists the resources and the prompts", async () => {
    const { resources } = await inspect<{ resources: { uri: string }[] }>([
      "--method",
      "resources/list",
      ...target(),
    ]);
    expect(resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining(["resource://pubmed/help", "resource://pubmed/info"]),
    );
    const { prompts } = await inspect<{ prompts: { name: string }[] }>([
      "--method",
      "prompts/list",
      ...target(),
    ]);
    expect(prompts.map((p) => p.name)).toEqual(
      expect.arrayContaining(["pico_search", "systematic_review_plan"]),
    );
  }, 120_000);
});

describe("MCP Inspector CLI over legacy SSE", () => {
  const target = () => ["--transport", "sse", "--server-url", `${h.http.url}/sse`];

  it("lists the tools", async () => {
    expectToolList(await inspect<ToolList>([...LIST_TOOLS, ...target()]));
  }, 120_000);

  it("calls pubmed_spell", async () => {
    expectSpelled(await inspect<CallResult>([...SPELL, ...target()]));
  }, 120_000);
});

describe("MCP Inspector CLI over stdio (the Inspector spawns the server)", () => {
  let dataDir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-inspector-stdio-"));
    env = { ...h.env, MCP_TRANSPORT: "stdio", PUBMED_MCP_DATA_DIR: dataDir };
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("lists the tools", async () => {
    expectToolList(await inspect<ToolList>([...LIST_TOOLS, ...stdioTarget(env)]));
  }, 120_000);

  it("calls pubmed_spell", async () => {
    expectSpelled(await inspect<CallResult>([...SPELL, ...stdioTarget(env)]));
  }, 120_000);
});

/**
 * pubmed_fulltext and pubmed_convert_ids in the offline demo: against the synthetic server
 * (src/devtools/synth-server.ts, which answers E-utilities and the literature services), over
 * stdio (the real process, through tsx) and over Streamable HTTP (the real HTTP front). The same
 * calls give the same answers on both transports: a PMC article, an article PMC withholds that
 * Europe PMC has in full, an Unpaywall link for a paper outside PMC, an ID conversion, and
 * pubmed_fetch / pubmed_cite by PMCID and DOI.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.js";
import { pmcWithholds } from "../../src/devtools/synth-jats.js";
import { demoCorpus } from "../../src/devtools/synth-ncbi.js";
import { startSynthServer, type SynthServer } from "../../src/devtools/synth-server.js";
import type { SynthRecord } from "../../src/devtools/synth.js";
import { startHttpServer, type RunningHttpServer } from "../../src/http/server.js";
import type { FulltextOutput } from "../../src/literature/fulltext-output.js";
import { closeProcess, setStateForTests } from "../../src/worker/process.js";
import { connectStreamable } from "../http/harness.js";
import { callTool, startStdioClient } from "../helpers/mcp.js";

jest.setTimeout(180_000);

const corpus = demoCorpus();
const records: SynthRecord[] = Array.from({ length: corpus.size }, (_, i) => corpus.recordAt(i));
const inPmc = records.find((r) => r.pmcid !== null && r.doi !== null && !pmcWithholds(r))!;
const withheld = records.find(pmcWithholds)!;
const gold = records.find((r) => r.pmcid === null && r.doi && Number(r.pmid) % 3 === 0)!;

let synth: SynthServer;
let dataDir: string;
let http: RunningHttpServer;
const clients: Record<"stdio" | "http", Client | undefined> = { stdio: undefined, http: undefined };

beforeAll(async () => {
  synth = await startSynthServer(corpus);
  dataDir = mkdtempSync(join(tmpdir(), "pubmed-mcp-fulltext-demo-"));
  const env = {
    NCBI_EUTILS_BASE_URL: synth.baseUrl,
    ...synth.env,
    UNPAYWALL_EMAIL: "demo@example.org",
    NCBI_MAX_RPS: "50",
    PUBMED_MCP_DATA_DIR: dataDir,
    LOG_LEVEL: "error",
  };
  clients.stdio = (await startStdioClient(env)).client;
  const state = await setStateForTests(
    loadConfig({ ...env, MCP_TRANSPORT: "http", MCP_HTTP_HOST: "127.0.0.1", MCP_HTTP_PORT: "0" }),
  );
  http = await startHttpServer(state.config);
  clients.http = await connectStreamable(http.url);
});
afterAll(async () => {
  await clients.stdio?.close();
  await clients.http?.close();
  await http?.close();
  await closeProcess();
  await synth?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe.each(["stdio", "http"] as const)("the reading tools in the demo over %s", (transport) => {
  it("reads PMC text, falls back to Europe PMC for a withheld article, links via Unpaywall", async () => {
    const client = clients[transport]!;
    const out = await callTool(client, "pubmed_fulltext", {
      pmids: [inPmc.pmid, withheld.pmid, gold.pmid],
      maxCharacters: 2000,
    });
    expect(out.isError).toBe(false);
    const [a, b, c] = (out.json as FulltextOutput).results;
    expect(a).toMatchObject({ id: inPmc.pmid, source: "pmc" });
    expect(a?.article).toMatchObject({ pmid: inPmc.pmid, pmcid: inPmc.pmcid, title: inPmc.title });
    expect(a?.article?.sections?.[0]?.title).toBe("Introduction");
    expect(b).toMatchObject({ id: withheld.pmid, source: "europepmc" });
    expect(b?.tried).toEqual([
      { source: "pmc", reason: expect.stringMatching(/^not full text: the publisher/) },
    ]);
    expect(c).toMatchObject({
      id: gold.pmid,
      source: "unpaywall",
      link: { url: expect.stringMatching(/^https?:\/\//) },
    });
    expect(c?.article).toBeUndefined();
  });

  it("fetches and cites by PMCID or DOI, listing ids with no PMID", async () => {
    const client = clients[transport]!;
    const fetched = await callTool(client, "pubmed_fetch", {
      pmcids: [inPmc.pmcid, "PMC1"],
      detailLevel: "citation_data",
    });
    expect(fetched.json).toMatchObject({
      articles: [{ pmid: inPmc.pmid, doi: inPmc.doi }],
      unresolvedIds: ["PMC1"],
    });
    const cited = await callTool(client, "pubmed_cite", { dois: [inPmc.doi] });
    expect(cited.json).toMatchObject({ citations: [{ pmid: inPmc.pmid }], notFoundPmids: [] });
    const none = await callTool(client, "pubmed_fetch", { dois: ["10.9999/nothing.here"] });
    expect(none.json).toEqual({
      error: {
        code: "NOT_FOUND",
        message: expect.stringContaining('"<doi>"[doi]'),
        details: { unresolvedIds: ["10.9999/nothing.here"] },
      },
    });
  });

  it("converts identifiers", async () => {
    const out = await callTool(clients[transport]!, "pubmed_convert_ids", {
      ids: [inPmc.pmid, inPmc.pmcid],
    });
    expect(out.json).toEqual({
      records: [
        expect.objectContaining({ input: inPmc.pmid, pmid: inPmc.pmid, pmcid: inPmc.pmcid }),
        expect.objectContaining({ input: inPmc.pmcid, pmid: inPmc.pmid, pmcid: inPmc.pmcid }),
      ],
    });
  });
});

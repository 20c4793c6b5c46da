/**
 * pubmed_mesh, europepmc_search, pubmed_annotations and pubmed_related's Europe PMC fallback over
 * the doors users take — a spawned stdio process and Streamable HTTP — against the offline demo's
 * synthetic server (src/devtools/synth-server.ts: NCBI and the literature services on one port,
 * project-written replies from the synthetic corpus). Both transports must give the same answers.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.js";
import { demoCorpus } from "../../src/devtools/synth-ncbi.js";
import { startSynthServer, type SynthServer } from "../../src/devtools/synth-server.js";
import type { SynthCorpus } from "../../src/devtools/synth.js";
import { startHttpServer, type RunningHttpServer } from "../../src/http/server.js";
import { closeProcess, setStateForTests } from "../../src/worker/process.js";
import { connectStreamable } from "../http/harness.js";
import { callTool, startStdioClient } from "../helpers/mcp.js";

jest.setTimeout(180_000);

let corpus: SynthCorpus;
let synth: SynthServer;
let http: RunningHttpServer;
const dirs: string[] = [];
const clients: Record<string, Client> = {};

function env(transport: "stdio" | "http"): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), `pubmed-mcp-reading-${transport}-`));
  dirs.push(dir);
  return {
    NCBI_EUTILS_BASE_URL: synth.baseUrl,
    ...synth.env,
    NCBI_MAX_RPS: "50",
    NCBI_TIMEOUT_MS: "10000",
    NCBI_DEADLINE_MS: "60000",
    PUBMED_MCP_DATA_DIR: dir,
    LOG_LEVEL: "error",
    MCP_TRANSPORT: transport,
    ...(transport === "http" ? { MCP_HTTP_HOST: "127.0.0.1", MCP_HTTP_PORT: "0" } : {}),
  };
}

beforeAll(async () => {
  corpus = demoCorpus();
  synth = await startSynthServer(corpus);
  const state = await setStateForTests(loadConfig(env("http")));
  http = await startHttpServer(state.config);
  clients.http = await connectStreamable(http.url);
  clients.stdio = (await startStdioClient(env("stdio"))).client;
}, 120_000);

afterAll(async () => {
  for (const c of Object.values(clients)) await c.close();
  await http.close();
  await closeProcess();
  await synth.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Json = Record<string, unknown>;

/** The same call on every transport: the answers, which must agree, as one. */
async function everywhere(tool: string, args: Json): Promise<Json> {
  const answers: Record<string, unknown> = {};
  for (const [name, client] of Object.entries(clients)) {
    const out = await callTool(client, tool, args);
    expect({ name, tool, isError: out.isError }).toEqual({ name, tool, isError: false });
    answers[name] = out.json;
  }
  expect(answers.stdio).toEqual(answers.http);
  return answers.http as Json;
}

describe("reading tools over stdio and HTTP on the synthetic server", () => {
  it("pubmed_mesh finds a descriptor the corpus indexes with", async () => {
    const heading = Array.from({ length: corpus.size }, (_, i) => corpus.recordAt(i)).flatMap(
      (r) => r.mesh,
    )[0]!;
    const out = await everywhere("pubmed_mesh", { term: heading.name });
    expect((out.records as Json[])[0]).toMatchObject({
      ui: heading.ui,
      name: heading.name,
      searchTag: `"${heading.name}"[Mesh]`,
    });
  });

  it("europepmc_search pages with nextCursorMark, core hits carrying abstracts", async () => {
    const first = await everywhere("europepmc_search", {
      query: "long covid",
      pageSize: 5,
      resultType: "core",
    });
    const firstIds = (first.results as Json[]).map((r) => r.id);
    expect(firstIds).toHaveLength(5);
    expect((first.results as Json[]).every((r) => typeof r.abstract === "string")).toBe(true);
    const second = await everywhere("europepmc_search", {
      query: "long covid",
      pageSize: 5,
      cursorMark: first.nextCursorMark,
    });
    const secondIds = (second.results as Json[]).map((r) => r.id);
    expect(secondIds).toHaveLength(5);
    expect(secondIds.filter((id) => firstIds.includes(id))).toEqual([]);
  });

  it("pubmed_annotations annotates synthetic records by PMID", async () => {
    const r = corpus.recordAt(1);
    const out = await everywhere("pubmed_annotations", { pmids: [r.pmid, "1"] });
    const [article] = out.articles as Json[];
    expect(article).toMatchObject({ pmid: r.pmid, title: r.title });
    expect((article!.entities as Json[]).length).toBeGreaterThan(0);
    expect(out.notFoundPmids).toEqual(["1"]);
  });

  it("pubmed_related asks Europe PMC when ELink has no references, and says so", async () => {
    let index = 0;
    while (corpus.referencesOf(corpus.pmidOf(index)).length > 0) index++;
    const pmid = corpus.pmidOf(index);
    const out = await everywhere("pubmed_related", { pmid, relationship: "references" });
    expect(out).toMatchObject({ sourcePmid: pmid, totalFound: 0, source: "europepmc" });
    expect(out.note).toMatch(/no reference links .*Europe PMC/);
  });
});

describe("pubmed_verify_references over stdio and HTTP on the synthetic server", () => {
  /** A Vancouver reference to a synthetic record, its year changed by `yearShift`. */
  const vancouver = (index: number, yearShift = 0) => {
    const r = corpus.recordAt(index);
    const c = r.citation;
    const authors = r.authors
      .slice(0, 3)
      .map((a) => a.collectiveName ?? `${a.lastName} ${a.initials ?? ""}`.trim())
      .join(", ");
    const title = r.title.replace(/[.]$/, "");
    const year = c.pubDate.year + yearShift;
    const issue = c.issue ? `(${c.issue})` : "";
    return `${authors}. ${title}. ${c.journal.iso}. ${year};${c.volume}${issue}:${c.medlinePgn}.`;
  };

  it("verifies real references, names a wrong year and finds no invented one", async () => {
    const out = await everywhere("pubmed_verify_references", {
      references: [
        vancouver(2),
        vancouver(3, -4),
        "Quimby RT, Zzyzx Q. Lunar tidal cycles modulate hepatic glycogen in hibernating marmots. J Imaginary Res. 2011;3(4):1-9.",
      ],
    });
    const results = out.results as Json[];
    expect(results.map((r) => [r.status, r.pmid, r.differences])).toEqual([
      ["verified", corpus.recordAt(2).pmid, []],
      ["mismatch", corpus.recordAt(3).pmid, ["year"]],
      ["not_found", undefined, []],
    ]);
    expect(out.summary).toMatchObject({ verified: 1, mismatch: 1, not_found: 1, ambiguous: 0 });
  });
});

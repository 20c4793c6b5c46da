/**
 * pubmed_cite, pubmed_fetch and pubmed_trend keep the MCP loop free (issue 45, finding 5):
 * citation-js loads, builds its engines and renders in the live thread
 * (src/live/live-thread.ts), a long EFetch reply is parsed there, and Vega draws the trend chart
 * there. On the loop, a fresh process's 50 × 6 pubmed_cite blocked it for seconds
 * (1.5–7 s: loading citation-js and building APA's engine alone take more than one). Through a real
 * MCP client (the server in this process, so the loop measured is the server's), against the
 * synthetic NCBI.
 */
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { articleSetXml } from "../../src/devtools/synth-xml.js";
import { CITATION_STYLES, formatCitations } from "../../src/live/citations.js";
import { liveThread } from "../../src/live/live-thread.js";
import { parseEFetch } from "../../src/ncbi/parse/efetch.js";
import { renderTrendSvg } from "../../src/live/chart.js";
import type { TrendOutput } from "../../src/pubmed/trend.js";
import { callTool, startHarness, type Harness } from "../helpers/mcp.js";
import { useSynthNcbi } from "../helpers/synth-ncbi.js";

const TERM = "hip fracture rehabilitation";
const STYLES = [...CITATION_STYLES];

describe("live tools off the MCP loop", () => {
  const ncbi = useSynthNcbi({
    seed: 45,
    terms: [{ term: TERM, count: 200, edatFrom: "2020-01-01", edatTo: "2024-12-31" }],
  });
  let h: Harness;
  beforeEach(async () => {
    // Answers as large as 200 articles (some 700 kB): the parse under test, not the paging.
    h = await startHarness({ fake: ncbi.fake, env: { MCP_MAX_ANSWER_BYTES: String(4 << 20) } });
  });
  afterEach(() => h.close());
  const pmids = (from: number, to: number) => ncbi.corpus.pmidsFor(TERM).slice(from, to);

  // How long the loop waits meanwhile is a benchmark figure (bench/README.md §14), not a test's:
  // at load 18 a timer here once fired 2.9 s late with the work in the thread.
  it("pubmed_cite formats 50 PMIDs × 6 styles in the thread, the same text as on this one", async () => {
    const asked = pmids(0, 50);
    await liveThread().close(); // so that only this call's formatting can start it
    const out = await callTool(h.client, "pubmed_cite", { pmids: asked, styles: STYLES });
    expect(out.isError).toBe(false);
    expect(liveThread().threadId).toBeGreaterThan(0);
    // The whole answer, as formatCitations gives it on this thread.
    const articles = parseEFetch(articleSetXml(ncbi.corpus.records(asked)));
    expect(out.json).toEqual({
      citations: articles.map((a) => ({ pmid: a.pmid, formats: formatCitations(a, STYLES) })),
      notFoundPmids: [],
    });
  });

  it("pubmed_cite answers INVARIANT_FAILURE, not a hang, when the thread dies; the next call is formatted", async () => {
    const asked = pmids(50, 100);
    const call = callTool(h.client, "pubmed_cite", { pmids: asked, styles: STYLES });
    let settled = false;
    void call.finally(() => (settled = true));
    while (!liveThread().citing && !settled) await new Promise((r) => setTimeout(r, 2));
    await liveThread().crashForTests();
    const out = await call;
    expect(out.isError).toBe(true);
    expect(out.json).toEqual({
      error: {
        code: "INVARIANT_FAILURE",
        message: expect.stringMatching(
          /^The thread that formats citations stopped \(exit code \d+\) before answering; retry the call\.$/,
        ),
        details: null,
      },
    });
    const again = await callTool(h.client, "pubmed_cite", { pmids: asked, styles: ["apa"] });
    expect(again.isError).toBe(false);
    expect((again.json as { citations: unknown[] }).citations).toHaveLength(50);
  });

  it("pubmed_fetch of 200 PMIDs reads the reply in the thread, the same articles as on the loop", async () => {
    const asked = pmids(0, 200);
    await liveThread().close(); // so that only this call's parse can start it
    const out = await callTool(h.client, "pubmed_fetch", { pmids: asked });
    expect(out.isError).toBe(false);
    expect(liveThread().threadId).toBeGreaterThan(0);
    const got = (out.json as { articles: { pmid: string; title: string }[] }).articles;
    const expected = parseEFetch(articleSetXml(ncbi.corpus.records(asked)));
    expect(got.map((a) => [a.pmid, a.title])).toEqual(expected.map((a) => [a.pmid, a.title]));
  });

  it("pubmed_trend draws its chart in the thread, byte for byte as renderTrendSvg draws it here", async () => {
    await liveThread().close(); // so that only this call's chart can start it
    const out = await callTool(h.client, "pubmed_trend", {
      query: TERM,
      startYear: 2018,
      endYear: 2025,
    });
    expect(out.isError).toBe(false);
    expect(liveThread().threadId).toBeGreaterThan(0);
    const trend = out.json as TrendOutput;
    expect(trend.counts.map((c) => c.year)).toEqual([
      2018, 2019, 2020, 2021, 2022, 2023, 2024, 2025,
    ]);
    expect(out.content[1]).toEqual({
      type: "image",
      mimeType: "image/svg+xml",
      data: Buffer.from(await renderTrendSvg(trend.query, trend.counts)).toString("base64"),
    });
  });
});

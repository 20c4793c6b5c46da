/**
 * pubmed_fulltext and pubmed_convert_ids through the official MCP client, against the fake NCBI
 * (EFetch db=pmc) and the fake literature services, serving the recorded articles of
 * ../shared/fixtures/literature: four EFetch db=pmc replies (one a one-paragraph correction notice)
 * and five PMC Open Access .nxml files, served here as PMC's and Europe PMC's replies.
 * Written here, not recorded: the ID converter's replies for these articles (shaped after NCBI's
 * documentation, as the recorded rcrossref reply is), PMC's `<error>` for unknown ids, and — as no
 * public recording exists — PMC's reply for an article whose publisher withholds the XML (a real
 * reply with its <body> replaced by PMC's comment).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from "@jest/globals";
import { liveThread } from "../../src/live/live-thread.js";
import type { FulltextOutput, FulltextResult } from "../../src/literature/fulltext-output.js";
import { rateLimitReply, startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import {
  recordedLiteratureRoutes,
  startFakeLiterature,
  type FakeLiterature,
} from "../helpers/fake-literature.js";
import { callTool, startHarness, type Harness } from "../helpers/mcp.js";
import { describeLiterature, HAS_LITERATURE } from "../helpers/shared.js";
import {
  ARTICLES,
  articleXml,
  countedCharacters,
  idconvRoute,
  pmcRoute,
  europePmcRoute,
  type Recorded,
} from "./fulltext-fixtures.js";

jest.setTimeout(120_000);

const EMAIL = "reader@example.org";
let ncbi: FakeEutils;
let lit: FakeLiterature;
let h: Harness | undefined;

async function harness(env: Record<string, string> = {}): Promise<Harness> {
  await h?.close();
  h = await startHarness({
    fake: ncbi,
    env: { ...lit.env, NCBI_MAX_RETRIES: "1", ...env },
    eutils: { backoffBaseMs: 5 },
    services: { backoffBaseMs: 5 },
  });
  return h;
}

async function read(args: Record<string, unknown>, env?: Record<string, string>) {
  const client = (await harness(env)).client;
  return callTool(client, "pubmed_fulltext", args);
}

const only = (out: { json: unknown }): FulltextResult => {
  const results = (out.json as FulltextOutput).results;
  expect(results).toHaveLength(1);
  return results[0] as FulltextResult;
};
const byPmcid = (pmcid: string): Recorded => ARTICLES.find((a) => a.pmcid === pmcid)!;

beforeAll(async () => {
  ncbi = await startFakeEutils({ routes: HAS_LITERATURE ? [pmcRoute()] : [] });
  lit = await startFakeLiterature({
    routes: HAS_LITERATURE ? [idconvRoute(), europePmcRoute(), ...recordedLiteratureRoutes()] : [],
  });
});
afterAll(async () => {
  await h?.close();
  await ncbi.close();
  await lit.close();
});
beforeEach(() => {
  ncbi.reset();
  lit.reset();
});

describeLiterature("pubmed_fulltext on recorded articles", () => {
  it("reads PMC3040717 from PMC by PMCID: identifiers, sections, paragraphs, captions, licence", async () => {
    const r = only(await read({ pmcids: ["pmc3040717"] }));
    expect(r).toMatchObject({ id: "PMC3040717", source: "pmc" });
    expect(r.tried).toBeUndefined();
    expect(r.article).toMatchObject({
      pmid: "20516115",
      pmcid: "PMC3040717",
      doi: "10.1158/0008-5472.CAN-09-4563",
      journal: "Cancer research",
      referenceCount: 53,
      license: { text: expect.stringContaining("available for text mining") },
    });
    const titles = r.article?.sections?.map((s) => s.title);
    expect(titles?.slice(0, 2)).toEqual(["Introduction", "Materials and Methods"]);
    expect(r.article?.sections?.[0]?.paragraphs?.[0]).toMatch(
      /^Since the cloning of BRCA1 in 1994, /,
    );
    expect(r.article?.references).toBeUndefined(); // opt-in
    // One EFetch db=pmc, no ID conversion for a PMCID.
    expect(ncbi.requests.map((q) => [q.utility, q.params.db, q.params.id])).toEqual([
      ["efetch", "pmc", "3040717"],
    ]);
    expect(lit.requests).toEqual([]);
  });

  it("resolves PMIDs and DOIs through the ID converter, then reads PMC", async () => {
    const out = await read({ pmids: [20516115, "22416237"] });
    const results = (out.json as FulltextOutput).results;
    expect(results.map((x) => [x.id, x.source, x.article?.pmcid])).toEqual([
      ["20516115", "pmc", "PMC3040717"],
      ["22416237", "pmc", "PMC3299399"],
    ]);
    expect(lit.requests.map((q) => [q.service, q.params.idtype, q.params.ids])).toEqual([
      ["idconv", "pmid", "20516115,22416237"],
    ]);
    expect(ncbi.requests.map((q) => q.params.id)).toEqual(["3040717,3299399"]);

    const doi = only(await read({ dois: ["https://doi.org/10.3389/FPSYT.2012.00018"] }));
    expect(doi).toMatchObject({ id: "10.3389/FPSYT.2012.00018", source: "pmc" });
    expect(doi.article?.title).toBe(
      "The Effects of Psychosis Risk Variants on Brain Connectivity: A Review",
    );
  });

  it("keeps every recorded article within the default budget of 12,000 characters", async () => {
    const figures: string[] = [];
    for (const a of ARTICLES) {
      const out = await read({ pmcids: [a.pmcid] });
      const r = only(out);
      expect({ pmcid: a.pmcid, source: r.source, pmid: r.article?.pmid }).toEqual({
        pmcid: a.pmcid,
        source: "pmc",
        pmid: a.pmid,
      });
      const counted = countedCharacters(r);
      expect(counted).toBeLessThanOrEqual(12_000);
      if (r.article?.truncated) expect(r.article.truncated.returnedCharacters).toBe(counted);
      const text = out.content[0]?.text ?? "";
      figures.push(
        `${a.pmcid}: ${counted} characters of article text (of ${r.article?.truncated?.totalCharacters ?? counted}), ${text.length} characters of answer`,
      );
    }
    process.stderr.write(`pubmed_fulltext at the default budget:\n  ${figures.join("\n  ")}\n`);
  });

  it("cuts at paragraph boundaries to maxCharacters and accounts for what was cut", async () => {
    const r = only(await read({ pmcids: ["PMC3299399"], maxCharacters: 3000 }));
    const counted = countedCharacters(r);
    expect(counted).toBeLessThanOrEqual(3000);
    const t = r.article?.truncated;
    expect(t?.returnedCharacters).toBe(counted);
    expect(t?.totalCharacters).toBeGreaterThan(35_000);
    expect(t?.charactersDropped).toBeGreaterThan(30_000);
    expect(t?.sections.map((s) => s.section)).toContain("Discussion > Limitations");
    // Whole paragraphs: every one returned is a paragraph of the article as PMC has it.
    const full = only(await read({ pmcids: ["PMC3299399"], maxCharacters: 100_000 }));
    const all = new Set(full.article?.sections?.flatMap((s) => s.paragraphs ?? []));
    for (const p of r.article?.sections?.flatMap((s) => s.paragraphs ?? []) ?? []) {
      expect(all.has(p)).toBe(true);
    }
    expect(full.article?.truncated).toBeUndefined();
    expect(countedCharacters(full)).toBe(t?.totalCharacters);
  });

  it("parses a long article's JATS in the live thread, not on the MCP loop", async () => {
    await liveThread().close(); // so that only this call's parse can start it
    const r = only(await read({ pmcids: ["PMC3299399"] }));
    expect(r).toMatchObject({ id: "PMC3299399", source: "pmc" });
    expect(liveThread().threadId).toBeGreaterThan(0);
  });

  it("outlines an article (titles and sizes, no text) and returns the sections asked for", async () => {
    const outline = only(await read({ pmcids: ["PMC3299399"], mode: "outline" }));
    const sections = outline.article?.sections ?? [];
    expect(sections).toHaveLength(22);
    expect(sections.some((s) => s.paragraphs !== undefined)).toBe(false);
    expect(sections.find((s) => s.title === "Limitations")).toEqual({
      level: 2,
      title: "Limitations",
      characters: expect.any(Number),
    });
    expect(outline.article?.abstract).toBeUndefined();
    expect(outline.article?.abstractCharacters).toBeGreaterThan(500);

    const picked = only(
      await read({ pmcids: ["PMC3299399"], sections: ["LIMITATIONS", "no such part"] }),
    );
    const limitations = picked.article?.sections?.find((s) => s.title === "Limitations");
    expect(limitations?.paragraphs?.[0]).toMatch(/^A number of limitations need to be considered/);
    expect(picked.article?.sections?.some((s) => s.title === "Introduction")).toBe(false);
    expect(picked.article?.abstract).toBeUndefined();
    expect(picked.article?.unmatchedSections).toEqual(["no such part"]);
  });

  it("adds the references when asked", async () => {
    const r = only(
      await read({ pmcids: ["PMC3299399"], includeReferences: true, maxCharacters: 100_000 }),
    );
    expect(r.article?.references).toHaveLength(76);
    expect(r.article?.references?.[0]).toMatchObject({ pmid: "17088422" });
  });

  it("falls through to Europe PMC when PMC withholds the body, and says why", async () => {
    const a = byPmcid("PMC6329583");
    ncbi.route((req) =>
      req.utility === "efetch" && req.params.db === "pmc"
        ? {
            body: `<pmc-articleset>${articleXml(a).replace(
              /<body[\s>][\s\S]*<\/body>/,
              "<!--The publisher of this article does not allow downloading of the full text in XML form.-->",
            )}</pmc-articleset>`,
          }
        : undefined,
    );
    const r = only(await read({ pmids: ["30311380"] }));
    expect(r.source).toBe("europepmc");
    expect(r.tried).toEqual([
      {
        source: "pmc",
        reason: expect.stringMatching(/^not full text: the publisher does not allow/),
      },
    ]);
    expect(r.article?.sections?.map((s) => s.title)).toContain("Results");
    expect(lit.requests.map((q) => [q.service, q.path])).toEqual([
      ["idconv", ""],
      ["europepmc", "PMC6329583/fullTextXML"],
    ]);
  });

  it("fails a tier whose article is another paper (identity check) and uses the next", async () => {
    const other = byPmcid("PMC6329583");
    ncbi.route((req) =>
      req.utility === "efetch" && req.params.db === "pmc"
        ? { body: `<pmc-articleset>${articleXml(other)}</pmc-articleset>` }
        : undefined,
    );
    const r = only(await read({ pmcids: ["PMC3040717"] }));
    expect(r.source).toBe("europepmc");
    expect(r.article?.pmid).toBe("20516115");
    expect(r.tried).toEqual([
      {
        source: "pmc",
        reason:
          "identity check failed: PMC returned PMID 30311380, PMC6329583, DOI 10.1002/humu.23636, not PMC3040717",
      },
    ]);
  });

  it("records a 429 at PMC as RATE_LIMIT and reads Europe PMC", async () => {
    ncbi.failNext(2, rateLimitReply());
    const r = only(await read({ pmcids: ["PMC3040717"] }));
    expect(r.source).toBe("europepmc");
    expect(r.tried).toEqual([
      { source: "pmc", reason: expect.stringMatching(/rate/i), code: "RATE_LIMIT" },
    ]);
  });

  it("fails with RATE_LIMIT when every tier was refused for its rate, listing the tiers", async () => {
    ncbi.failNext(2, rateLimitReply());
    lit.failNext(10, { status: 429, body: "Too Many Requests" }, "europepmc");
    const out = await read({ pmcids: ["PMC3040717"] });
    expect(out.isError).toBe(true);
    expect(out.json).toEqual({
      error: {
        code: "RATE_LIMIT",
        message: expect.stringContaining("retry in a minute"),
        details: {
          results: [
            {
              id: "PMC3040717",
              tried: [
                { source: "pmc", reason: expect.any(String), code: "RATE_LIMIT" },
                { source: "europepmc", reason: expect.any(String), code: "RATE_LIMIT" },
                {
                  source: "unpaywall",
                  reason: expect.stringContaining("UNPAYWALL_EMAIL"),
                  skipped: true,
                },
              ],
            },
          ],
        },
      },
    });
  });

  it("gives Unpaywall's open-access link, not text, when PMC and Europe PMC have nothing", async () => {
    const r = only(
      await read({ dois: ["10.1103/PhysRevLett.80.3915"] }, { UNPAYWALL_EMAIL: EMAIL }),
    );
    expect(r).toEqual({
      id: "10.1103/PhysRevLett.80.3915",
      source: "unpaywall",
      link: {
        url: "http://arxiv.org/pdf/gr-qc/9801069",
        pdfUrl: "http://arxiv.org/pdf/gr-qc/9801069",
        version: "submittedVersion",
        hostType: "repository",
      },
      tried: [
        {
          source: "pmc",
          reason: "not in PMC (the ID converter: Identifier not found in PMC)",
        },
        { source: "europepmc", reason: "no PMCID: Europe PMC serves full text by PMCID" },
      ],
    });
    expect(lit.requests.map((q) => q.service)).toEqual(["idconv", "unpaywall"]);
  });

  it("fails with NOT_FOUND listing every tier when nothing has the paper; Unpaywall skipped without email", async () => {
    const out = await read({ pmcids: ["PMC1234567"] });
    expect(out.isError).toBe(true);
    const error = (out.json as { error: { code: string; message: string; details: unknown } })
      .error;
    expect(error.code).toBe("NOT_FOUND");
    expect(error.message).toContain(
      "PMC: The following PMCID is not available: 1234567; Europe PMC: Europe PMC has no full text",
    );
    expect(error.details).toEqual({
      results: [
        {
          id: "PMC1234567",
          tried: [
            { source: "pmc", reason: "The following PMCID is not available: 1234567" },
            { source: "europepmc", reason: "Europe PMC has no full text XML for this article" },
            {
              source: "unpaywall",
              reason: expect.stringContaining("UNPAYWALL_EMAIL"),
              skipped: true,
            },
          ],
        },
      ],
    });
  });

  it("answers per id when some ids succeed: the others carry their error and tiers", async () => {
    const out = await read({ pmcids: ["PMC3166277", "PMC1234567"], mode: "outline" });
    expect(out.isError).toBe(false);
    const [ok, failed] = (out.json as FulltextOutput).results;
    expect(ok).toMatchObject({ id: "PMC3166277", source: "pmc" });
    expect(ok?.article?.title).toBe(
      "Factors influencing lysis time stochasticity in bacteriophage λ",
    );
    expect(failed).toMatchObject({ id: "PMC1234567", error: { code: "NOT_FOUND" } });
    expect(failed?.tried?.map((t) => t.source)).toEqual(["pmc", "europepmc", "unpaywall"]);
  });

  it("rejects bad identifiers and lists with VALIDATION, before any request", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ dois: ["11.1038/ng.590"] }, /dois\[0\] must be a DOI/],
      [{ pmcids: ["PMCX1"] }, /pmcids\[0\] must be a PMCID/],
      [{ pmids: ["1"], dois: ["10.1038/ng.590"] }, /exactly one of pmids, pmcids or dois/],
      [{}, /exactly one of pmids, pmcids or dois/],
      [{ pmids: Array.from({ length: 11 }, (_, i) => String(i + 1)) }, /at most 10 PMIDs/],
    ];
    for (const [args, message] of cases) {
      const out = await read(args);
      expect(out.json).toEqual({
        error: {
          code: "VALIDATION",
          message: expect.stringMatching(message),
          details: expect.anything(),
        },
      });
    }
    expect([...ncbi.requests, ...lit.requests]).toEqual([]);
  });

  it("shares NCBI's limiter between the ID converter and EFetch db=pmc", async () => {
    const client = (await harness({ NCBI_MAX_RPS: "2" })).client;
    for (const pmids of [["20516115"], ["30311380"], ["21810267"]]) {
      const out = await callTool(client, "pubmed_fulltext", { pmids, mode: "outline" });
      expect(out.isError).toBe(false);
    }
    const idconv = lit.requests.filter((q) => q.service === "idconv");
    expect(idconv).toHaveLength(3);
    expect(ncbi.requests).toHaveLength(3);
    // Both reach NCBI: together they stay within NCBI_MAX_RPS in any second.
    const merged = [...idconv, ...ncbi.requests].map((q) => q.at).sort((x, y) => x - y);
    const inWindow = merged.map((t, i) => merged.filter((u, j) => j >= i && u - t < 900).length);
    expect(Math.max(...inWindow)).toBeLessThanOrEqual(2);
  });
});

describeLiterature("pubmed_convert_ids", () => {
  it("converts a mixed list, one request per id type, per-id errors without failing", async () => {
    const client = (await harness()).client;
    const out = await callTool(client, "pubmed_convert_ids", {
      ids: ["20516115", "PMC6329583", "10.3389/fpsyt.2012.00018", 21810267, "99999999"],
    });
    expect(out.isError).toBe(false);
    expect(out.json).toEqual({
      records: [
        {
          input: "20516115",
          pmid: "20516115",
          pmcid: "PMC3040717",
          doi: "10.1158/0008-5472.CAN-09-4563",
        },
        { input: "PMC6329583", pmid: "30311380", pmcid: "PMC6329583", doi: "10.1002/humu.23636" },
        {
          input: "10.3389/fpsyt.2012.00018",
          pmid: "22416237",
          pmcid: "PMC3299399",
          doi: "10.3389/fpsyt.2012.00018",
        },
        {
          input: "21810267",
          pmid: "21810267",
          pmcid: "PMC3166277",
          doi: "10.1186/1471-2180-11-174",
        },
        { input: "99999999", status: "error", errmsg: "Identifier not found in PMC" },
      ],
    });
    expect(lit.requests.map((q) => q.params.idtype).sort()).toEqual(["doi", "pmcid", "pmid"]);
  });

  it("reads the recorded converter reply (manuscript ids) and rejects unreadable ids", async () => {
    const client = (await harness()).client;
    const out = await callTool(client, "pubmed_convert_ids", { ids: "10.1038/ng.590" });
    expect(out.json).toEqual({
      records: [
        {
          input: "10.1038/ng.590",
          pmid: "20495566",
          pmcid: "PMC2883744",
          doi: "10.1038/ng.590",
          mid: "NIHMS198092",
          versions: expect.any(Array),
        },
      ],
    });
    const bad = await callTool(client, "pubmed_convert_ids", { ids: ["abc", "10.1/x"] });
    expect(bad.json).toEqual({
      error: {
        code: "VALIDATION",
        message: expect.stringMatching(
          /ids\[0\] "abc" is neither.*ids\[1\] "10\.1\/x" is not a DOI/,
        ),
        details: expect.anything(),
      },
    });
  });
});

describe("pubmed_fulltext without the recorded articles", () => {
  it("is listed read-only", async () => {
    const client = (await harness()).client;
    const { tools } = await client.listTools();
    for (const name of ["pubmed_fulltext", "pubmed_convert_ids"]) {
      expect(tools.find((t) => t.name === name)?.annotations).toMatchObject({ readOnlyHint: true });
    }
  });
});

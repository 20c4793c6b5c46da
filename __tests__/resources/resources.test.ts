/**
 * resource://pubmed/help, /info and /stats (docs/reference.md#resources) through a real MCP client, and the
 * resource-not-found error (-32002) for unknown URIs on in-memory, Streamable HTTP and SSE.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { matchTemplate } from "../../src/resources/resource.js";
import { fixtureReply, onUtility } from "../helpers/fake-eutils.js";
import { startHarness, type Harness } from "../helpers/mcp.js";
import { describeShared } from "../helpers/shared.js";
import { ESPELL_XML, connectSse, connectStreamable, startHttpHarness } from "../http/harness.js";
import { EINFO_ERROR_XML, EINFO_XML } from "./einfo-fixture.js";

const SECRETS = {
  NCBI_API_KEY: "ncbi-key-0123456789abcdef",
  MCP_AUTH_TOKEN: "bearer-token-9876543210",
  COHERE_API_KEY: "cohere-key-secret-55",
  QDRANT_API_KEY: "qdrant-key-secret-77",
  DATABASE_URL: "postgres://app:db-password-66@db.internal:5432/pubmed",
};

async function readText(client: Client, uri: string) {
  const res = await client.readResource({ uri });
  const first = res.contents[0] as { uri: string; mimeType?: string; text?: string };
  return { uri: first.uri, mimeType: first.mimeType, text: first.text ?? "" };
}

async function readError(client: Client, uri: string): Promise<McpError> {
  try {
    await client.readResource({ uri });
  } catch (err) {
    return err as McpError;
  }
  throw new Error(`reading ${uri} unexpectedly succeeded`);
}

describe("resources", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      routes: [onUtility("einfo", { body: EINFO_XML }), onUtility("espell", { body: ESPELL_XML })],
      env: {
        ...SECRETS,
        NCBI_EMAIL: "librarian@example.org",
        QDRANT_URL: "http://qdrant.internal:6333",
      },
    });
  });
  afterAll(() => h.close());

  it("lists help, info, stats and corpus with their media types", async () => {
    const { resources } = await h.client.listResources();
    expect(resources.map((r) => [r.uri, r.mimeType])).toEqual([
      ["resource://pubmed/help", "text/markdown"],
      ["resource://pubmed/info", "application/json"],
      ["resource://pubmed/stats", "application/json"],
      ["resource://pubmed/corpus", "application/json"],
    ]);
    for (const r of resources) expect(r.description?.length).toBeGreaterThan(40);
  });

  it("help documents every listed tool, the workflows and the limits", async () => {
    const help = await readText(h.client, "resource://pubmed/help");
    expect(help).toMatchObject({ uri: "resource://pubmed/help", mimeType: "text/markdown" });
    for (const tool of (await h.client.listTools()).tools)
      expect(help.text).toContain(`\`${tool.name}\``);
    expect(help.text).toMatch(/## Workflow: live PubMed/);
    expect(help.text).toMatch(/## Limits/);
    for (const name of ["pico_search", "systematic_review_plan", "resource://pubmed/stats"]) {
      expect(help.text).toContain(`\`${name}\``);
    }
  });

  it("info reports identity, NCBI compliance, queue, cache and stores — and no secret", async () => {
    const before = JSON.parse((await readText(h.client, "resource://pubmed/info")).text);
    expect(before).toMatchObject({
      name: "pubmed-mcp",
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      transport: "stdio",
      readOnly: false,
      ncbi: { apiKeyInUse: true, tool: "pubmed-mcp", emailSet: true, maxRps: 50 },
      queue: { waiting: 0, running: 0 },
      stores: {
        metadata: "postgres",
        vectors: "qdrant",
        embeddings: { provider: "cohere", model: "embed-v4.0" },
      },
    });
    await h.client.callTool({ name: "pubmed_spell", arguments: { query: "asthmaa childrn" } });
    await h.client.callTool({ name: "pubmed_spell", arguments: { query: "asthmaa childrn" } });
    const info = await readText(h.client, "resource://pubmed/info");
    const after = JSON.parse(info.text);
    expect(after.cache.misses).toBe(before.cache.misses + 1);
    expect(after.cache.hits).toBe(before.cache.hits + 1);
    expect(after.lastContact).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
    for (const secret of [...Object.values(SECRETS), "db-password-66", "librarian@example.org"]) {
      expect(info.text).not.toContain(secret);
    }
  });

  it("stats come from EInfo db=pubmed, and a second read is served from the cache", async () => {
    const first = await readText(h.client, "resource://pubmed/stats");
    const stats = JSON.parse(first.text);
    expect(stats).toEqual({
      dbName: "pubmed",
      description: "PubMed bibliographic record",
      count: 36000001,
      lastUpdate: "2024/05/01 04:12",
      fields: [
        {
          name: "TIAB",
          fullName: "Title/Abstract",
          description: "Free text associated with Abstract/Title",
        },
        {
          name: "MESH",
          fullName: "MeSH Terms",
          description: "Medical Subject Headings assigned to publication",
        },
      ],
      links: [
        {
          name: "pubmed_pubmed",
          menu: "Similar articles",
          description: "Similar PubMed articles, obtained by matching text and MeSH terms",
          dbTo: "pubmed",
        },
      ],
    });
    const einfoCalls = () => h.fake.requests.filter((r) => r.utility === "einfo");
    expect(einfoCalls().map((r) => r.params.db)).toEqual(["pubmed"]);
    const seen = h.fake.requests.length;
    expect(await readText(h.client, "resource://pubmed/stats")).toEqual(first);
    expect(h.fake.requests.length).toBe(seen);
  });

  it("unknown URIs fail with -32002 naming the URI and how to get it", async () => {
    // (An unsynced paper is covered in __tests__/corpus/cli-resources.test.ts: this harness's
    // DATABASE_URL is deliberately unreachable, so reading a paper is a store failure here.)
    for (const uri of ["resource://pubmed/nothing", "file:///etc/passwd"]) {
      const err = await readError(h.client, uri);
      expect(err).toBeInstanceOf(McpError);
      expect(err.code).toBe(-32002);
      expect(err.message).toContain(`Resource ${uri} not found`);
      expect(err.message).toMatch(/pubmed_sync_delta/);
      expect(err.message).toMatch(/pubmed_fetch/);
      expect(err.data).toEqual({ uri });
    }
  });
});

describe("stats when NCBI refuses the EInfo call", () => {
  it("is an internal error carrying the error code, not a not-found", async () => {
    const h = await startHarness({ routes: [onUtility("einfo", { body: EINFO_ERROR_XML })] });
    try {
      const err = await readError(h.client, "resource://pubmed/stats");
      expect(err.code).toBe(-32603);
      expect(err.message).toContain("Reading resource://pubmed/stats failed");
      expect(err.data).toMatchObject({ uri: "resource://pubmed/stats", code: "ENTREZ" });
    } finally {
      await h.close();
    }
  });
});

describe("unknown resources over HTTP and SSE", () => {
  it("fail with the same -32002 error as in-memory", async () => {
    const h = await startHttpHarness();
    try {
      for (const connect of [connectStreamable, connectSse]) {
        const client = await connect(h.http.url);
        const err = await readError(client, "resource://pubmed/paper/123");
        expect([err.code, err.data]).toEqual([-32002, { uri: "resource://pubmed/paper/123" }]);
        expect(err.message).toContain("resource://pubmed/paper/123");
        const help = await readText(client, "resource://pubmed/help");
        expect(help.mimeType).toBe("text/markdown");
        await client.close();
      }
    } finally {
      await h.close();
    }
  });
});

describe("matchTemplate", () => {
  it("matches one path segment per variable and decodes it", () => {
    expect(
      matchTemplate("resource://pubmed/paper/{pmid}", "resource://pubmed/paper/31452104"),
    ).toEqual({
      pmid: "31452104",
    });
    expect(matchTemplate("resource://x/{a}/{b}", "resource://x/1%202/z")).toEqual({
      a: "1 2",
      b: "z",
    });
    expect(
      matchTemplate("resource://pubmed/paper/{pmid}", "resource://pubmed/paper/1/2"),
    ).toBeUndefined();
    expect(
      matchTemplate("resource://pubmed/paper/{pmid}", "resource://pubmed/paper/"),
    ).toBeUndefined();
    expect(
      matchTemplate("resource://pubmed/paper/{pmid}", "resource://pubmed/paper/%E0"),
    ).toBeUndefined();
  });
});

describeShared("stats from a recorded NCBI EInfo reply", () => {
  it("carries the real record count, update time, every field and every link", async () => {
    const h = await startHarness({
      routes: [onUtility("einfo", fixtureReply("biopython/Entrez/einfo2.xml"))],
    });
    try {
      const stats = JSON.parse((await readText(h.client, "resource://pubmed/stats")).text);
      expect(stats).toMatchObject({
        dbName: "pubmed",
        count: 39730388,
        lastUpdate: "2025/11/27 06:33",
      });
      expect(stats.fields).toHaveLength(50);
      expect(stats.links).toHaveLength(57);
      expect(stats.fields).toContainEqual(
        expect.objectContaining({ name: "MESH", fullName: "MeSH Terms" }),
      );
    } finally {
      await h.close();
    }
  });
});

/**
 * The synthetic NCBI behind the fake E-utilities server, over real HTTP: the door the offline
 * demo and the sync tests use. GET and form-POST requests both reach it.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { demoCorpus, synthHandler } from "../../src/devtools/synth-ncbi.js";
import { startSynthServer } from "../../src/devtools/synth-server.js";
import { type FakeEutils, startFakeEutils } from "../helpers/fake-eutils.js";

describe("synthHandler as a fake-eutils route", () => {
  const demo = demoCorpus();
  let fake: FakeEutils;

  beforeAll(async () => {
    fake = await startFakeEutils({ routes: [synthHandler(demo)] });
  });
  afterAll(async () => {
    await fake.close();
  });

  it("answers GET and POST like NCBI, and leaves unknown utilities to the server's 404", async () => {
    const search = await fetch(
      `${fake.baseUrl}/esearch.fcgi?db=pubmed&term=crispr+therapy&retmax=100`,
    );
    expect(search.status).toBe(200);
    expect(search.headers.get("content-type")).toMatch(/^text\/xml/);
    const ids = [...(await search.text()).matchAll(/<Id>(\d+)<\/Id>/g)].map((m) => m[1]);
    expect([...ids].sort()).toEqual(demo.pmidsFor("crispr therapy"));

    const fetched = await fetch(`${fake.baseUrl}/efetch.fcgi`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ db: "pubmed", id: ids.join(","), retmode: "xml" }),
    });
    const xml = await fetched.text();
    expect(xml.match(/<PubmedArticle>/g)).toHaveLength(40);

    const unknown = await fetch(`${fake.baseUrl}/epost.fcgi?db=pubmed&id=1`);
    expect(unknown.status).toBe(404);
  });
});

describe("startSynthServer with prerender (the benchmarks' NCBI stand-in)", () => {
  it("answers EFetch with the same bytes as a server that renders each reply", async () => {
    const corpus = demoCorpus();
    const live = await startSynthServer(corpus);
    const ready = await startSynthServer(corpus, { prerender: true });
    try {
      const ids = corpus.pmidsFor("crispr therapy").slice(0, 25);
      const unknown = "1";
      const efetch = async (baseUrl: string) => {
        const res = await fetch(`${baseUrl}/efetch.fcgi`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            db: "pubmed",
            id: [...ids, unknown].join(","),
            retmode: "xml",
          }),
        });
        return res.text();
      };
      const rendered = await efetch(live.baseUrl);
      expect(rendered.match(/<PubmedArticle>/g)).toHaveLength(25);
      expect(await efetch(ready.baseUrl)).toBe(rendered);
    } finally {
      await live.close();
      await ready.close();
    }
  });
});

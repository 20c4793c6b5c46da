import { describe, expect, it } from "@jest/globals";
import { HASH_DIMENSION, HASH_MODEL, HashEmbedder, hashEmbed } from "../../src/embeddings/hash.js";
import { createEmbedder } from "../../src/embeddings/index.js";

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (v: number[]) => Math.sqrt(cosine(v, v));

describe("HashEmbedder", () => {
  const embedder = new HashEmbedder();

  it("describes itself for the corpus record", () => {
    expect(embedder).toMatchObject({ provider: "hash", model: HASH_MODEL, dimension: 768 });
    expect(HASH_MODEL).toBe("hash-v1-768");
  });

  it("is deterministic and returns unit vectors of the declared size", async () => {
    const [a, b] = await embedder.embedDocuments(["Aspirin after myocardial infarction", "x"]);
    expect(a).toHaveLength(HASH_DIMENSION);
    expect(norm(a!)).toBeCloseTo(1, 10);
    expect(norm(b!)).toBeCloseTo(1, 10);
    expect(await embedder.embedQuery("Aspirin after myocardial infarction")).toEqual(a);
    expect(hashEmbed("Aspirin after myocardial infarction")).toEqual(a);
  });

  it("keeps input order", async () => {
    const texts = ["one text", "another text", "a third"];
    const out = await embedder.embedDocuments(texts);
    expect(out).toEqual(texts.map((t) => hashEmbed(t)));
  });

  it("ranks lexically related texts above unrelated ones, including word variants", async () => {
    const query = await embedder.embedQuery("myocardial infarction treatment");
    const related = hashEmbed("Treating infarctions of the myocardium with thrombolysis");
    const unrelated = hashEmbed("Insulin resistance in adolescent obesity");
    expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated) + 0.2);
    // Stemming makes inflections identical; stopwords and case do not matter.
    expect(cosine(hashEmbed("The treated patients"), hashEmbed("treat patient"))).toBeCloseTo(
      1,
      10,
    );
  });

  it("gives empty and stopword-only texts a fixed unit vector, never a zero vector", () => {
    for (const text of ["", "of the and", "!!!"]) {
      const v = hashEmbed(text);
      expect(norm(v)).toBeCloseTo(1, 10);
      expect(v[0]).toBe(1);
    }
  });

  it("is healthy offline and honours an aborted signal", async () => {
    await expect(embedder.health()).resolves.toBeUndefined();
    const ac = new AbortController();
    ac.abort();
    await expect(embedder.embedDocuments(["a"], ac.signal)).rejects.toMatchObject({
      name: "AbortError",
    });
  });

  it("is what createEmbedder picks for provider hash", () => {
    const e = createEmbedder({
      provider: "hash",
      cohereApiKey: undefined,
      cohereBaseUrl: undefined,
      cohereModel: "embed-v4.0",
    });
    expect(e).toBeInstanceOf(HashEmbedder);
  });
});

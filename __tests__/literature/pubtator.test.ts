/**
 * PubTator3 BioC JSON exports recorded by biomcp (PMIDs 22663011 and 20516115: Gene, Disease,
 * Chemical, Species and Variant annotations, `normalized_id` both number and string). The
 * full-text and cell-line cases are written here after the BioC layout of PubTator's PMC
 * exports (section_type per passage), as no such export is recorded publicly.
 */
import { describe, expect, it } from "@jest/globals";
import { UpstreamError } from "../../src/errors.js";
import { annotatedArticleSchema, parsePubtatorExport } from "../../src/pubtator/pubtator.js";
import { describeLiterature, literatureFixture } from "../helpers/shared.js";

const DIR = "biomcp/testdata/sources/pubtator";

describeLiterature("parsePubtatorExport on recorded exports", () => {
  it("groups 40 annotations of 22663011 into entities with normalised identifiers", () => {
    const body = literatureFixture(`${DIR}/export_22663011.json`);
    const { articles, notFound } = parsePubtatorExport(body, {}, ["22663011", "1"]);
    expect(notFound).toEqual(["1"]);
    const [article] = articles;
    expect(article?.pmid).toBe("22663011");
    expect(article?.title).toBe("Improved survival with MEK inhibition in BRAF-mutated melanoma.");
    expect(article?.counts).toEqual({ Gene: 3, Disease: 7, Chemical: 3, Species: 1, Variant: 2 });
    const ids = article?.entities.map((e) => `${e.type} ${e.id} ${e.count}`);
    expect(ids).toEqual([
      "Gene NCBIGene:673 6",
      "Gene NCBIGene:5609 3",
      "Gene NCBIGene:150094 1",
      "Disease MESH:D008545 4",
      "Disease MESH:D003643 2",
      "Disease MESH:D005076 1",
      "Disease MESH:D003967 1",
      "Disease MESH:D004487 1",
      "Disease MESH:D007088 1",
      "Disease MESH:D012878 1",
      "Chemical MESH:C560077 8",
      "Chemical MESH:D003606 1",
      "Chemical MESH:D017239 1",
      "Species NCBITaxon:9606 5",
      "Variant rs113488022 2",
      "Variant rs121913227 2",
    ]);
    expect(article?.entities[0]).toEqual({
      type: "Gene",
      id: "NCBIGene:673",
      name: "BRAF",
      mentions: ["BRAF", "B-RAF"],
      count: 6,
      offsets: [
        [41, 4],
        [132, 5],
        [139, 4],
        [208, 4],
        [525, 4],
        [1957, 4],
      ],
    });
    expect(article?.entities.find((e) => e.id === "rs113488022")).toEqual({
      type: "Variant",
      id: "rs113488022",
      name: "p.V600E",
      gene: "NCBIGene:673",
      mentions: ["V600E"],
      count: 2,
      offsets: [
        [510, 5],
        [1962, 5],
      ],
    });
    const species = article?.entities.find((e) => e.type === "Species");
    expect(species?.name).toBeUndefined(); // PubTator's name is the bare taxon id
    expect(species?.mentions).toEqual(["patients", "Patients"]);
    expect(article?.fullText).toBeUndefined();
    expect(annotatedArticleSchema.parse(article)).toEqual(article);
  });

  it("gives offsets in BioC document coordinates that point at the mention", () => {
    const body = literatureFixture(`${DIR}/export_20516115.json`);
    const raw = JSON.parse(body) as {
      PubTator3: { passages: { offset: number; text: string }[] }[];
    };
    const passages = raw.PubTator3[0]?.passages ?? [];
    const textAt = (offset: number, length: number): string => {
      const p = [...passages].reverse().find((x) => x.offset <= offset);
      return p ? p.text.slice(offset - p.offset, offset - p.offset + length) : "";
    };
    const [article] = parsePubtatorExport(body).articles;
    expect(article?.pmcid).toBe("PMC3040717");
    const brca1 = article?.entities.find((e) => e.id === "NCBIGene:672");
    expect(brca1?.count).toBe(5);
    for (const [offset, length] of brca1?.offsets ?? [])
      expect(textAt(offset, length)).toBe("BRCA1");
    const hboc = article?.entities.find((e) => e.id === "MESH:D061325");
    expect(hboc?.mentions).toEqual(["breast and ovarian cancer", "breast or ovarian cancer"]);
  });

  it("caps mentions, offsets and entities, and filters types", () => {
    const body = literatureFixture(`${DIR}/export_22663011.json`);
    const [article] = parsePubtatorExport(body, {
      maxMentions: 1,
      maxOffsets: 2,
      maxEntities: 3,
      types: ["Gene", "Chemical"],
    }).articles;
    expect(article?.entities.map((e) => e.id)).toEqual([
      "NCBIGene:673",
      "NCBIGene:5609",
      "MESH:C560077",
    ]);
    expect(article?.entities[0]?.mentions).toEqual(["BRAF"]);
    expect(article?.entities[0]?.offsets).toHaveLength(2);
    expect(article?.counts).toEqual({ Gene: 3, Chemical: 3 });
    expect(article?.omittedEntities).toBe(3);
  });
});

describe("parsePubtatorExport (written after PubTator's PMC BioC layout)", () => {
  const doc = {
    id: "PMC123",
    pmid: 30000001,
    pmcid: "PMC123",
    passages: [
      {
        infons: { section_type: "TITLE", type: "front" },
        offset: 0,
        text: "HeLa cells",
        annotations: [
          {
            infons: { type: "CellLine", identifier: "CVCL_0030", name: "HeLa" },
            text: "HeLa",
            locations: [{ offset: 0, length: 4 }],
          },
        ],
      },
      {
        infons: { section_type: "ABSTRACT", type: "abstract" },
        offset: 11,
        text: "TP53 in HeLa.",
        annotations: [
          {
            infons: { type: "Gene", identifier: "7157;22059", database: "ncbi_gene" },
            text: "TP53",
            locations: [{ offset: 11, length: 4 }],
          },
          {
            infons: { type: "Disease", identifier: "-" },
            text: "odd thing",
            locations: [{ offset: 20, length: 9 }],
          },
        ],
      },
      {
        infons: { section_type: "INTRO", type: "paragraph" },
        offset: 25,
        text: "HeLa again.",
        annotations: [
          {
            infons: { type: "CellLine", identifier: "CVCL_0030", name: "HeLa" },
            text: "HeLa",
            locations: [{ offset: 25, length: 4 }],
          },
        ],
      },
    ],
  };

  it("reads title and abstract only unless full text is asked for", () => {
    const body = JSON.stringify({ PubTator3: [doc] });
    const [short] = parsePubtatorExport(body).articles;
    expect(short?.entities).toEqual([
      {
        type: "Gene",
        id: "NCBIGene:7157;NCBIGene:22059",
        mentions: ["TP53"],
        count: 1,
        offsets: [[11, 4]],
      },
      { type: "Disease", mentions: ["odd thing"], count: 1, offsets: [[20, 9]] },
      {
        type: "CellLine",
        id: "CVCL_0030",
        name: "HeLa",
        mentions: ["HeLa"],
        count: 1,
        offsets: [[0, 4]],
      },
    ]);
    expect(short).toMatchObject({ pmid: "30000001", pmcid: "PMC123", title: "HeLa cells" });
    const [full] = parsePubtatorExport(body, { fullText: true }).articles;
    expect(full?.fullText).toBe(true);
    expect(full?.entities.find((e) => e.type === "CellLine")?.count).toBe(2);
  });

  it("accepts JSON lines and bare arrays, and rejects what is not BioC", () => {
    const line = JSON.stringify(doc);
    expect(
      parsePubtatorExport(`${line}\n${line.replace("30000001", "30000002")}\n`).articles.map(
        (a) => a.pmid,
      ),
    ).toEqual(["30000001", "30000002"]);
    expect(parsePubtatorExport(JSON.stringify([doc])).articles).toHaveLength(1);
    expect(parsePubtatorExport("").articles).toEqual([]);
    expect(() => parsePubtatorExport("<html>502</html>")).toThrow(UpstreamError);
    expect(() => parsePubtatorExport('{"error": "bad"}')).toThrow(/documents without passages/);
  });
});

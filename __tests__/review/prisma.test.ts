import { describe, expect, it } from "@jest/globals";
import { Resvg } from "@resvg/resvg-js";
import { parseStringPromise } from "xml2js";
import { prismaSvg, type PrismaCounts } from "../../src/review/prisma.js";

interface XmlNode {
  $?: Record<string, string>;
  _?: string;
  [child: string]: unknown;
}

const children = (node: XmlNode, tag: string): XmlNode[] =>
  ((node[tag] as unknown[] | undefined) ?? []).map((c) =>
    typeof c === "string" ? { _: c } : (c as XmlNode),
  );

/** Each box's lines of text by its data-box key, and its rectangle. */
async function parseSvg(svg: string) {
  const { svg: root } = (await parseStringPromise(svg)) as { svg: XmlNode };
  const boxes: Record<string, string[]> = {};
  const rects: Record<string, Rect> = {};
  for (const g of children(root, "g")) {
    const key = g.$?.["data-box"] ?? "";
    boxes[key] = children(g, "text").map((t) => t._ ?? "");
    const rect = children(g, "rect")[0]?.$ ?? {};
    const [x, y, width, height] = ["x", "y", "width", "height"].map((k) => Number(rect[k]));
    rects[key] = { x: x!, y: y!, width: width!, height: height! };
  }
  const texts = children(root, "text").map((t) => t._ ?? "");
  return { root, boxes, rects, texts };
}

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Image {
  width: number;
  height: number;
  pixels: Buffer;
}

const render = (svg: string): Image => new Resvg(svg, { background: "white" }).render();

/** Dark pixels (text, arrows) inside a rectangle, `inset` px off its border. */
function ink({ width, height, pixels }: Image, r: Rect, inset = 3): number {
  let n = 0;
  const [top, bottom] = [
    Math.max(0, Math.ceil(r.y + inset)),
    Math.min(height, r.y + r.height - inset),
  ];
  const [left, right] = [
    Math.max(0, Math.ceil(r.x + inset)),
    Math.min(width, r.x + r.width - inset),
  ];
  for (let y = top; y < bottom; y++) {
    for (let x = left; x < right; x++) {
      const i = (y * width + x) * 4;
      if (pixels[i]! < 128 && pixels[i + 1]! < 128 && pixels[i + 2]! < 128) n++;
    }
  }
  return n;
}

const COUNTS: PrismaCounts = {
  identified: 1523,
  identified_by_source: { pubmed: 1200, europepmc: 300, citations: 23 },
  duplicates_removed: 210,
  screened: 1313,
  excluded_screening: 1180,
  reports_sought: 133,
  reports_not_retrieved: 7,
  reports_assessed: 126,
  excluded_full_text: { "Wrong population": 40, 'Wrong outcome <script>&"': 20, "Wrong design": 9 },
  included: 57,
};

describe("prismaSvg", () => {
  it("puts each count in its box", async () => {
    const svg = prismaSvg(COUNTS, "Hip fracture rehabilitation");
    const { root, boxes, texts } = await parseSvg(svg);
    expect(root.$).toMatchObject({ xmlns: "http://www.w3.org/2000/svg", width: "800" });
    expect(boxes).toEqual({
      identified: [
        "Records identified from:",
        "PubMed (n = 1,200)",
        "Europe PMC (n = 300)",
        "Citation searching (n = 23)",
        "Total (n = 1,523)",
      ],
      removed: ["Records removed before screening:", "Duplicate records removed (n = 210)"],
      screened: ["Records screened (n = 1,313)"],
      excluded_screening: ["Records excluded (n = 1,180)"],
      sought: ["Reports sought for retrieval (n = 133)"],
      not_retrieved: ["Reports not retrieved (n = 7)"],
      assessed: ["Reports assessed for eligibility (n = 126)"],
      excluded_full_text: [
        "Reports excluded:",
        "Wrong population (n = 40)",
        'Wrong outcome <script>&" (n = 20)',
        "Wrong design (n = 9)",
      ],
      included: ["Studies included in review (n = 57)"],
    });
    expect(texts).toEqual([
      "Hip fracture rehabilitation",
      "PRISMA 2020 flow diagram",
      "Identification of studies via databases and registers",
      "Identification",
      "Screening",
      "Included",
    ]);
  });

  it("names every source as the diagram shows it", async () => {
    const svg = prismaSvg({
      ...COUNTS,
      identified_by_source: { citations: 1, ids: 2, corpus: 3, europepmc: 4, pubmed: 0 },
    });
    const { boxes } = await parseSvg(svg);
    expect(boxes.identified).toEqual([
      "Records identified from:",
      "PubMed (n = 0)",
      "Europe PMC (n = 4)",
      "Local corpus (n = 3)",
      "Identifiers supplied (n = 2)",
      "Citation searching (n = 1)",
      "Total (n = 1,523)",
    ]);
  });

  it("escapes the reviewer's text and drops characters XML forbids", async () => {
    const svg = prismaSvg(
      { ...COUNTS, excluded_full_text: { "<script>&\"'\u0001": 3, "a]]>b": 2 } },
      "</svg><svg>",
    );
    expect(svg).not.toContain("<script");
    expect(svg).toContain("&#60;script&#62;&#38;&#34;&#39; (n = 3)");
    const { boxes, texts } = await parseSvg(svg);
    expect(boxes.excluded_full_text).toEqual([
      "Reports excluded:",
      "<script>&\"' (n = 3)",
      "a]]>b (n = 2)",
    ]);
    expect(texts[0]).toEqual("</svg><svg>");
  });

  it("keeps its size bounded: six reasons at most, each cut to two lines", async () => {
    const reasons = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`Reason ${i} ${"WWW mmm text ".repeat(40)}`, 100 - i]),
    );
    const svg = prismaSvg({ ...COUNTS, excluded_full_text: reasons }, "W".repeat(500));
    const { root, boxes, texts } = await parseSvg(svg);
    const excluded = boxes.excluded_full_text ?? [];
    // Five reasons of two lines each, then the rest summed.
    expect(excluded).toHaveLength(1 + 5 * 2 + 1);
    expect(excluded[2]).toMatch(/… \(n = 100\)$/);
    // 95 + 94 + … + 71: the 25 smallest.
    expect(excluded.at(-1)).toEqual("Other reasons (n = 2,075)");
    expect(texts[0]).toMatch(/^W+…$/);
    expect(Number(root.$?.height)).toBeLessThan(900);
  });

  it("renders to PNG with ink inside every box", async () => {
    const svg = prismaSvg(COUNTS, "Hip fracture rehabilitation");
    const { rects } = await parseSvg(svg);
    const image = render(svg);
    expect(image.width).toEqual(800);
    const keys = Object.keys(rects);
    expect(keys).toHaveLength(9);
    for (const key of keys) expect([key, ink(image, rects[key]!) > 100]).toEqual([key, true]);
    // Beside the last box, where the diagram has no box, nothing is drawn.
    const included = rects.included!;
    expect(ink(image, { ...included, x: rects.removed!.x })).toEqual(0);
  });

  it("keeps the widest text inside its boxes", async () => {
    const wide = "WWW MMM @@@ QODG ÆØÅ ".repeat(30);
    const svg = prismaSvg({ ...COUNTS, excluded_full_text: { [wide]: 3, [`${wide}x`]: 2 } }, wide);
    const { rects } = await parseSvg(svg);
    const image = render(svg);
    const side = rects.removed!;
    // Right of the right-hand boxes' border: the margin.
    const margin = { x: side.x + side.width + 2, y: 0, width: 12, height: image.height };
    expect(ink(image, margin)).toEqual(0);
    // Between the columns, below the title, only the arrows at the middle of each right-hand box's row.
    const main = rects.screened!;
    const gap = { x: main.x + main.width + 2, width: side.x - main.x - main.width - 4, height: 1 };
    const arrowRows = Object.values(rects)
      .filter((r) => r.x === side.x)
      .map((r) => r.y + r.height / 2);
    for (let y = rects.identified!.y; y < image.height - 1; y++) {
      if (arrowRows.some((a) => Math.abs(a - y) < 8)) continue;
      expect([y, ink(image, { ...gap, y }, 0)]).toEqual([y, 0]);
    }
  });

  it("is deterministic", () => {
    expect(prismaSvg(COUNTS)).toEqual(prismaSvg(COUNTS));
  });
});

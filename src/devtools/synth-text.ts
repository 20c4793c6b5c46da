/**
 * Text for synthetic records: template filling, XML escaping, and the title and abstract.
 * Vocabulary and templates are "source" strings: raw characters plus the inline tags PubMed
 * uses (<i>, <b>, <u>, <sup>, <sub>). `toMarkup` escapes everything else; `toPlain` drops the
 * tags, which is how the parser flattens them.
 */
import { Rng } from "./synth-random.js";
import type { SynthAbstractSection } from "./synth-types.js";
import { vocabulary } from "./synth-vocab.js";

// XML 1.0 forbids C0 controls other than tab, LF and CR; a caller's term may carry them.
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /[&<>\u0000-\u0008\u000b\u000c\u000e-\u001f]/;
// eslint-disable-next-line no-control-regex
const ESCAPABLE = /[&<>\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;
const INLINE_TAG = /<\/?(?:i|b|u|sup|sub)>/g;
const ESCAPED_INLINE_TAG = /&lt;(\/?)(i|b|u|sup|sub)&gt;/g;

/** Escapes XML character data (quotes stay literal, as NCBI writes them); drops characters XML forbids. */
export function esc(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(ESCAPABLE, (c) =>
    c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "",
  );
}

/** Escapes a value for a double-quoted attribute. */
export function escAttr(text: string): string {
  return esc(text).replace(/"/g, "&quot;");
}

export function toMarkup(source: string): string {
  return esc(source).replace(ESCAPED_INLINE_TAG, "<$1$2>");
}

export function toPlain(source: string): string {
  return source.replace(INLINE_TAG, "");
}

/** Upper-cases a leading lowercase word ("metformin" → "Metformin"), never "eGFR" or "<i>…". */
export function capitalize(text: string): string {
  const a = text.charAt(0);
  const b = text.charAt(1);
  if (a >= "a" && a <= "z" && !(b >= "A" && b <= "Z") && !(b >= "0" && b <= "9")) {
    return a.toUpperCase() + text.slice(1);
  }
  return text;
}

type Piece = string | { name: string; capital: boolean };
const compiled = new Map<string, Piece[]>();

/** Splits a template once into literal text and {placeholders}; filling is then concatenation. */
function compile(template: string): Piece[] {
  let pieces = compiled.get(template);
  if (!pieces) {
    pieces = template.split(/(\{\w+\})/).map((part): Piece => {
      if (!/^\{\w+\}$/.test(part)) return part;
      const name = part.slice(1, -1);
      const lower = name.charAt(0).toLowerCase() + name.slice(1);
      return { name: lower, capital: lower !== name };
    });
    compiled.set(template, pieces);
  }
  return pieces;
}

/** Replaces {name} with values[name] and {Name} with the capitalised value; unknown names stay. */
export function fill(template: string, values: Readonly<Record<string, string>>): string {
  let out = "";
  for (const piece of compile(template)) {
    if (typeof piece === "string") {
      out += piece;
      continue;
    }
    const value = values[piece.name];
    if (value === undefined) out += `{${piece.capital ? capitalize(piece.name) : piece.name}}`;
    else out += piece.capital ? capitalize(value) : value;
  }
  return out;
}

export type Design =
  "research" | "rct" | "trial" | "meta" | "sysrev" | "review" | "observational" | "case" | "basic";

type TitleKind = keyof ReturnType<typeof vocabulary>["titles"];

const TITLE_KIND: Record<Design, TitleKind> = {
  research: "observational",
  rct: "rct",
  trial: "rct",
  meta: "meta",
  sysrev: "sysrev",
  review: "review",
  observational: "observational",
  case: "case",
  basic: "basic",
};

/** Source-form title: templates end with a period, as PubMed titles do. */
export function drawTitle(rng: Rng, design: Design, slots: Record<string, string>): string {
  return fill(rng.pick(vocabulary().titles[TITLE_KIND[design]]), slots);
}

/** Numbers for one version of an abstract; a revised abstract draws new ones. */
function numbers(rng: Rng): Record<string, string> {
  const hr = 0.45 + rng.next() * 0.9;
  const spread = 0.05 + rng.next() * 0.25;
  const p = rng.pick(["< 0.001", "= 0.002", "= 0.01", "= 0.03", "= 0.21", "= 0.48"]);
  return {
    n: String(rng.int(40, 25_000)),
    sites: String(rng.int(2, 60)),
    months: String(rng.pick([3, 6, 12, 18, 24, 36, 52])),
    hr: hr.toFixed(2),
    ciLow: (hr - spread).toFixed(2),
    ciHigh: (hr + spread).toFixed(2),
    p,
    ...meanDifference(rng),
    k: String(rng.int(5, 64)),
    i2: String(rng.int(0, 85)),
    pct: String(rng.int(2, 60)),
    pct2: String(rng.int(2, 60)),
  };
}

function meanDifference(rng: Rng): Record<string, string> {
  const diff = (rng.next() - 0.5) * 12;
  const half = 0.3 + rng.next() * 2;
  return { diff: diff.toFixed(1), dLow: (diff - half).toFixed(1), dHigh: (diff + half).toFixed(1) };
}

type Section = keyof ReturnType<typeof vocabulary>["sentences"];

const LABELS: Record<Section, [label: string, category: string][]> = {
  background: [
    ["BACKGROUND", "BACKGROUND"],
    ["INTRODUCTION", "BACKGROUND"],
  ],
  objective: [
    ["OBJECTIVE", "OBJECTIVE"],
    ["AIMS", "OBJECTIVE"],
  ],
  methods: [
    ["METHODS", "METHODS"],
    ["DESIGN, SETTING, AND PARTICIPANTS", "METHODS"],
  ],
  results: [
    ["RESULTS", "RESULTS"],
    ["FINDINGS", "RESULTS"],
  ],
  conclusions: [
    ["CONCLUSIONS", "CONCLUSIONS"],
    ["CONCLUSIONS AND RELEVANCE", "CONCLUSIONS"],
    ["INTERPRETATION", "CONCLUSIONS"],
  ],
};

function section(rng: Rng, which: Section, values: Record<string, string>, sentences: number) {
  const pool = vocabulary().sentences[which];
  return rng
    .sample(pool, sentences)
    .map((t) => fill(t, values))
    .join(" ");
}

/**
 * A structured abstract (labelled sections with NlmCategory) or a plain one; none for some
 * case reports, as in PubMed. `rng` is the record's abstract stream for the current version.
 */
export function drawAbstract(
  rng: Rng,
  design: Design,
  slots: Record<string, string>,
): SynthAbstractSection[] {
  if (design === "case" && rng.chance(0.25)) return [];
  const values = { ...slots, ...numbers(rng) };
  const structuredShare = design === "review" || design === "case" ? 0.2 : 0.65;
  const parts: [Section, number][] = [
    ["background", 1],
    ["objective", rng.chance(0.4) ? 1 : 0],
    ["methods", rng.int(1, 2)],
    ["results", rng.int(2, 3)],
    ["conclusions", 1],
  ];
  const drawn = parts
    .filter(([, n]) => n > 0)
    .map(([which, n]) => ({ which, source: section(rng, which, values, n) }));
  if (!rng.chance(structuredShare)) {
    const source = drawn.map((d) => d.source).join(" ");
    return [{ label: null, nlmCategory: null, markup: toMarkup(source), text: toPlain(source) }];
  }
  return drawn.map(({ which, source }) => {
    const [label, nlmCategory] = rng.pick(LABELS[which]);
    return { label, nlmCategory, markup: toMarkup(source), text: toPlain(source) };
  });
}

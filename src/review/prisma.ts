/**
 * The PRISMA 2020 flow diagram for a new systematic review (databases and registers only; Page et
 * al., BMJ 2021;372:n71, figure 1) as a standalone SVG document, written by hand: phase labels on
 * the left, the main column of records and reports, the removals on the right.
 *
 * The look follows the trend chart (src/live/chart.ts): its font stack, 14 px title, 11 px
 * #555 subtitle and the #4c78a8 of its line. Text is wrapped by an estimate of glyph width (no
 * font metrics without a canvas) that errs wide, so lines stay inside their boxes in Arial and
 * in DejaVu Sans. The size is bounded: at most six exclusion reasons (the rest summed as "Other
 * reasons"), each cut to two lines; the title is cut to one.
 */
import { REVIEW_SOURCES, type PrismaCounts, type ReviewSource } from "../store/review-types.js";

export type { PrismaCounts };

export const SOURCE_NAMES: Readonly<Record<ReviewSource, string>> = {
  pubmed: "PubMed",
  europepmc: "Europe PMC",
  corpus: "Local corpus",
  ids: "Identifiers supplied",
  citations: "Citation searching",
};

const WIDTH = 800;
const FONT = "Arial, Helvetica, DejaVu Sans, sans-serif";
const BLUE = "#4c78a8";
const TINT = "#dbe5f0";
const INK = "#222";
const FONT_SIZE = 12;
const LINE_HEIGHT = 16;
const PHASE_FONT_SIZE = 12;
const PAD = 10;
const PHASE = { x: 16, width: 32 };
const MAIN = { x: 64, width: 320 };
const SIDE = { x: 448, width: 336 };
const ROW_GAP = 30;
/** Reasons listed one by one; past this many the smallest are summed as "Other reasons". */
const MAX_REASONS = 6;
const MAX_REASON_LINES = 2;
const TITLE_FONT_SIZE = 14;

/**
 * Text for XML: the five escapes, and characters XML 1.0 forbids (C0 controls but tab and line
 * breaks, lone surrogates, U+FFFE/FFFF) dropped, since a reason may hold anything.
 */
function xmlEscape(text: string): string {
  // eslint-disable-next-line no-control-regex -- the controls XML 1.0 forbids
  const forbidden = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
  const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
  return text
    .replace(forbidden, "")
    .replace(loneSurrogate, "")
    .replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const count = (n: number): string =>
  `(n = ${(Number.isFinite(n) ? Math.max(0, Math.round(n)) : 0).toLocaleString("en-US")})`;

/**
 * A glyph's advance in em, rounded up from DejaVu Sans (the widest of the font stack; Arial is
 * narrower), so text measured by it stays inside its box whichever font renders it.
 */
function em(char: string): number {
  if (/[ .,:;'|!ilIj]/.test(char)) return 0.34;
  if (/[frt()[\]{}\-/]/.test(char)) return 0.42;
  if (/[mMW@%…]/.test(char)) return 1.0;
  if (/[w=+<>~^#&]/.test(char)) return 0.86;
  if (/[A-Z]/.test(char)) return 0.78;
  if (/[a-z0-9"$*?_]/.test(char)) return 0.65;
  // Wide scripts (CJK, Hangul, fullwidth forms) take a whole em; other letters as capitals.
  return (char.codePointAt(0) ?? 0) >= 0x2e80 ? 1.0 : 0.78;
}

/** Estimated width of `text` in px at `size` px. */
const measure = (text: string, size = FONT_SIZE): number =>
  [...text].reduce((sum, c) => sum + em(c) * size, 0);

/** Cut to fit `max` px with an ellipsis; `force` adds it even when the text fits (it was cut before). */
function cut(text: string, max: number, force = false, size = FONT_SIZE): string {
  const chars = [...text.replace(/\s+/g, " ").trim()];
  if (!force && measure(chars.join(""), size) <= max) return chars.join("");
  while (chars.length > 0 && measure(`${chars.join("")}…`, size) > max) chars.pop();
  return `${chars.join("").trimEnd()}…`;
}

/**
 * Greedy word wrap at `max` px; a count "(n = 1,234)" is never split and a word wider than a line
 * is broken.
 */
function wrap(text: string, max: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.match(/\(n = [^)]*\)|\S+/g) ?? []) {
    if (line && measure(`${line} ${word}`) <= max) {
      line += ` ${word}`;
      continue;
    }
    if (line) lines.push(line);
    line = "";
    for (const char of word) {
      if (line && measure(line + char) > max) {
        lines.push(line);
        line = "";
      }
      line += char;
    }
  }
  return line ? [...lines, line] : lines;
}

interface Box {
  key: string;
  lines: string[];
}

const textWidth = (boxWidth: number): number => boxWidth - 2 * PAD;
const boxHeight = (box: Box): number => 2 * PAD + box.lines.length * LINE_HEIGHT;
const lines = (width: number, ...texts: string[]): string[] =>
  texts.flatMap((t) => wrap(t, textWidth(width)));

/** One reason and its count in at most MAX_REASON_LINES lines, the reason cut to make room. */
function reasonEntry(reason: string, n: number): string[] {
  const width = textWidth(SIDE.width);
  const suffix = count(n);
  const wrapped = wrap(reason.trim() || "Unspecified", width);
  const kept = wrapped.slice(0, MAX_REASON_LINES);
  const truncated = wrapped.length > kept.length;
  const last = kept.pop() ?? "";
  if (!truncated && measure(`${last} ${suffix}`) <= width) return [...kept, `${last} ${suffix}`];
  if (!truncated && kept.length + 1 < MAX_REASON_LINES) return [...kept, last, suffix];
  return [...kept, `${cut(last, width - measure(` ${suffix}`), truncated)} ${suffix}`];
}

/** Reasons by count (most first, then by name); past MAX_REASONS the smallest are summed. */
function reasonLines(excluded: Record<string, number>): string[] {
  const reasons = Object.entries(excluded)
    .filter(([, n]) => n > 0)
    .sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0));
  const shown = reasons.length > MAX_REASONS ? reasons.slice(0, MAX_REASONS - 1) : reasons;
  const others = reasons.slice(shown.length).reduce((sum, [, n]) => sum + n, 0);
  const entries = shown.map(([reason, n]) => reasonEntry(reason, n));
  if (others > 0) entries.push([`Other reasons ${count(others)}`]);
  return entries.flat();
}

function boxSvg(box: Box, x: number, y: number, width: number): string {
  const text = box.lines.map(
    (line, i) =>
      `<text x="${x + PAD}" y="${y + PAD + FONT_SIZE + i * LINE_HEIGHT}">${xmlEscape(line)}</text>`,
  );
  return [
    `<g class="prisma-box" data-box="${box.key}">`,
    `<rect x="${x}" y="${y}" width="${width}" height="${boxHeight(box)}" rx="3" fill="white" stroke="${BLUE}" stroke-width="1.5"/>`,
    ...text,
    "</g>",
  ].join("\n");
}

/** A straight arrow, its head a filled triangle (no marker ids to clash when inlined twice). */
function arrow(x1: number, y1: number, x2: number, y2: number): string {
  const angle = Math.atan2(y2 - y1, x2 - x1);
  const back = (r: number, a: number): [string, string] => [
    (x2 - r * Math.cos(angle + a)).toFixed(1),
    (y2 - r * Math.sin(angle + a)).toFixed(1),
  ];
  const [lx, ly] = back(8, 0);
  const head = [[String(x2), String(y2)], back(9, 0.45), back(9, -0.45)];
  return [
    `<line x1="${x1}" y1="${y1}" x2="${lx}" y2="${ly}" stroke="${INK}" stroke-width="1.5"/>`,
    `<polygon points="${head.map((p) => p.join(",")).join(" ")}" fill="${INK}"/>`,
  ].join("\n");
}

/** A phase label's length along its bar (bold: a tenth wider than `measure`), with padding. */
const labelSpan = (label: string): number =>
  Math.ceil(measure(label, PHASE_FONT_SIZE) * 1.1) + 2 * PAD;
/** The least height of each row: a phase of one row must be as tall as its rotated label. */
const PHASE_ROWS = [labelSpan("Identification"), 0, 0, 0, labelSpan("Included")];

function phaseSvg(label: string, top: number, bottom: number): string {
  const cx = PHASE.x + PHASE.width / 2;
  const cy = (top + bottom) / 2;
  return [
    `<rect x="${PHASE.x}" y="${top}" width="${PHASE.width}" height="${bottom - top}" rx="3" fill="${BLUE}"/>`,
    `<text x="${cx}" y="${cy}" transform="rotate(-90 ${cx} ${cy})" text-anchor="middle" dominant-baseline="central" font-size="${PHASE_FONT_SIZE}" font-weight="bold" fill="white">${label}</text>`,
  ].join("\n");
}

/** The rows of the diagram: a main box and, but for the last, the box its arrow points to. */
function rows(c: PrismaCounts): [Box, Box | undefined][] {
  const sources = REVIEW_SOURCES.filter((s) => c.identified_by_source[s] !== undefined).map(
    (s) => `${SOURCE_NAMES[s]} ${count(c.identified_by_source[s] ?? 0)}`,
  );
  const reasons = reasonLines(c.excluded_full_text);
  return [
    [
      {
        key: "identified",
        lines: lines(
          MAIN.width,
          "Records identified from:",
          ...sources,
          `Total ${count(c.identified)}`,
        ),
      },
      {
        key: "removed",
        lines: lines(
          SIDE.width,
          "Records removed before screening:",
          `Duplicate records removed ${count(c.duplicates_removed)}`,
        ),
      },
    ],
    [
      { key: "screened", lines: lines(MAIN.width, `Records screened ${count(c.screened)}`) },
      {
        key: "excluded_screening",
        lines: lines(SIDE.width, `Records excluded ${count(c.excluded_screening)}`),
      },
    ],
    [
      {
        key: "sought",
        lines: lines(MAIN.width, `Reports sought for retrieval ${count(c.reports_sought)}`),
      },
      {
        key: "not_retrieved",
        lines: lines(SIDE.width, `Reports not retrieved ${count(c.reports_not_retrieved)}`),
      },
    ],
    [
      {
        key: "assessed",
        lines: lines(MAIN.width, `Reports assessed for eligibility ${count(c.reports_assessed)}`),
      },
      {
        key: "excluded_full_text",
        lines:
          reasons.length > 0 ? ["Reports excluded:", ...reasons] : ["Reports excluded (n = 0)"],
      },
    ],
    [
      {
        key: "included",
        lines: lines(MAIN.width, `Studies included in review ${count(c.included)}`),
      },
      undefined,
    ],
  ];
}

/** The diagram as an SVG document (with an xmlns), 800 px wide; deterministic. */
export function prismaSvg(counts: PrismaCounts, title?: string): string {
  const parts: string[] = [];
  let y = 16;
  // Bold glyphs are about a tenth wider than the regular ones `em` measures.
  const heading = title?.trim()
    ? cut(title, (WIDTH - 2 * PHASE.x) / 1.1, false, TITLE_FONT_SIZE)
    : "";
  if (heading) {
    parts.push(
      `<text x="${PHASE.x}" y="${y + 14}" font-size="${TITLE_FONT_SIZE}" font-weight="bold" fill="${INK}">${xmlEscape(heading)}</text>`,
      `<text x="${PHASE.x}" y="${y + 32}" font-size="11" fill="#555">PRISMA 2020 flow diagram</text>`,
    );
    y += 48;
  }
  const bannerWidth = SIDE.x + SIDE.width - MAIN.x;
  parts.push(
    `<rect x="${MAIN.x}" y="${y}" width="${bannerWidth}" height="28" rx="3" fill="${TINT}"/>`,
    `<text x="${MAIN.x + bannerWidth / 2}" y="${y + 19}" text-anchor="middle" font-size="13" font-weight="bold" fill="${INK}">Identification of studies via databases and registers</text>`,
  );
  y += 28 + 20;
  const spans: [number, number][] = [];
  let previousBottom: number | undefined;
  for (const [i, [main, side]] of rows(counts).entries()) {
    const height = Math.max(boxHeight(main), side ? boxHeight(side) : 0, PHASE_ROWS[i] ?? 0);
    const mainY = y + (height - boxHeight(main)) / 2;
    if (previousBottom !== undefined) {
      parts.push(arrow(MAIN.x + MAIN.width / 2, previousBottom, MAIN.x + MAIN.width / 2, mainY));
    }
    parts.push(boxSvg(main, MAIN.x, mainY, MAIN.width));
    if (side) {
      parts.push(boxSvg(side, SIDE.x, y + (height - boxHeight(side)) / 2, SIDE.width));
      parts.push(arrow(MAIN.x + MAIN.width, y + height / 2, SIDE.x, y + height / 2));
    }
    spans.push([y, y + height]);
    previousBottom = mainY + boxHeight(main);
    y += height + ROW_GAP;
  }
  const [identification, screenedRow, , assessedRow, includedRow] = spans;
  if (identification && screenedRow && assessedRow && includedRow) {
    parts.push(
      phaseSvg("Identification", identification[0], identification[1]),
      phaseSvg("Screening", screenedRow[0], assessedRow[1]),
      phaseSvg("Included", includedRow[0], includedRow[1]),
    );
  }
  const height = Math.ceil(y - ROW_GAP + 16);
  const label = xmlEscape(heading || "PRISMA 2020 flow diagram");
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" font-family="${FONT}" font-size="${FONT_SIZE}" fill="${INK}">`,
    `<title>${label}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="white"/>`,
    ...parts,
    "</svg>",
    "",
  ].join("\n");
}

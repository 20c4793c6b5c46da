/**
 * The labelled screening topics of /work/shared/screening (README there): Cohen et al. 2006's
 * drug-class reviews as ASReview distributes them. One CSV per topic; `label2` (final inclusion)
 * is the simulated reviewer's answer, `label1` (title/abstract inclusion) is kept for reference.
 */
import { readFileSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import type { ScreenDoc } from "../../src/review/screener.js";

export interface ScreeningTopic {
  name: string;
  docs: ScreenDoc[];
  /** label2 per record, in file order: true = included in the final review. */
  included: boolean[];
  /** label1 per record: included at title/abstract screening. */
  includedAtAbstract: boolean[];
}

export const DEFAULT_SCREENING_DIR = "/work/shared/screening";

/** RFC 4180: fields separated by commas, quoted with "", "" inside quotes is one quote. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  const endField = (): void => {
    row.push(field);
    field = "";
  };
  const endRow = (): void => {
    endField();
    rows.push(row);
    row = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (quoted) {
      field += c;
    } else if (c === ",") {
      endField();
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      endRow();
    } else {
      field += c;
    }
  }
  if (field !== "" || row.length > 0) endRow();
  return rows.filter((r) => r.length > 1 || r[0] !== "");
}

/** One topic's CSV (columns pubmedID, title, keywords, authors, abstracts, label1, label2). */
export function readTopic(file: string): ScreeningTopic {
  const [header, ...rows] = parseCsv(readFileSync(file, "utf8"));
  if (!header) throw new Error(`${file}: empty`);
  const col = (name: string): number => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`${file}: no column ${name}`);
    return i;
  };
  const [id, title, keywords, abstracts, label1, label2] = [
    "pubmedID",
    "title",
    "keywords",
    "abstracts",
    "label1",
    "label2",
  ].map(col) as [number, number, number, number, number, number];
  const docs: ScreenDoc[] = rows.map((r) => ({
    id: `pmid:${r[id] ?? ""}`,
    title: r[title] ?? "",
    abstract: r[abstracts] === "NA" ? "" : (r[abstracts] ?? ""),
    mesh: (r[keywords] ?? "")
      .split(";")
      .map((k) => k.trim())
      .filter((k) => k && k !== "NA"),
    pubTypes: [],
  }));
  return {
    name: basename(file, ".csv"),
    docs,
    included: rows.map((r) => r[label2] === "I"),
    includedAtAbstract: rows.map((r) => r[label1] === "I"),
  };
}

/** Every `*.csv` topic of a folder, by name. */
export function readTopics(dir = DEFAULT_SCREENING_DIR): ScreeningTopic[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".csv"))
    .sort()
    .map((f) => readTopic(join(dir, f)));
}

/**
 * Budgets for a `pubmed_fulltext` article, so an answer fits a context window.
 *
 * What counts toward `maxCharacters` (UTF-16 code units, JavaScript's `length`): the title, the
 * abstract, section titles, paragraphs, figure / table / supplementary labels and captions, table
 * rows and reference lines when they are asked for. Identifiers, journal, date, article type and
 * licence are bounded metadata and do not count.
 *
 * Fill order is reading order: title, abstract, sections, figures, tables, supplementary
 * material, references. Paragraphs (and captions, references) are kept whole; the first one that
 * does not fit ends the answer, and it and everything after it are listed in `truncated`. Only when
 * no paragraph at all has been kept yet — a single paragraph larger than the whole remaining
 * budget — is that paragraph cut, at a sentence (else word) boundary, never inside a surrogate
 * pair, and marked with CUT_MARK.
 *
 * `sections` keeps the sections whose title contains one of the given strings (case-insensitive),
 * with their subsections; their ancestors stay as bare headings for context. "abstract",
 * "figures", "tables" and "supplementary material" select those parts the same way; without
 * `sections` everything is selected. `mode: "outline"` returns section titles with their sizes
 * instead of text, so an agent can ask for the parts it wants; `maxCharacters` does not apply to it.
 */
import type { FulltextArticle, JatsArticle, JatsSection } from "./fulltext-types.js";
import { compact } from "./reply.js";

export const DEFAULT_MAX_CHARACTERS = 12_000;
/** Appended to a paragraph cut short; counts toward the budget. */
export const CUT_MARK = " […]";
/** Below this many characters left, a paragraph is dropped rather than cut to a stub. */
const MIN_CUT = 80;

export interface BudgetOptions {
  maxCharacters?: number;
  sections?: readonly string[];
  mode?: "full" | "outline";
  includeReferences?: boolean;
  /** Table rows as "cell | cell" lines under each table's caption. */
  includeTables?: boolean;
}

type Truncated = NonNullable<FulltextArticle["truncated"]>;
type OutSection = NonNullable<FulltextArticle["sections"]>[number];

export function applyBudget(article: JatsArticle, options: BudgetOptions = {}): FulltextArticle {
  const filters = (options.sections ?? []).map((s) => s.trim().toLowerCase()).filter((s) => s);
  const wants = (name: string): boolean =>
    filters.length === 0 || filters.some((f) => name.toLowerCase().includes(f));
  const selected = selectSections(article.sections, filters);
  const out = metadata(article);
  if (filters.length > 0) {
    const pseudo = ["abstract", "figures", "tables", "supplementary material"];
    const unmatched = filters.filter(
      (f) =>
        !pseudo.some((p) => p.includes(f)) &&
        !article.sections.some((s) => s.title?.toLowerCase().includes(f)),
    );
    if (unmatched.length > 0) out.unmatchedSections = unmatched;
  }
  if (options.mode === "outline") return outline(article, out, selected, wants("abstract"));

  const budget = new Budget(options.maxCharacters ?? DEFAULT_MAX_CHARACTERS);
  budget.take(article.title.length); // the title is always returned
  if (article.abstract !== undefined && wants("abstract")) {
    const [kept] = budget.fill("Abstract", [article.abstract]);
    if (kept[0] !== undefined) out.abstract = kept[0];
  }
  const sections: OutSection[] = [];
  article.sections.forEach((section, i) => {
    const choice = selected[i];
    if (choice === "skip") return;
    const head: OutSection = { level: section.level };
    if (section.title !== undefined) head.title = section.title;
    const name = sectionPath(article.sections, i);
    if (choice === "heading" || section.paragraphs.length === 0) {
      if (budget.stopped) return budget.drop(name, [], section.title?.length ?? 0);
      budget.take(section.title?.length ?? 0);
      sections.push(head);
      return;
    }
    if (budget.stopped) {
      budget.drop(name, section.paragraphs, section.title?.length ?? 0);
      return;
    }
    budget.take(section.title?.length ?? 0);
    const [kept] = budget.fill(name, section.paragraphs);
    if (kept.length > 0) sections.push({ ...head, paragraphs: kept });
  });
  if (sections.length > 0) out.sections = sections;

  // Captions, table rows and references are kept whole or dropped, never cut.
  const captionLength = (c: { label?: string; caption?: string }): number =>
    (c.label?.length ?? 0) + (c.caption?.length ?? 0);
  if (article.figures.length > 0 && wants("figures")) {
    const count = budget.fillWhole("Figures", article.figures.map(captionLength));
    if (count > 0) out.figures = article.figures.slice(0, count).map(captionOnly);
  }
  if (article.tables.length > 0 && wants("tables")) {
    const rows = (t: JatsArticle["tables"][number]): string[] =>
      options.includeTables === true ? t.rows : [];
    const lengths = article.tables.map(
      (t) => captionLength(t) + rows(t).reduce((n, r) => n + r.length, 0),
    );
    const count = budget.fillWhole("Tables", lengths);
    if (count > 0) {
      out.tables = article.tables.slice(0, count).map((t) => {
        const item: NonNullable<FulltextArticle["tables"]>[number] = captionOnly(t);
        if (rows(t).length > 0) item.rows = rows(t);
        return item;
      });
    }
  }
  if (article.supplementary.length > 0 && wants("supplementary material")) {
    const count = budget.fillWhole(
      "Supplementary material",
      article.supplementary.map(captionLength),
    );
    if (count > 0) out.supplementary = article.supplementary.slice(0, count).map(captionOnly);
  }
  if (options.includeReferences === true && article.references.length > 0) {
    const count = budget.fillWhole(
      "References",
      article.references.map((r) => r.citation.length),
    );
    if (count > 0) out.references = article.references.slice(0, count);
  }
  const account = budget.account();
  if (account !== null) out.truncated = account;
  return out;
}

/** "keep" a matching section or a descendant of one, "heading" an ancestor of one, else "skip". */
function selectSections(
  sections: readonly JatsSection[],
  filters: readonly string[],
): ("keep" | "heading" | "skip")[] {
  if (filters.length === 0) return sections.map(() => "keep");
  const choice: ("keep" | "heading" | "skip")[] = sections.map(() => "skip");
  const stack: number[] = []; // indexes of the open ancestors of the current section
  sections.forEach((section, i) => {
    while (stack.length > 0 && (sections[stack.at(-1) ?? 0]?.level ?? 0) >= section.level) {
      stack.pop();
    }
    const title = section.title?.toLowerCase() ?? "";
    const matches = title !== "" && filters.some((f) => title.includes(f));
    if (matches || stack.some((a) => choice[a] === "keep")) {
      choice[i] = "keep";
      for (const a of stack) if (choice[a] === "skip") choice[a] = "heading";
    }
    stack.push(i);
  });
  return choice;
}

/** "Results > Meta-analysis": titles from the top level down, "(untitled)" for none. */
function sectionPath(sections: readonly JatsSection[], index: number): string {
  const path: string[] = [];
  let level = Number.POSITIVE_INFINITY;
  for (let i = index; i >= 0; i--) {
    const s = sections[i];
    if (s === undefined || s.level >= level) continue;
    path.unshift(s.title ?? "(untitled)");
    level = s.level;
  }
  return path.join(" > ");
}

function outline(
  article: JatsArticle,
  out: FulltextArticle,
  selected: readonly ("keep" | "heading" | "skip")[],
  withAbstract: boolean,
): FulltextArticle {
  if (article.abstract !== undefined && withAbstract) {
    out.abstractCharacters = article.abstract.length;
  }
  const own = article.sections.map((s) => s.paragraphs.reduce((n, p) => n + p.length, 0));
  const sections = article.sections.flatMap((section, i): OutSection[] => {
    if (selected[i] === "skip") return [];
    let total = own[i] ?? 0;
    for (let j = i + 1; j < article.sections.length; j++) {
      if ((article.sections[j]?.level ?? 0) <= section.level) break;
      total += own[j] ?? 0;
    }
    const item: OutSection = { level: section.level };
    if (section.title !== undefined) item.title = section.title;
    item.characters = own[i] ?? 0;
    if (total !== item.characters) item.totalCharacters = total;
    return [item];
  });
  if (sections.length > 0) out.sections = sections;
  return out;
}

function metadata(article: JatsArticle): FulltextArticle {
  return compact({
    pmid: article.pmid,
    pmcid: article.pmcid,
    doi: article.doi,
    title: article.title,
    articleType: article.articleType,
    journal: article.journal,
    publicationDate: article.publicationDate,
    license: article.license,
    referenceCount: article.referenceCount,
  });
}

function captionOnly(c: { label?: string; caption?: string }): {
  label?: string;
  caption?: string;
} {
  return compact({ label: c.label, caption: c.caption });
}

/** Cuts `text` to at most `limit` code units at a sentence, else word, boundary. */
export function cutText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = Math.max(0, limit);
  // Never end on the first half of a surrogate pair (an emoji or other astral character).
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  const head = text.slice(0, end);
  const floor = Math.floor(end / 2);
  let sentence = -1;
  for (const m of head.matchAll(/[.!?…]["'”’)\]]*(?=\s)/g)) sentence = m.index + m[0].length;
  if (sentence >= floor) return head.slice(0, sentence);
  const space = head.search(/\s\S*$/);
  if (space >= floor) return head.slice(0, space).trimEnd();
  return head;
}

/** The running budget and its account of what was dropped or cut, per part of the article. */
class Budget {
  private remaining: number;
  private returned = 0;
  /** Dropped characters not listed per part: titles of sections dropped whole, cut marks. */
  private unlisted = 0;
  private keptParagraph = false;
  stopped = false;
  private readonly parts: Truncated["sections"] = [];

  constructor(max: number) {
    this.remaining = max;
  }

  take(n: number): void {
    this.remaining -= n;
    this.returned += n;
  }

  /** Keeps leading paragraphs while they fit (cutting one only as the module header says). */
  fill(name: string, texts: readonly string[]): [string[], number] {
    const kept: string[] = [];
    for (const [i, text] of texts.entries()) {
      if (!this.stopped && text.length <= this.remaining) {
        kept.push(text);
        this.take(text.length);
        this.keptParagraph = true;
        continue;
      }
      const room = this.remaining - CUT_MARK.length;
      if (!this.stopped && !this.keptParagraph && room >= MIN_CUT) {
        const cut = cutText(text, room);
        kept.push(cut + CUT_MARK);
        this.take(cut.length + CUT_MARK.length);
        this.unlisted -= CUT_MARK.length; // the mark is returned but is not the article's text
        this.record(
          name,
          texts.slice(i + 1).map((t) => t.length),
          text.length - cut.length,
          true,
        );
      } else {
        this.record(
          name,
          texts.slice(i).map((t) => t.length),
          0,
          false,
        );
      }
      this.stopped = true;
      break;
    }
    return [kept, kept.length];
  }

  /** Keeps leading items (of the given lengths) while they fit; returns how many. */
  fillWhole(name: string, lengths: readonly number[]): number {
    for (const [i, length] of lengths.entries()) {
      if (!this.stopped && length <= this.remaining) {
        this.take(length);
        continue;
      }
      this.record(name, lengths.slice(i), 0, false);
      this.stopped = true;
      return i;
    }
    return lengths.length;
  }

  drop(name: string, texts: readonly string[], titleLength: number): void {
    this.unlisted += titleLength;
    this.record(
      name,
      texts.map((t) => t.length),
      0,
      false,
    );
  }

  private record(name: string, dropped: readonly number[], cutChars: number, cut: boolean): void {
    if (dropped.length === 0 && !cut) return;
    const entry: Truncated["sections"][number] = {
      section: name,
      paragraphsDropped: dropped.length,
      charactersDropped: cutChars + dropped.reduce((n, l) => n + l, 0),
    };
    if (cut) entry.cut = true;
    this.parts.push(entry);
  }

  account(): Truncated | null {
    if (this.parts.length === 0) return null;
    const charactersDropped = this.parts.reduce((n, p) => n + p.charactersDropped, 0);
    return {
      sections: this.parts,
      paragraphsDropped: this.parts.reduce((n, p) => n + p.paragraphsDropped, 0),
      charactersDropped,
      totalCharacters: this.returned + charactersDropped + this.unlisted,
      returnedCharacters: this.returned,
    };
  }
}

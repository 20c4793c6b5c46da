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
 * `truncated` (present only when something was dropped or cut) lists, per part, what was lost:
 * parts are sections by their path ("Discussion > Limitations"), or "Abstract", "Figures",
 * "Tables", "Supplementary material", "References" (whose `paragraphsDropped` counts captions or
 * references). `totalCharacters` is the size of everything selected, `returnedCharacters` of the
 * answer (cut marks included). Sections left out by `sections` are not "truncated".
 *
 * `sections` keeps the sections whose title contains one of the given strings (case-insensitive),
 * with their subsections; their ancestors stay as bare headings for context. "abstract",
 * "figures", "tables" and "supplementary material" select those parts the same way; without
 * `sections` everything is selected. `mode: "outline"` returns section titles with their sizes
 * instead of text, so an agent can ask for the parts it wants; `maxCharacters` does not apply to it.
 */
import type { JatsArticle, JatsSection } from "../jats/types.js";
import { compact } from "../net/reply.js";
import { Budget, CUT_MARK, cutText } from "./fulltext-budget-account.js";
import type { FulltextArticle } from "./fulltext-types.js";

export { CUT_MARK, cutText };

export const DEFAULT_MAX_CHARACTERS = 12_000;

export interface BudgetOptions {
  maxCharacters?: number;
  sections?: readonly string[];
  mode?: "full" | "outline";
  includeReferences?: boolean;
  /** Table rows as "cell | cell" lines under each table's caption. */
  includeTables?: boolean;
}

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
    else budget.giveBack(section.title?.length ?? 0); // a heading with none of its text
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

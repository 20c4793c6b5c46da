/**
 * ECitMatch and ESpell over a synthetic corpus. Citation matching keys on what NCBI's matcher
 * weighs most — year, volume, first page — and then the first author's surname; the journal
 * column is echoed but not compared (synthetic journals have no alias table).
 */
import { ecitmatchText, espellXml } from "./synth-replies.js";
import type { SynthCorpus } from "./synth.js";
import { vocabulary } from "./synth-vocab.js";

function normalizeName(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9 ]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

export class CitationIndex {
  private readonly byKey = new Map<string, number[]>();
  private built = 0;

  constructor(private readonly corpus: SynthCorpus) {}

  /** Catches up with records added since the last call. */
  private refresh(): void {
    for (; this.built < this.corpus.size; this.built++) {
      const c = this.corpus.citationAt(this.built);
      const key = `${c.pubDate.year}|${c.volume}|${c.startPage.toLowerCase()}`;
      const list = this.byKey.get(key);
      if (list) list.push(this.built);
      else this.byKey.set(key, [this.built]);
    }
  }

  /** A PMID, "NOT_FOUND", or "AMBIGUOUS (n citations)". */
  answer(year: string, volume: string, firstPage: string, authorName: string): string {
    this.refresh();
    const key = `${year.trim()}|${volume.trim()}|${firstPage.trim().toLowerCase()}`;
    const author = normalizeName(authorName);
    const hits = (this.byKey.get(key) ?? []).filter((i) => {
      if (author === "") return true;
      const surname = normalizeName(this.corpus.citationAt(i).firstAuthor.lastName);
      return author === surname || author.startsWith(`${surname} `);
    });
    if (hits.length === 0) return "NOT_FOUND";
    if (hits.length > 1) return `AMBIGUOUS (${hits.length} citations)`;
    return this.corpus.pmidOf(hits[0] ?? 0);
  }

  /** `bdata`: lines "journal|year|volume|first_page|author_name|key|", separated by CR and/or LF. */
  reply(bdata: string): string {
    const lines = bdata
      .split(/\r\n|\r|\n/)
      .map((l) => l.trim())
      .filter((l) => l !== "")
      .map((request) => {
        const [, year = "", volume = "", page = "", author = ""] = request.split("|");
        return { request, answer: this.answer(year, volume, page, author) };
      });
    return ecitmatchText(lines);
  }
}

/** ESpell: corrects words from the vocabulary's small misspelling table, keeping the rest as typed. */
export function espellReply(query: string): string {
  const table = vocabulary().spelling;
  const segments: { text: string; replaced: boolean }[] = [];
  for (const m of query.matchAll(/[\p{L}\p{N}]+|[^\p{L}\p{N}]+/gu)) {
    const token = m[0];
    const key = token.toLowerCase();
    const fix = Object.hasOwn(table, key) ? table[key] : undefined;
    const last = segments[segments.length - 1];
    if (fix !== undefined) segments.push({ text: fix, replaced: true });
    else if (last && !last.replaced) last.text += token;
    else segments.push({ text: token, replaced: false });
  }
  return espellXml(query, segments);
}

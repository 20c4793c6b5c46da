/**
 * The running character budget of src/literature/fulltext-budget.ts and its account of what was dropped
 * or cut, per part of the article; and the one place text is cut (sentence, else word boundary,
 * never inside a surrogate pair).
 */
import type { FulltextArticle } from "./fulltext-types.js";

/** Appended to a paragraph cut short; counts toward the budget. */
export const CUT_MARK = " […]";
/** Below this many characters left, a paragraph is dropped rather than cut to a stub. */
const MIN_CUT = 80;

type Truncated = NonNullable<FulltextArticle["truncated"]>;

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
export class Budget {
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

  /** Returns characters taken for something that was dropped after all. */
  giveBack(n: number): void {
    this.take(-n);
    this.unlisted += n;
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

/**
 * How the live tools read EFetch's PubMed XML (Eutils.efetchArticles): parseEFetch, the one EFetch
 * parser, with the parse kept beside the cached body (issue 12, item 4: a repeat inside the TTL
 * neither asks NCBI nor parses again). A long reply is read off the MCP loop once a thread offers
 * to read it: the live thread does when it is loaded (src/live/live-thread.ts, which this part,
 * below it, cannot import); until then, and in processes without it, the parse runs here.
 */
import type { BodyParser } from "./calls.js";
import { parseEFetch } from "./parse/efetch.js";
import type { Article } from "./types.js";

/** parseEFetch's articles of a reply, here or in another thread: the same articles or error. */
export type ArticlesReader = (xml: string) => Article[] | Promise<Article[]>;

let reader: ArticlesReader = parseEFetch;

/** From now on EFetch replies are read by `read` (the live thread: parseEFetch, off the loop). */
export function readArticlesWith(read: ArticlesReader): void {
  reader = read;
}

export const EFETCH_ARTICLES: BodyParser<Article[]> = {
  name: "articles",
  parse: (xml) => reader(xml),
};

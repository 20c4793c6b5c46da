/**
 * pubmed_fetch pages by record (src/paging.ts; src/tools/answer.ts cuts the answer): parsed
 * articles one by one, and NCBI's raw text cut between records (a `<PubmedArticle>` or
 * `<PubmedBookArticle>` element of full_xml, a MEDLINE record of medline_text), so a page of raw
 * text is still a well-formed reply. The call for the rest names the records left out by PMID.
 */
import { sameArguments, type Pages } from "../paging.js";

interface FetchResult {
  articles?: readonly { pmid: string }[];
  detailLevel?: "full_xml" | "medline_text";
  text?: string;
  [key: string]: unknown;
}

interface RawRecords {
  head: string;
  records: string[];
  tail: string;
}

const XML_RECORD = /<(PubmedArticle|PubmedBookArticle)\b[^>]*>[\s\S]*?<\/\1>/g;

/** The raw reply as records between a head and a tail (kept whole on every page). */
function split(result: FetchResult): RawRecords {
  const text = result.text ?? "";
  if (result.detailLevel === "medline_text") {
    const records = text.split(/\n\s*\n(?=PMID- )/);
    return { head: "", records, tail: "" };
  }
  const records = text.match(XML_RECORD) ?? [];
  if (records.length === 0) return { head: text, records: [], tail: "" };
  const start = text.indexOf(records[0]!);
  const last = records[records.length - 1]!;
  const end = text.lastIndexOf(last) + last.length;
  return { head: text.slice(0, start), records, tail: text.slice(end) };
}

const rawPmid = (record: string) =>
  (/<PMID[^>]*>(\d+)<\/PMID>/.exec(record) ?? /^PMID- *(\d+)/m.exec(record))?.[1];

export const fetchPages: Pages<Record<string, unknown>, FetchResult> = {
  items: (result) => result.articles ?? split(result).records,
  keep: (result, k) => {
    if (result.articles) return { ...result, articles: result.articles.slice(0, k) };
    const { head, records, tail } = split(result);
    const sep = result.detailLevel === "medline_text" ? "\n\n" : "\n";
    return { ...result, text: head + records.slice(0, k).join(sep) + tail };
  },
  rest: (args, result, k) => {
    const pmids = result.articles
      ? result.articles.slice(k).map((a) => a.pmid)
      : split(result)
          .records.slice(k)
          .map(rawPmid)
          .filter((p): p is string => p !== undefined);
    const {
      pmcids: _pmcids,
      dois: _dois,
      webEnv: _webEnv,
      queryKey: _queryKey,
      retstart: _retstart,
      retmax: _retmax,
      ...kept
    } = args;
    return sameArguments(kept, { pmids });
  },
};

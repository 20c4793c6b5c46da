/**
 * References written by an independent formatter are read back: every recorded PubMed record of
 * ../shared/fixtures/eutils is formatted by citation-js (the engine behind pubmed_cite) in APA,
 * MLA, Vancouver, BibTeX and RIS, parsed, and compared with the record it came from. The
 * project's own reference set (src/devtools/reference-set.ts, the bench's references section) is
 * written by code written alongside the parser; this one is not.
 */
import { beforeAll, expect, test } from "@jest/globals";
import { loadFixturePubmed } from "../../src/devtools/fixture-pubmed.js";
import { formatCitations } from "../../src/live/citations.js";
import type { Article } from "../../src/ncbi/types.js";
import { differences } from "../../src/trust/reference-compare.js";
import { parseReference, splitReferences } from "../../src/trust/reference-tagged.js";
import { EUTILS_FIXTURES, describeShared } from "../helpers/shared.js";

const STYLES = ["apa", "mla", "vancouver", "bibtex", "ris"] as const;

describeShared("references formatted by citation-js", () => {
  let articles: Article[];
  beforeAll(() => {
    // Journal articles (book chapters such as GeneReviews are cited as books).
    articles = loadFixturePubmed(EUTILS_FIXTURES)
      .records.map((r) => r.article)
      .filter((a) => a.authors.length > 0 && a.title && a.journalInfo.volume);
  });

  test.each(STYLES)(
    "%s: each reference agrees with its record on every field it gives",
    (style) => {
      const disagreeing: string[] = [];
      for (const a of articles) {
        const text = formatCitations(a, [style])[style];
        const pieces = splitReferences(text);
        expect(pieces).toHaveLength(1);
        const diff = differences(parseReference(pieces[0]!), a);
        if (diff.length > 0)
          disagreeing.push(`${a.pmid} [${diff.join(", ")}]: ${text.slice(0, 160)}`);
      }
      expect(articles.length).toBeGreaterThan(100);
      expect(disagreeing).toEqual([]);
    },
  );
});

/**
 * JATS full text for synthetic records with a PMCID, as EFetch db=pmc (`<pmc-articleset>`) and
 * Europe PMC fullTextXML (`<article>`) send it: front matter with the record's PMID, PMCID and
 * DOI, a CC BY licence, the abstract, a body of nested sections written from the record's own
 * abstract (so full text and record agree), a figure and a table caption, and the record's
 * references. Project-written, after the JATS 1.3 tag set.
 *
 * Every seventh PMC record is one whose publisher withholds the XML from PMC: EFetch answers with
 * the front matter and PMC's comment, and Europe PMC has the full text (the fallback chain's
 * second tier). Records without a PMCID have no full text anywhere (Unpaywall's link tier).
 */
import { pad2, utcParts } from "./synth-core.js";
import { esc } from "./synth-text.js";
import type { SynthRecord } from "./synth-types.js";

export const PMC_ARTICLESET_DOCTYPE =
  '<!DOCTYPE pmc-articleset PUBLIC "-//NLM//DTD ARTICLE SET 2.0//EN" "https://dtd.nlm.nih.gov/ncbi/pmc/articleset/nlm-articleset-2.0.dtd">';
const WITHHELD_COMMENT =
  "<!--The publisher of this article does not allow downloading of the full text in XML form.-->";

/** PubMed's inline tags → JATS: <i> → <italic>, <b> → <bold>, <u> → <underline>. */
function jatsInline(markup: string): string {
  return markup
    .replace(/<(\/?)i>/g, "<$1italic>")
    .replace(/<(\/?)b>/g, "<$1bold>")
    .replace(/<(\/?)u>/g, "<$1underline>");
}

/** PMC withholds the XML of this record's article (the body is only on Europe PMC). */
export function pmcWithholds(record: SynthRecord): boolean {
  return record.pmcid !== null && Number(record.pmcid.slice(3)) % 7 === 3;
}

function front(r: SynthRecord): string {
  const c = r.citation;
  const date = c.epubDate ?? r.pdat;
  const { year, month, day } = utcParts(date);
  const ids = [
    `<article-id pub-id-type="pmid">${r.pmid}</article-id>`,
    r.pmcid ? `<article-id pub-id-type="pmcid">${r.pmcid}</article-id>` : "",
    r.doi ? `<article-id pub-id-type="doi">${esc(r.doi)}</article-id>` : "",
  ].join("");
  const authors = r.authors
    .filter((a) => a.lastName)
    .map(
      (a) =>
        `<contrib contrib-type="author"><name><surname>${esc(a.lastName ?? "")}</surname><given-names>${esc(a.foreName ?? "")}</given-names></name></contrib>`,
    )
    .join("");
  const abstract = r.abstract
    .map((s) =>
      s.label
        ? `<sec><title>${esc(s.label)}</title><p>${jatsInline(s.markup)}</p></sec>`
        : `<p>${jatsInline(s.markup)}</p>`,
    )
    .join("");
  return (
    `<front><journal-meta><journal-id journal-id-type="nlm-ta">${esc(c.journal.iso)}</journal-id>` +
    `<journal-title-group><journal-title>${esc(c.journal.title)}</journal-title></journal-title-group></journal-meta>` +
    `<article-meta>${ids}<title-group><article-title>${jatsInline(r.titleMarkup)}</article-title></title-group>` +
    `<contrib-group>${authors}</contrib-group>` +
    `<pub-date pub-type="epub"><day>${pad2(day)}</day><month>${pad2(month)}</month><year>${year}</year></pub-date>` +
    `<volume>${esc(c.volume)}</volume><fpage>${esc(c.startPage)}</fpage>` +
    `<permissions><copyright-statement>© ${year} The Authors (synthetic record).</copyright-statement>` +
    `<license license-type="open-access" xlink:href="https://creativecommons.org/licenses/by/4.0/">` +
    `<license-p>This is an open access article distributed under the terms of the Creative Commons Attribution License (CC BY 4.0).</license-p></license></permissions>` +
    `<abstract>${abstract}</abstract></article-meta></front>`
  );
}

/** Sections written from the abstract: its text, re-told under the headings of a paper. */
function body(r: SynthRecord): string {
  const part = (label: RegExp) => r.abstract.find((s) => s.label && label.test(s.label));
  const all = r.abstract.map((s) => jatsInline(s.markup));
  const p = (markup: string | undefined, fallback: string) =>
    `<p>${markup === undefined ? esc(fallback) : jatsInline(markup)}</p>`;
  const background = part(/background|introduction|objective/i)?.markup;
  const methods = part(/method/i)?.markup;
  const results = part(/result|finding/i)?.markup;
  const conclusions = part(/conclusion|interpretation/i)?.markup;
  const title = r.title.replace(/\.$/, "");
  // Records without an abstract still get a Results paragraph (a section needs text to count).
  const resultsText =
    results !== undefined || all.length === 0
      ? p(results, "The main findings are summarised in Table 1.")
      : `<p>${all.join(" ")}</p>`;
  return (
    `<body>` +
    `<sec id="s1"><title>Introduction</title>${p(background, `This study concerns ${title}.`)}` +
    `<p>Earlier work on this question is reviewed in the references [<xref ref-type="bibr" rid="R1">1</xref>].</p></sec>` +
    `<sec id="s2"><title>Methods</title>` +
    `<sec id="s2-1"><title>Study design</title>${p(methods, "A synthetic study design.")}</sec>` +
    `<sec id="s2-2"><title>Statistical analysis</title><p>Estimates are given with 95% confidence intervals; <italic>p</italic> &lt; 0.05 was considered significant.</p></sec></sec>` +
    `<sec id="s3"><title>Results</title>${resultsText}` +
    `<fig id="F1"><label>Figure 1</label><caption><p>Main outcome by group (synthetic data).</p></caption></fig>` +
    `<table-wrap id="T1"><label>Table 1</label><caption><p>Characteristics of the participants.</p></caption>` +
    `<table><tr><th>Group</th><th>n</th></tr><tr><td>Intervention</td><td>120</td></tr><tr><td>Control</td><td>118</td></tr></table></table-wrap></sec>` +
    `<sec id="s4"><title>Discussion</title>${p(conclusions, `These findings bear on ${title}.`)}</sec>` +
    `</body>`
  );
}

function back(r: SynthRecord): string {
  if (r.references.length === 0) return "";
  const refs = r.references
    .map(
      (ref, i) =>
        `<ref id="R${i + 1}"><mixed-citation publication-type="journal">${esc(ref.citation)} <pub-id pub-id-type="pmid">${ref.pmid}</pub-id></mixed-citation></ref>`,
    )
    .join("");
  return `<back><ref-list><title>References</title>${refs}</ref-list></back>`;
}

const ARTICLE_OPEN =
  '<article xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:mml="http://www.w3.org/1998/Math/MathML" article-type="research-article" dtd-version="1.3">';

/** One record's <article>; `withBody` false gives PMC's withheld shape (front matter only). */
export function jatsArticle(record: SynthRecord, withBody = true): string {
  return `${ARTICLE_OPEN}${front(record)}${withBody ? body(record) + back(record) : ""}</article>`;
}

/** EFetch db=pmc: the records' articles (withheld ones with PMC's comment before them). */
export function pmcArticleSetXml(records: readonly SynthRecord[]): string {
  const articles = records.map((r) =>
    pmcWithholds(r) ? `${WITHHELD_COMMENT}${jatsArticle(r, false)}` : jatsArticle(r),
  );
  return `<?xml version="1.0" encoding="UTF-8" ?>\n${PMC_ARTICLESET_DOCTYPE}\n<pmc-articleset>${articles.join("\n")}</pmc-articleset>\n`;
}

/** Europe PMC fullTextXML: one <article>. */
export function europePmcArticleXml(record: SynthRecord): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${jatsArticle(record)}`;
}

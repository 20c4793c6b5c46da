/**
 * Made-up PubMed records for the prepare thread to work on while a sync's first requests are out
 * (prepare-worker.ts). A thread's code runs slowly until V8 has compiled it, and a sync's first
 * reply comes two NCBI round trips after it starts (the ESearch, then the EFetch): preparing
 * these records in that wait compiles the parser, chunker and tokeniser before the real batches
 * need them. bench/JOURNAL.md ("Early morning of 2026-11-28") has the figures.
 *
 * The records only need the shape of EFetch's PubmedArticle (the elements parseEFetch reads, in
 * DTD order) and varied words; nothing made from them is kept. Not the synthetic corpus of
 * src/devtools: the published package leaves devtools out (package.json "files"), and a few
 * templated records are all a warm-up needs.
 */

const WORDS = (
  "patients cohort randomized trial outcome mortality incidence risk therapy treatment " +
  "expression protein receptor signalling pathway inflammation cytokine tumour cancer cells " +
  "mice model infection vaccine antibody response dose placebo efficacy safety adverse events " +
  "meta-analysis systematic review screening diagnosis biomarker sensitivity specificity " +
  "hospital children adults elderly women pregnancy diabetes obesity hypertension stroke " +
  "cardiac renal hepatic pulmonary neuronal cognitive depression sleep exercise nutrition"
).split(" ");
const NAMES = ["Smith", "García", "Müller", "Chen", "Okafor", "Rossi", "Tanaka", "Nowak"];
const HEADINGS = ["Humans", "Female", "Male", "Adult", "Risk Factors", "Treatment Outcome"];

/** A deterministic word stream (a linear congruential generator: no state outside the call). */
function wordsFrom(seed: number): (count: number) => string {
  let state = seed >>> 0;
  return (count) => {
    const out: string[] = [];
    for (let i = 0; i < count; i++) {
      state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
      out.push(WORDS[state % WORDS.length] as string);
    }
    return out.join(" ");
  };
}

function recordXml(pmid: number): string {
  const words = wordsFrom(pmid);
  const sentence = () => `${words(12)}, and ${words(9)} (n = ${pmid % 900}).`;
  const section = (label: string) =>
    `<AbstractText Label="${label}" NlmCategory="${label}">${sentence()} ${sentence()} <i>${words(2)}</i> ${sentence()}</AbstractText>`;
  const authors = NAMES.slice(0, 2 + (pmid % 5))
    .map(
      (name, i) =>
        `<Author ValidYN="Y"><LastName>${name}</LastName><ForeName>${words(1)}</ForeName><Initials>${name[0]}${i}</Initials><AffiliationInfo><Affiliation>Department of ${words(2)}, University ${i}.</Affiliation></AffiliationInfo></Author>`,
    )
    .join("");
  const mesh = HEADINGS.map(
    (h, i) =>
      `<MeshHeading><DescriptorName UI="D00${i}" MajorTopicYN="${i === 0 ? "Y" : "N"}">${h}</DescriptorName></MeshHeading>`,
  ).join("");
  const year = 2000 + (pmid % 25);
  return (
    `<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">${pmid}</PMID>` +
    `<DateRevised><Year>${year}</Year><Month>0${1 + (pmid % 9)}</Month><Day>1${pmid % 9}</Day></DateRevised>` +
    `<Article PubModel="Print-Electronic"><Journal><ISSN IssnType="Print">1234-567${pmid % 10}</ISSN>` +
    `<JournalIssue CitedMedium="Print"><Volume>${pmid % 90}</Volume><Issue>${pmid % 12}</Issue><PubDate><Year>${year}</Year><Month>Mar</Month></PubDate></JournalIssue>` +
    `<Title>Journal of ${words(2)}</Title><ISOAbbreviation>J ${words(1)}</ISOAbbreviation></Journal>` +
    `<ArticleTitle>${words(10)}: a ${words(3)} study.</ArticleTitle>` +
    `<Pagination><StartPage>${pmid % 400}</StartPage><MedlinePgn>${pmid % 400}-9</MedlinePgn></Pagination>` +
    `<ELocationID EIdType="doi" ValidYN="Y">10.1000/warm.${pmid}</ELocationID>` +
    `<Abstract>${section("BACKGROUND")}${section("METHODS")}${section("RESULTS")}${section("CONCLUSIONS")}</Abstract>` +
    `<AuthorList CompleteYN="Y">${authors}</AuthorList><Language>eng</Language>` +
    `<PublicationTypeList><PublicationType UI="D016428">Journal Article</PublicationType>` +
    `<PublicationType UI="D016449">Randomized Controlled Trial</PublicationType></PublicationTypeList></Article>` +
    `<MedlineJournalInfo><Country>England</Country><MedlineTA>J ${words(1)}</MedlineTA><NlmUniqueID>${pmid}</NlmUniqueID></MedlineJournalInfo>` +
    `<CitationSubset>IM</CitationSubset><MeshHeadingList>${mesh}</MeshHeadingList>` +
    `<KeywordList Owner="NOTNLM"><Keyword MajorTopicYN="N">${words(2)}</Keyword></KeywordList></MedlineCitation>` +
    `<PubmedData><History><PubMedPubDate PubStatus="entrez"><Year>${year}</Year><Month>3</Month><Day>2</Day><Hour>6</Hour><Minute>0</Minute></PubMedPubDate></History>` +
    `<PublicationStatus>ppublish</PublicationStatus><ArticleIdList><ArticleId IdType="pubmed">${pmid}</ArticleId>` +
    `<ArticleId IdType="doi">10.1000/warm.${pmid}</ArticleId></ArticleIdList></PubmedData></PubmedArticle>`
  );
}

/** An EFetch reply of `count` made-up records, PMIDs from `first`, as UTF-8 bytes. */
export function warmUpReply(count: number, first = 1): Uint8Array {
  const records: string[] = [];
  for (let i = 0; i < count; i++) records.push(recordXml(first + i));
  return new TextEncoder().encode(
    `<?xml version="1.0" ?><PubmedArticleSet>${records.join("")}</PubmedArticleSet>`,
  );
}

/**
 * E-utilities replies other than EFetch's article XML, in the shapes NCBI sends today: the
 * DOCTYPEs, element order and whitespace habits of each utility (ESearch's one-line result with
 * an Id per line, ESummary v2.0's tab-indented DocumentSummarySet, and so on).
 */
import { pubDateText, utcParts, pad2 } from "./synth-core.js";
import { esc, escAttr } from "./synth-text.js";
import type { SynthRecord } from "./synth-types.js";

const XML_DECL = '<?xml version="1.0" encoding="UTF-8" ?>\n';
const DOCTYPES: Record<string, string> = {
  eSearchResult:
    '<!DOCTYPE eSearchResult PUBLIC "-//NLM//DTD esearch 20060628//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20060628/esearch.dtd">',
  eSummaryResult:
    '<!DOCTYPE eSummaryResult PUBLIC "-//NLM//DTD eSummaryResult//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20160808/esummary_pubmed.dtd">',
  eLinkResult:
    '<!DOCTYPE eLinkResult PUBLIC "-//NLM//DTD elink 20101123//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20101123/elink.dtd">',
  eInfoResult:
    '<!DOCTYPE eInfoResult PUBLIC "-//NLM//DTD einfo 20190110//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20190110/einfo.dtd">',
  eSpellResult:
    '<!DOCTYPE eSpellResult PUBLIC "-//NLM//DTD eSpellResult, 23 November 2004//EN" "https://www.ncbi.nlm.nih.gov/entrez/query/DTD/eSpell.dtd">',
};

function doc(root: string, body: string): string {
  const doctype = DOCTYPES[root];
  return `${XML_DECL}${doctype === undefined ? "" : `${doctype}\n`}${body}`;
}

/** NCBI refusing a request: an <ERROR> inside the utility's root element, with HTTP 200. */
export function entrezErrorXml(root: string, message: string): string {
  return doc(root, `<${root}><ERROR>${esc(message)}</ERROR></${root}>`);
}

export interface ESearchReply {
  count: number;
  retStart: number;
  ids: readonly string[];
  queryTranslation: string;
  queryKey?: string;
  webEnv?: string;
  /** rettype=count: only <Count>. */
  countOnly?: boolean;
  phrasesNotFound?: string[];
  outputMessages?: string[];
}

export function esearchXml(r: ESearchReply): string {
  if (r.countOnly)
    return doc("eSearchResult", `<eSearchResult><Count>${r.count}</Count></eSearchResult>`);
  const history =
    r.queryKey !== undefined && r.webEnv !== undefined
      ? `<QueryKey>${r.queryKey}</QueryKey><WebEnv>${esc(r.webEnv)}</WebEnv>`
      : "";
  const ids =
    r.ids.length === 0
      ? "<IdList/>"
      : `<IdList>\n${r.ids.map((id) => `<Id>${id}</Id>\n`).join("")}</IdList>`;
  const errors = (r.phrasesNotFound ?? [])
    .map((p) => `<PhraseNotFound>${esc(p)}</PhraseNotFound>`)
    .join("");
  const warnings = (r.outputMessages ?? [])
    .map((m) => `<OutputMessage>${esc(m)}</OutputMessage>`)
    .join("");
  return doc(
    "eSearchResult",
    `<eSearchResult><Count>${r.count}</Count><RetMax>${r.ids.length}</RetMax><RetStart>${r.retStart}</RetStart>${history}${ids}<TranslationSet/><QueryTranslation>${esc(r.queryTranslation)}</QueryTranslation>${errors === "" ? "" : `<ErrorList>${errors}</ErrorList>`}${warnings === "" ? "" : `<WarningList>${warnings}</WarningList>`}</eSearchResult>`,
  );
}

function unmarkup(fragment: string): string {
  return fragment.replace(/&(lt|gt|quot|amp);/g, (_, e: string) =>
    e === "lt" ? "<" : e === "gt" ? ">" : e === "quot" ? '"' : "&",
  );
}

function historyDate(ms: number): string {
  const d = utcParts(ms);
  return `${d.year}/${pad2(d.month)}/${pad2(d.day)} ${pad2(d.hour)}:${pad2(d.minute)}`;
}

const RECORD_STATUS: Record<SynthRecord["status"], string> = {
  MEDLINE: "PubMed - indexed for MEDLINE",
  "In-Data-Review": "PubMed - in process",
  "PubMed-not-MEDLINE": "PubMed",
};

function docSum(r: SynthRecord): string {
  const c = r.citation;
  const name = (a: SynthRecord["authors"][number]) =>
    a.collectiveName ?? `${a.lastName ?? ""} ${a.initials ?? ""}`.trim();
  const authors = r.authors
    .map(
      (a) =>
        `\t\t<Author>\n\t\t\t<Name>${esc(name(a))}</Name>\n\t\t\t<AuthType>\n\t\t\t\t${a.collectiveName === null ? "Author" : "CollectiveName"}\n\t\t\t</AuthType>\n\t\t\t<ClusterID>0</ClusterID>\n\t\t</Author>\n`,
    )
    .join("");
  const people = r.authors.filter((a) => a.collectiveName === null);
  const last = people[people.length - 1];
  const ids: [string, number, string][] = [["pubmed", 1, r.pmid]];
  if (r.doi !== null) ids.push(["doi", 3, r.doi]);
  if (r.pmcid !== null) ids.push(["pmc", 8, r.pmcid], ["pmcid", 5, `pmc-id: ${r.pmcid};`]);
  ids.push(["eid", 8, r.pmid], ["rid", 8, r.pmid]);
  const history: [string, number][] = [["pubmed", r.pubmedDate]];
  if (r.medlineDate !== null) history.push(["medline", r.medlineDate]);
  history.push(["entrez", r.edat]);
  const sortTitle = r.title
    .toLowerCase()
    .replace(/^(?:an?|the)\s+/, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ");
  const epub =
    c.epubDate === null
      ? ""
      : pubDateText({ ...dateParts(c.epubDate), season: null, medlineDate: null });
  const t = (tag: string, value: string) => `\t<${tag}>${value}</${tag}>\n`;
  return [
    `<DocumentSummary uid="${r.pmid}">\n`,
    t("PubDate", esc(pubDateText(c.pubDate))),
    t("EPubDate", epub),
    t("Source", esc(c.journal.iso)),
    `\t<Authors>\n${authors}\t</Authors>\n`,
    t("LastAuthor", last ? esc(name(last)) : ""),
    t("Title", esc(unmarkup(r.titleMarkup))),
    t("SortTitle", esc(sortTitle)),
    t("Volume", c.volume),
    t("Issue", c.issue ?? ""),
    t("Pages", c.medlinePgn),
    `\t<Lang>\n${r.languages.map((l) => `\t\t<string>${l}</string>\n`).join("")}\t</Lang>\n`,
    t("NlmUniqueID", c.journal.nlmId),
    t("ISSN", c.journal.issnPrint ?? ""),
    t("ESSN", c.journal.issnElectronic ?? ""),
    `\t<PubType>\n${r.publicationTypes.map((p) => `\t\t<flag>${esc(p.name)}</flag>\n`).join("")}\t</PubType>\n`,
    `\t<RecordStatus>\n\t\t${RECORD_STATUS[r.status]}\n\t</RecordStatus>\n`,
    t(
      "PubStatus",
      r.publicationStatus === "ppublish" ? "4" : r.publicationStatus === "epublish" ? "3" : "10",
    ),
    `\t<ArticleIds>\n${ids.map(([type, n, v]) => `\t\t<ArticleId>\n\t\t\t<IdType>${type}</IdType>\n\t\t\t<IdTypeN>${n}</IdTypeN>\n\t\t\t<Value>${esc(v)}</Value>\n\t\t</ArticleId>\n`).join("")}\t</ArticleIds>\n`,
    `\t<History>\n${history.map(([s, ms]) => `\t\t<PubMedPubDate>\n\t\t\t<PubStatus>${s}</PubStatus>\n\t\t\t<Date>${historyDate(ms)}</Date>\n\t\t</PubMedPubDate>\n`).join("")}\t</History>\n`,
    "\t<References>\n\t</References>\n",
    `\t<Attributes>\n${r.abstract.length > 0 ? "\t\t<flag>Has Abstract</flag>\n" : ""}\t</Attributes>\n`,
    t("PmcRefCount", "0"),
    t("FullJournalName", esc(c.journal.title)),
    t("ELocationID", r.doi === null ? "" : `doi: ${esc(r.doi)}`),
    t("DocType", "citation"),
    t("SortPubDate", `${historyDate(r.pdat)}`),
    t("SortFirstAuthor", people[0] ? esc(name(people[0])) : ""),
    "</DocumentSummary>\n",
  ].join("");
}

function dateParts(ms: number) {
  const d = utcParts(ms);
  return { year: d.year, month: d.month, day: d.day };
}

/** ESummary version 2.0. A string stands for a UID with no record (NCBI's per-uid <error>). */
export function esummaryXml(items: readonly (SynthRecord | string)[]): string {
  const body = items
    .map((item) =>
      typeof item === "string"
        ? `<DocumentSummary uid="${escAttr(item)}">\n<error>cannot get document summary</error>\n</DocumentSummary>\n`
        : docSum(item),
    )
    .join("\n");
  return doc(
    "eSummaryResult",
    `<eSummaryResult>\n<DocumentSummarySet status="OK">\n${body}\n</DocumentSummarySet>\n</eSummaryResult>\n`,
  );
}

export interface ELinkSet {
  linkName: string;
  links: readonly { id: string; score?: number }[];
}

export function elinkXml(reply: {
  dbFrom: string;
  ids: readonly string[];
  linkSets: readonly ELinkSet[];
}): string {
  const idList = reply.ids.map((id) => `\t\t\t<Id>${esc(id)}</Id>\n`).join("");
  const dbs = reply.linkSets
    .filter((s) => s.links.length > 0)
    .map((s) => {
      const links = s.links
        .map((l) => {
          const score = l.score === undefined ? "" : `\t\t\t\t<Score>${l.score}</Score>\n`;
          return `\t\t\t<Link>\n\t\t\t\t<Id>${l.id}</Id>\n${score}\t\t\t</Link>\n`;
        })
        .join("");
      return `\t\t<LinkSetDb>\n\t\t\t<DbTo>pubmed</DbTo>\n\t\t\t<LinkName>${s.linkName}</LinkName>\n${links}\t\t</LinkSetDb>\n`;
    })
    .join("");
  return doc(
    "eLinkResult",
    `<eLinkResult>\n\n\t<LinkSet>\n\t\t<DbFrom>${esc(reply.dbFrom)}</DbFrom>\n\t\t<IdList>\n${idList}\t\t</IdList>\n${dbs}\t</LinkSet>\n</eLinkResult>\n`,
  );
}

/** Segments of the query in order; `replaced` ones are corrections. No correction → empty CorrectedQuery. */
export function espellXml(
  query: string,
  segments: readonly { text: string; replaced: boolean }[],
): string {
  const changed = segments.some((s) => s.replaced);
  const corrected = changed ? segments.map((s) => s.text).join("") : "";
  const spelled = changed
    ? `<SpelledQuery>${segments.map((s) => (s.replaced ? `<Replaced>${esc(s.text)}</Replaced>` : `<Original>${esc(s.text)}</Original>`)).join("")}</SpelledQuery>`
    : "<SpelledQuery/>";
  return doc(
    "eSpellResult",
    `<eSpellResult>\n\t<Database>pubmed</Database>\n\t<Query>${esc(query)}</Query>\n\t<CorrectedQuery>${esc(corrected)}</CorrectedQuery>\n\t${spelled}\n\t<ERROR/>\n</eSpellResult>\n`,
  );
}

const FIELDS: [name: string, fullName: string, description: string, isDate: boolean][] = [
  ["ALL", "All Fields", "Every searchable term in the record", false],
  ["UID", "UID", "PubMed identifier of the record", false],
  ["TITL", "Title", "Words in the article title", false],
  ["TIAB", "Title/Abstract", "Words in the title or abstract", false],
  ["MESH", "MeSH Terms", "Medical Subject Headings assigned by indexers", false],
  ["JOUR", "Journal", "Journal title, abbreviation or ISSN", false],
  ["PTYP", "Publication Type", "Kind of publication, e.g. Review", false],
  ["PDAT", "Date - Publication", "Date the article was published", true],
  ["EDAT", "Date - Entry", "Date the record entered PubMed", true],
  ["MDAT", "Date - Modification", "Date the record was last revised", true],
];
const LINKS: [name: string, menu: string, description: string][] = [
  ["pubmed_pubmed", "Similar articles", "PubMed articles similar in text and indexing"],
  ["pubmed_pubmed_citedin", "Cited by", "PubMed articles that cite this one"],
  ["pubmed_pubmed_refs", "References", "PubMed articles this one cites"],
];

/** EInfo for db=pubmed; without a db, the database list. */
export function einfoXml(info: { count: number; lastUpdate: Date } | null): string {
  if (info === null)
    return doc(
      "eInfoResult",
      "<eInfoResult>\n<DbList>\n\n\t<DbName>pubmed</DbName>\n</DbList>\n\n</eInfoResult>\n",
    );
  const d = utcParts(info.lastUpdate.getTime());
  const stamp = `${d.year}/${pad2(d.month)}/${pad2(d.day)} ${pad2(d.hour)}:${pad2(d.minute)}`;
  const build = `Build-${d.year}.${pad2(d.month)}.${pad2(d.day)}.${pad2(d.hour)}.${pad2(d.minute)}`;
  const yn = (b: boolean) => (b ? "Y" : "N");
  const fields = FIELDS.map(
    ([name, full, desc, isDate]) =>
      `\t\t\t<Field>\n\t\t\t\t<Name>${name}</Name>\n\t\t\t\t<FullName>${full}</FullName>\n\t\t\t\t<Description>${desc}</Description>\n\t\t\t\t<TermCount/>\n\t\t\t\t<IsDate>${yn(isDate)}</IsDate>\n\t\t\t\t<IsNumerical>${yn(name === "UID")}</IsNumerical>\n\t\t\t\t<SingleToken>${yn(isDate || name === "UID")}</SingleToken>\n\t\t\t\t<Hierarchy>${yn(name === "MESH")}</Hierarchy>\n\t\t\t\t<IsHidden>${yn(name === "UID")}</IsHidden>\n\t\t\t</Field>\n`,
  ).join("");
  const links = LINKS.map(
    ([name, menu, desc]) =>
      `\t\t\t<Link>\n\t\t\t\t<Name>${name}</Name>\n\t\t\t\t<Menu>${menu}</Menu>\n\t\t\t\t<Description>${desc}</Description>\n\t\t\t\t<DbTo>pubmed</DbTo>\n\t\t\t</Link>\n`,
  ).join("");
  return doc(
    "eInfoResult",
    `<eInfoResult>\n\t<DbInfo>\n\t\t<DbName>pubmed</DbName>\n\t\t<MenuName>PubMed</MenuName>\n\t\t<Description>PubMed bibliographic record (synthetic, for offline use)</Description>\n\t\t<DbBuild>${build}</DbBuild>\n\t\t<Count>${info.count}</Count>\n\t\t<LastUpdate>${stamp}</LastUpdate>\n\t\t<FieldList>\n${fields}\t\t</FieldList>\n\t\t<LinkList>\n${links}\t\t</LinkList>\n\t</DbInfo>\n\n</eInfoResult>\n`,
  );
}

/** ECitMatch's pipe-delimited reply: each request line echoed with the answer appended. */
export function ecitmatchText(lines: readonly { request: string; answer: string }[]): string {
  return lines.map((l) => `${l.request.replace(/\|?$/, "|")}${l.answer}\n`).join("");
}

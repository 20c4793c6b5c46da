/**
 * EFetch rettype=medline (retmode=text): the MEDLINE display format — four-character tags, "- ",
 * values wrapped at 80 columns with six-space continuation lines, records separated by a blank
 * line. Covers the fields a reader or citation tool uses, not every tag NLM defines.
 */
import { MONTH_ABBR, pad2, pubDateText, utcParts } from "./synth-core.js";
import type { SynthRecord } from "./synth-types.js";

function tagLine(tag: string, value: string): string {
  const lines: string[] = [];
  let line = `${tag.padEnd(4)}- `;
  let empty = true;
  for (const word of value.split(/\s+/)) {
    if (word === "") continue;
    if (!empty && line.length + 1 + word.length > 80) {
      lines.push(line);
      line = `      ${word}`;
    } else {
      line += empty ? word : ` ${word}`;
    }
    empty = false;
  }
  lines.push(line);
  return lines.join("\n");
}

const compact = (ms: number) => {
  const d = utcParts(ms);
  return `${d.year}${pad2(d.month)}${pad2(d.day)}`;
};
const stamp = (ms: number) => {
  const d = utcParts(ms);
  return `${d.year}/${pad2(d.month)}/${pad2(d.day)} ${pad2(d.hour)}:${pad2(d.minute)}`;
};
const day = (ms: number) => stamp(ms).slice(0, 10);

function medlineRecord(r: SynthRecord): string {
  const c = r.citation;
  const j = c.journal;
  const out: string[] = [];
  const add = (tag: string, value: string | null) => {
    if (value !== null && value !== "") out.push(tagLine(tag, value));
  };
  add("PMID", r.pmid);
  add("OWN", "NLM");
  add("STAT", r.status);
  if (r.dateCompleted !== null) add("DCOM", compact(r.dateCompleted));
  add("LR", compact(r.lr));
  if (j.issnElectronic !== null) add("IS", `${j.issnElectronic} (Electronic)`);
  if (j.issnPrint !== null) add("IS", `${j.issnPrint} (Print)`);
  add("VI", c.volume);
  add("IP", c.issue);
  add("DP", pubDateText(c.pubDate));
  add("TI", r.title);
  add("PG", c.medlinePgn);
  if (r.doi !== null) add("LID", `${r.doi} [doi]`);
  add("AB", r.abstract.map((s) => (s.label === null ? s.text : `${s.label}: ${s.text}`)).join(" "));
  for (const a of r.authors) {
    if (a.collectiveName !== null) {
      add("CN", a.collectiveName);
      continue;
    }
    add("FAU", `${a.lastName ?? ""}, ${a.foreName ?? ""}`);
    add("AU", `${a.lastName ?? ""} ${a.initials ?? ""}`);
    if (a.orcid !== null) add("AUID", `ORCID: ${a.orcid}`);
    for (const aff of a.affiliations) add("AD", aff);
  }
  for (const lang of r.languages) add("LA", lang);
  for (const g of r.grants)
    add("GR", [g.grantId, g.acronym, g.agency].filter((x) => x !== null).join("/"));
  for (const t of r.publicationTypes) add("PT", t.name);
  if (c.epubDate !== null) add("DEP", compact(c.epubDate));
  add("PL", j.country);
  add("TA", j.iso);
  add("JT", j.title);
  add("JID", j.nlmId);
  for (const subset of r.citationSubsets) add("SB", subset);
  if (r.retraction !== null) add("RIN", `${r.retraction.refSource} PMID: ${r.retraction.pmid}`);
  for (const h of r.mesh) {
    const star = (major: boolean) => (major ? "*" : "");
    const quals = h.qualifiers.map((q) => `/${star(q.major)}${q.name}`).join("");
    add("MH", `${star(h.major)}${h.name}${quals}`);
  }
  if (r.pmcid !== null) add("PMC", r.pmcid);
  if (r.keywords.length > 0) add("OTO", "NOTNLM");
  for (const k of r.keywords) add("OT", k);
  add("EDAT", stamp(r.edat));
  add("MHDA", stamp(r.medlineDate ?? r.edat));
  add("CRDT", stamp(r.edat));
  if (r.received !== null) add("PHST", `${day(r.received)} 00:00 [received]`);
  if (r.accepted !== null) add("PHST", `${day(r.accepted)} 00:00 [accepted]`);
  add("PHST", `${stamp(r.pubmedDate)} [pubmed]`);
  add("PHST", `${stamp(r.edat)} [entrez]`);
  if (r.doi !== null) add("AID", `${r.doi} [doi]`);
  add("PST", r.publicationStatus);
  const month = c.pubDate.month === null ? "" : ` ${MONTH_ABBR[c.pubDate.month - 1] ?? ""}`;
  const issue = c.issue === null ? "" : `(${c.issue})`;
  add(
    "SO",
    `${j.iso}. ${c.pubDate.year}${month};${c.volume}${issue}:${c.medlinePgn}.${r.doi === null ? "" : ` doi: ${r.doi}.`}`,
  );
  return out.join("\n");
}

export function medlineText(records: Iterable<SynthRecord>): string {
  let text = "";
  for (const r of records) text += `\n${medlineRecord(r)}\n`;
  return text;
}

/**
 * resource://pubmed/help — the manual an agent reads before its first call: what each tool is for
 * (from the session's own tool list, so read-only mode, MCP_TOOLSETS and new tools show up by
 * themselves), typical workflows, and the limits that shape good calls.
 */
import type { ToolDef } from "../tools/tool.js";
import { TOOLSETS } from "../toolsets.js";
import { defineResource, type Entry, type ResourceContext } from "./resource.js";

const LIVE_FLOW = `1. **Find** — \`pubmed_search\` with PubMed syntax (\`asthma[mh] AND children[tiab] AND 2020:2025[dp]\`);
   set \`fetchBriefSummaries\` to skim titles. Nothing found or odd spelling? \`pubmed_spell\` first.
   \`pubmed_mesh\` turns a user's words into MeSH headings and their search tags (\`"Asthma"[Mesh]\`);
   \`europepmc_search\` reaches preprints (\`sources: ["PPR"]\`) and beyond PubMed, paged by \`cursorMark\`.
2. **Read** — \`pubmed_fetch\` with up to 200 PMIDs per call (abstracts, MeSH, authors, DOI).
   For the paper itself, \`pubmed_fulltext\` (up to 10 PMIDs, PMCIDs or DOIs): PMC, then Europe PMC,
   then an Unpaywall link. Ask \`mode: "outline"\` first (section titles and sizes), then the
   \`sections\` you need. \`pubmed_convert_ids\` maps PMIDs, PMCIDs, DOIs and manuscript ids.
3. **Cite** — \`pubmed_cite\` in \`ris\`, \`bibtex\`, \`apa\`, \`mla\`, \`vancouver\` or \`csl_json\`.
4. **Widen** — \`pubmed_related\` (\`similar\`, \`cited_by\`, \`references\`) from a key paper (where PubMed
   has no citation links, Europe PMC's are used, marked \`source: "europepmc"\`);
   \`pubmed_trend\` charts publications per year; \`pubmed_match_citations\` turns a reference list into PMIDs;
   \`pubmed_annotations\` lists the genes, diseases, chemicals, species, variants and cell lines
   PubTator3 finds in up to 100 papers, with normalised ids.`;

const CORPUS_FLOW = `1. **Sync** — \`pubmed_sync_delta\` with a stable \`query_key\` and a PubMed \`term\`; call it again later
   to pick up what is new: records created since the checkpoint (by create date, which also finds
   records whose Entrez date PubMed back-dated) and records modified since then (by modification
   date: retractions, corrections, new MeSH). Large topics take several calls (\`max_records\`); a
   sync NCBI rate-limits stops with \`RATE_LIMIT\` and says when to call again.
2. **Ask** — \`rag_search\` answers from the synced corpus by BM25 (hybrid with dense retrieval when an
   embedding model is configured), offline, boosted by evidence quality (\`quality_bias\`).
3. **Read** — \`rag_get\` with a \`doc_id\` (\`pmid:<digits>\`) from the results; \`corpus_checkpoint_get\`
   shows how far a query is synced (\`last_edat\` for arrivals, \`last_mdat\` for revisions) and how its
   last sync ended.`;

const TRUST_FLOW = `1. **Check references** — \`pubmed_verify_references\` with up to 100 references (any common style,
   BibTeX or RIS; a pasted list is split). \`verified\` means one PubMed record agrees with every field
   the reference gives; \`mismatch\` names the wrong fields and gives the record meant (\`matched\`);
   \`not_found\` is likely invented or outside PubMed; \`ambiguous\` lists candidates. Correct a
   mismatch from \`matched\` or \`pubmed_fetch\` of its \`pmid\`, never from memory.
2. **Mind the notices** — records from \`pubmed_search\` (with summaries), \`pubmed_fetch\`,
   \`europepmc_search\`, \`rag_search\`, \`rag_get\` and \`pubmed_verify_references\` carry \`notices\`
   (\`retraction\`, \`correction\`, \`expression_of_concern\`, \`withdrawal\`, with the notice's PMID or
   DOI and date). Say so when citing a record that has one; do not cite a retracted paper as
   evidence. No \`notices\` field means none is known.`;

const REVIEW_FLOW = `1. **Question** — \`review_create\` with a \`name\`, the \`question\` (PICO) and the eligibility \`criteria\`.
2. **Search** — \`review_add\`, one source per call: \`pubmed\` (\`term\`: every record, up to 10,000; a call
   NCBI stops keeps what it stored and the same call resumes), \`europepmc\` (\`query\`, preprints
   included), \`corpus\` (a synced \`query_key\`), \`ids\` (PMIDs, PMCIDs, DOIs), \`citations\` (\`direction\`
   \`backward\`/\`forward\` from the included records). Records met again are stored once and counted.
3. **Screen** — \`review_screen\` (10 at a time) then \`review_decide\` (include / exclude / maybe, with a
   \`reason\`), and again: after the first include and exclude a model trained on your decisions puts
   the likely includes first. Stop when \`progress.stop_suggested\` is true (\`stop_reason\` says why: a statistical
   test that recall is very likely ≥ 95 %).
4. **Full text** — the same with \`stage: "full_text"\`: each record says whether its full text can be
   retrieved (\`pubmed_fulltext\` reads it); exclude with the reason PRISMA will count.
5. **Report** — \`review_status\`: PRISMA 2020 counts and the flow diagram (SVG); included records with
   retraction or correction notices. \`review_export\` (\`ris\`, \`bibtex\`, \`csl_json\`, \`csv\` with
   decisions): inline up to 64 KiB, else a \`resource_link\` to read whole. \`pubmed_export\` does the
   same for any search or PMID list.`;

const LIMITS = `- NCBI allows 3 requests/s without an API key and 10 with one; this server queues every call to
  stay under the ceiling (see \`resource://pubmed/info\`), so prefer fewer, larger calls.
- \`pubmed_search\` pages reach at most 10,000 records (\`offset\` ≤ 9,998); sync covers bigger sets.
- \`pubmed_fetch\` takes 1–200 PMIDs; \`pubmed_cite\` 1–50; \`pubmed_match_citations\` 1–25 citations;
  \`pubmed_verify_references\` 1–100 references (each read up to 3,000 characters).
- \`pubmed_fulltext\` takes 1–10 ids and returns at most \`maxCharacters\` (default 12,000) of text per
  article, whole paragraphs, with a \`truncated\` account of what was left out; open-access papers
  only (Unpaywall gives a link, not text, and only with \`UNPAYWALL_EMAIL\`). \`pubmed_convert_ids\`
  takes 1–200 ids; papers outside PMC come back with an \`errmsg\`.
- \`europepmc_search\` pages hold 1–100 hits (core abstracts cut to \`abstractChars\`);
  \`pubmed_annotations\` takes 1–100 PMIDs (about 2 KB per abstract; \`types\` and \`maxEntities\`
  shrink it), and PubTator is asked at most 3 times a second.
- Answers are compact: empty fields are left out, dates are ISO-8601; \`rag_search\` returns 10 papers
  unless \`top_k\` says otherwise (up to 100), and a chunk \`uuid\` only with \`include_uuid\`.
- Every answer holds at most \`MCP_MAX_ANSWER_BYTES\` (256 KiB by default) of JSON text. A list too
  long for one answer (\`pubmed_fetch\`, \`pubmed_cite\`, \`pubmed_fulltext\`, \`pubmed_annotations\`,
  \`pubmed_convert_ids\`) comes with \`more: {omitted, arguments}\`: call the same tool with
  \`arguments\` for the rest. Arguments hold at most 1 MiB, nested at most 32 levels.
- \`review_screen\` returns 1–50 records (abstracts cut at 1,500 characters); \`review_decide\` takes
  1–500 decisions; \`review_add\` up to 10,000 records (or 2,000 ids) a call.
- Identical live calls are answered from a cache (EInfo and records for a day, searches for an hour).
- Errors come back as a tool result \`{"error": {"code", "message", "details"}}\` saying how to fix the call
  (\`arguments\` must be a JSON object; a parameter name the tool does not have is refused with
  the names it has, while \`max_results\` or \`topK\` are taken for \`maxResults\` and \`top_k\`).
  An unknown tool, prompt or completion reference is a JSON-RPC error -32602 that names what exists.`;

const CLIENT_FEATURES = `- **Subscriptions** — subscribe to \`resource://pubmed/corpus\` (or a \`resource://pubmed/paper/{pmid}\`)
  to be told when a sync or a checkpoint change has changed it.
- **Completions** — values of prompt arguments such as \`studyType\`, and the PMIDs of synced papers
  for \`resource://pubmed/paper/{pmid}\` (up to 100 per request).
- **Logging** — \`logging/setLevel\` turns this server's log on for your session as
  \`notifications/message\` (off until you set a level; never the lines of other sessions' calls).
- **Progress** — \`pubmed_sync_delta\`, \`review_add\` and \`pubmed_export\` report progress when the
  call carries a \`progressToken\`.`;

function toolSection(tool: ToolDef): string {
  const kind = tool.annotations.readOnlyHint ? "read-only" : "writes";
  return `### \`${tool.name}\` — ${tool.annotations.title} (${kind})\n\n${tool.description}`;
}

const list = (entries: readonly Entry[]) =>
  entries.map((e) => `- \`${e.name}\` — ${e.description}`).join("\n");

/** Which toolsets this server offers, when the operator narrowed them (MCP_TOOLSETS). */
function toolsetNote(toolsets: ResourceContext["toolsets"]): string[] {
  if (TOOLSETS.every((t) => toolsets.includes(t))) return [];
  const off = TOOLSETS.filter((t) => !toolsets.includes(t));
  return [
    `This server offers the toolsets ${toolsets.join(", ")}; its operator left ` +
      `${off.join(", ")} off (MCP_TOOLSETS), so their tools are not listed below and cannot be called.`,
  ];
}

export function helpMarkdown({ tools, toolsets, resources, prompts }: ResourceContext): string {
  const names = new Set(tools.map((t) => t.name));
  const readOnlyNote = names.has("pubmed_sync_delta")
    ? ""
    : "\n\nThis server is read-only: it searches the corpus as synced, and `pubmed_sync_delta` is not offered.";
  const corpus = names.has("rag_search")
    ? `## Workflow: local evidence corpus\n\n${CORPUS_FLOW}${readOnlyNote}`
    : "## Local evidence corpus\n\nThe corpus tools (`pubmed_sync_delta`, `rag_search`, `rag_get`) are not offered by this server.";
  return [
    "# pubmed-mcp",
    "PubMed for agents: live NCBI E-utilities tools, and a local corpus searched offline.",
    ...toolsetNote(toolsets),
    ...(names.has("pubmed_search") ? [`## Workflow: live PubMed\n\n${LIVE_FLOW}`] : []),
    corpus,
    ...(names.has("review_screen") ? [`## Workflow: systematic review\n\n${REVIEW_FLOW}`] : []),
    ...(names.has("pubmed_verify_references") ? [`## Workflow: trust\n\n${TRUST_FLOW}`] : []),
    `## Prompts\n\n${list(prompts)}`,
    `## Resources\n\n${list(resources)}`,
    `## Limits\n\n${LIMITS}`,
    `## Client features\n\n${CLIENT_FEATURES}`,
    `## Tools\n\n${tools.map(toolSection).join("\n\n")}`,
  ].join("\n\n");
}

export const helpResource = defineResource({
  uri: "resource://pubmed/help",
  name: "help",
  description:
    "How to use this server, as markdown: what each tool is for, typical workflows " +
    "(search → fetch → cite; sync → rag_search → rag_get; review → screen → PRISMA → export), " +
    "prompts, resources and limits.",
  mimeType: "text/markdown",
  read: async (ctx) => helpMarkdown(ctx),
});

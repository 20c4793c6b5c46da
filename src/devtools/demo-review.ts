/**
 * The offline demo's labelled review (`npm run demo -- --review`): the question, criteria and
 * search of a review over the demo corpus's DEMO_REVIEW records, the labels a reviewer would
 * give them, and a walk-through that plays that reviewer against the real server over stdio —
 * review_create, review_add from PubMed, review_screen / review_decide until the stopping rule
 * fires, then review_status (PRISMA counts and diagram) and review_export (RIS).
 *
 * The labels are the record's topic: DEMO_REVIEW.relevantTopic's records are about exercise in
 * physical inactivity, the others about muscle strength in a named disease, which the title and
 * abstract say (the subject slot of every title and most sentences). Records are a pure function
 * of (seed, index), so the labels are the same on every run.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEMO_REVIEW, demoCorpus } from "./synth-ncbi.js";
import { startSynthServer } from "./synth-server.js";
import type { SynthCorpus } from "./synth.js";

export const REVIEW_TERM = DEMO_REVIEW.term;
export const REVIEW_NAME = "Exercise training in sedentary adults";
export const REVIEW_QUESTION =
  "In people with physical inactivity (sedentary adults), does exercise training — " +
  "high-intensity interval training, supervised resistance exercise or step-count targets — " +
  "improve muscle strength, cardiorespiratory fitness (VO2max), lean body mass or survival?";
export const REVIEW_CRITERIA =
  "Include: studies of physical inactivity and exercise training, of any design (trials, " +
  "cohorts, reviews, case reports, animal models of inactivity). Exclude: studies of patients " +
  "with a specific disease, even when they measure muscle strength.";
const EXCLUDE_REASON = "a specific disease, not physical inactivity";

/** Whether each record the review's search finds answers the question, by PMID. */
export function demoLabels(corpus: SynthCorpus): Map<string, boolean> {
  return new Map(
    corpus
      .records(corpus.pmidsFor(REVIEW_TERM))
      .map((r) => [r.pmid, r.topic === DEMO_REVIEW.relevantTopic]),
  );
}

/** node arguments that start the server: the sources through tsx, or the build. */
export function serverArgs(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const fromSources = here.endsWith(join("src", "devtools"));
  const main = join(here, "..", fromSources ? "main.ts" : "main.js");
  return fromSources ? ["--import", "tsx", main] : [main];
}

export interface WalkthroughOptions {
  /** Lines of the walk-through; default stdout. */
  print?: (line: string) => void;
  /**
   * The environment the server inherits (the demo's own: PATH, XDG_CACHE_HOME, NCBI_API_KEY …);
   * the walk-through sets NCBI's address, the store's folder and the transport on top.
   */
  env: Readonly<Record<string, string | undefined>>;
}

export interface WalkthroughSummary {
  reviewId: string;
  /** The fresh folder of this run: the store (removed at the end), the diagram and the export. */
  dir: string;
  identified: number;
  /** Records the labels call relevant. */
  relevant: number;
  screened: number;
  /** Relevant records included when screening stopped. */
  found: number;
  recall: number;
  stopSuggested: boolean;
  stopReason: string;
  prisma: Record<string, unknown>;
  diagramPath: string;
  exportPath: string;
}

interface Progress {
  screened: number;
  included: number;
  stop_suggested: boolean;
  stop_reason: string;
}

interface Outcome {
  json: unknown;
  content: { type: string; text?: string; data?: string; mimeType?: string }[];
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  // Screening and adding run in the server's worker; the SDK's 60 s default is no limit for them.
  const res = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
  const content = res.content as Outcome["content"];
  const text = content[0]?.type === "text" ? (content[0].text ?? "") : "";
  if (res.isError) throw new Error(`${name} failed: ${text}`);
  return { json: JSON.parse(text) as unknown, content };
}

const pad = (value: string | number, width: number) => String(value).padStart(width);

/** Screens with the labels until the server suggests stopping; prints a row a page. */
async function screenAll(
  client: Client,
  reviewId: string,
  labels: Map<string, boolean>,
  relevant: number,
  print: (line: string) => void,
): Promise<Progress> {
  print(" screened   included / relevant   stop suggested");
  for (;;) {
    const page = (await call(client, "review_screen", { review_id: reviewId, limit: 10 })).json as {
      records: { id: string }[];
      progress: Progress;
    };
    if (page.progress.stop_suggested || page.records.length === 0) return page.progress;
    const decisions = page.records.map((r) =>
      labels.get(r.id.replace(/^pmid:/, ""))
        ? { id: r.id, decision: "include" }
        : { id: r.id, decision: "exclude", reason: EXCLUDE_REASON },
    );
    const decided = await call(client, "review_decide", { review_id: reviewId, decisions });
    const p = (decided.json as { progress: Progress }).progress;
    print(
      `${pad(p.screened, 9)}   ${pad(p.included, 8)} / ${pad(relevant, 8)}   ${p.stop_suggested ? "yes" : "no"}`,
    );
    if (p.stop_suggested) return p;
  }
}

/** review_export's RIS, read through resources/read when it is too large to come inline. */
async function risExport(client: Client, reviewId: string): Promise<string> {
  const { json } = await call(client, "review_export", { review_id: reviewId, format: "ris" });
  const out = json as { text?: string; uri?: string };
  if (out.text !== undefined) return out.text;
  const read = await client.readResource({ uri: out.uri ?? "" });
  const first = read.contents[0];
  return first && "text" in first ? first.text : "";
}

/**
 * The walk-through against a corpus served by a synthetic NCBI it starts (and stops), with the
 * server in a child process over stdio and its store in a fresh temporary folder.
 */
export async function runReviewWalkthrough(opts: WalkthroughOptions): Promise<WalkthroughSummary> {
  const print = opts.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const corpus = demoCorpus({ review: true });
  const labels = demoLabels(corpus);
  const relevant = [...labels.values()].filter(Boolean).length;
  const dir = mkdtempSync(join(tmpdir(), "pubmed-mcp-demo-review-"));
  const ncbi = await startSynthServer(corpus);
  const inherited = Object.entries(opts.env).filter(
    (e): e is [string, string] => e[1] !== undefined,
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: serverArgs(),
    env: {
      ...Object.fromEntries(inherited),
      LOG_LEVEL: opts.env.LOG_LEVEL ?? "error",
      NCBI_EUTILS_BASE_URL: ncbi.baseUrl,
      ...ncbi.env,
      UNPAYWALL_EMAIL: opts.env.UNPAYWALL_EMAIL ?? "demo@example.org",
      PUBMED_MCP_DATA_DIR: join(dir, "store"),
      MCP_TRANSPORT: "stdio",
    },
  });
  const client = new Client({ name: "pubmed-mcp-demo-review", version: "1.0.0" });
  try {
    await client.connect(transport);
    const created = await call(client, "review_create", {
      name: REVIEW_NAME,
      question: REVIEW_QUESTION,
      criteria: REVIEW_CRITERIA,
    });
    const reviewId = (created.json as { review_id: string }).review_id;
    print(`review ${reviewId}: ${REVIEW_QUESTION}`);
    const added = await call(client, "review_add", {
      review_id: reviewId,
      source: "pubmed",
      term: REVIEW_TERM,
    });
    const identified = (added.json as { identified: number }).identified;
    print(`review_add pubmed "${REVIEW_TERM}": ${identified} records, ${relevant} relevant`);
    const last = await screenAll(client, reviewId, labels, relevant, print);
    const recall = relevant === 0 ? 0 : last.included / relevant;
    print(
      `stopped after ${last.screened} of ${identified}: ${last.included}/${relevant} relevant ` +
        `found (recall ${recall.toFixed(2)}); ${last.stop_reason}`,
    );

    const status = await call(client, "review_status", { review_id: reviewId });
    const prisma = (status.json as { prisma: Record<string, unknown> }).prisma;
    print(
      `PRISMA: identified ${String(prisma.identified)}, duplicates removed ` +
        `${String(prisma.duplicates_removed)}, screened ${String(prisma.screened)}, excluded ` +
        `${String(prisma.excluded_screening)}, included ${String(prisma.included)}`,
    );
    const svg = status.content.find((c) => c.mimeType === "image/svg+xml")?.data ?? "";
    const diagramPath = join(dir, "prisma.svg");
    writeFileSync(diagramPath, Buffer.from(svg, "base64"));
    print(`PRISMA flow diagram: ${diagramPath}`);
    const exportPath = join(dir, "included.ris");
    writeFileSync(exportPath, await risExport(client, reviewId));
    print(`included records (RIS): ${exportPath}`);
    return {
      reviewId,
      dir,
      identified,
      relevant,
      screened: last.screened,
      found: last.included,
      recall,
      stopSuggested: last.stop_suggested,
      stopReason: last.stop_reason,
      prisma,
      diagramPath,
      exportPath,
    };
  } finally {
    await client.close();
    await ncbi.close();
    // The store is this run's alone; the diagram and the export stay for the reader.
    rmSync(join(dir, "store"), { recursive: true, force: true });
  }
}

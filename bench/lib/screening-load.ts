/**
 * The review tools under load, for the bench's `--screening` section, each scenario a function of
 * its own: review_screen on a large review after many decisions, review_add of a search of 10,000
 * records at NCBI's request ceiling, and review_export of a large review. Records are the labelled
 * topics' records repeated under new PMIDs; the stand-in NCBI is src/devtools/review-ncbi.ts.
 */
import {
  startRecordNcbi,
  type RecordNcbi,
  type StandInRecord,
} from "../../src/devtools/review-ncbi.js";
import type { ScreeningTopic } from "./screening-data.js";
import {
  Reviewer,
  call,
  createAndAdd,
  startReviewServer,
  type ReviewServer,
} from "./screening-review.js";
import { timed } from "./stats.js";

/** The client's NCBI_MAX_RPS when NCBI's ceiling is not what is measured. */
export const FAST_RPS = 50;
/** NCBI's ceiling with an API key. */
export const NCBI_RPS = 10;

/** `n` records made of the topics' records in turn, each under a new PMID. */
function repeated(topics: readonly ScreeningTopic[], n: number) {
  const all = topics.flatMap((t) => t.docs.map((d, i) => ({ d, y: t.included[i] === true })));
  const records: StandInRecord[] = [];
  const truth = new Map<string, boolean>();
  for (let i = 0; i < n; i++) {
    const { d, y } = all[i % all.length] ?? { d: undefined, y: false };
    if (!d) throw new Error("no screening records");
    const pmid = String(90_000_000 + i);
    records.push({ pmid, title: d.title, abstract: d.abstract, mesh: d.mesh, authors: [] });
    truth.set(`pmid:${pmid}`, y);
  }
  return { records, truth };
}

async function withStandIn<T>(
  records: readonly StandInRecord[],
  term: string,
  rps: number,
  fn: (server: ReviewServer, ncbi: RecordNcbi) => Promise<T>,
): Promise<T> {
  const ncbi = await startRecordNcbi(records, {
    sets: { [term]: records.map((r) => r.pmid) },
    maxRps: rps,
  });
  const server = await startReviewServer({
    NCBI_EUTILS_BASE_URL: ncbi.baseUrl,
    NCBI_MAX_RPS: String(rps),
  });
  try {
    return await fn(server, ncbi);
  } finally {
    await server.close();
    await ncbi.close();
  }
}

/**
 * review_screen latency on `size` records once `decisions` are made: `calls` rounds of screen →
 * decide (`ms`), each followed by the same call again with no decision between (`repeatMs`: what
 * a call costs when nothing changed, which tells ranking from the work a new decision causes).
 */
export async function screenLatency(
  topics: readonly ScreeningTopic[],
  size: number,
  decisions: number,
  calls: number,
): Promise<{ ms: number[]; repeatMs: number[]; added: number }> {
  const { records, truth } = repeated(topics, size);
  return withStandIn(records, "latency", FAST_RPS, async ({ client }) => {
    const review = {
      name: "latency",
      question: "Drug efficacy and safety",
      criteria: "Randomised trials",
    };
    const { reviewId, add } = await createAndAdd(client, review, "latency", size);
    const reviewer = new Reviewer(client, reviewId, truth);
    const ids = [...truth];
    await reviewer.decide([ids.find(([, y]) => y)?.[0] ?? "", ids.find(([, y]) => !y)?.[0] ?? ""]);
    while (reviewer.order.length < decisions) await reviewer.round();
    const ms: number[] = [];
    const repeatMs: number[] = [];
    // One decision between calls (the top record), so every timed call retrains and the review
    // stays near `decisions` decided (500 → 600 over 100 calls) rather than drifting past it.
    for (let i = 0; i < calls; i++) {
      const first = await reviewer.screen();
      ms.push(first.ms);
      repeatMs.push((await reviewer.screen()).ms);
      await reviewer.decide(first.ids.slice(0, 1));
    }
    return { ms, repeatMs, added: add.added };
  });
}

/** review_add of `size` records from one search at NCBI's ceiling, then review_export of them. */
export async function addAndExport(
  topics: readonly ScreeningTopic[],
  size: number,
): Promise<{
  addMs: number;
  added: number;
  requests: number;
  refused: number;
  exported: ExportTiming;
}> {
  const { records } = repeated(topics, size);
  return withStandIn(records, "bulk", NCBI_RPS, async ({ client }, ncbi) => {
    const review = { name: "bulk", question: "Drug efficacy and safety", criteria: "" };
    const { reviewId, add, addMs } = await createAndAdd(client, review, "bulk", size);
    const { requests, refused } = ncbi;
    const exported = await exportTime(client, reviewId);
    return { addMs, added: add.added, requests, refused, exported };
  });
}

export interface ExportTiming {
  /** The review_export call. */
  callMs: number;
  /** resources/read of the link it returned past its inline size (0 when inline). */
  readMs: number;
  records: number;
  bytes: number;
  linked: boolean;
  /** Why the link could not be read (then readMs is NaN). */
  readError?: string;
}

/**
 * review_export of every record (RIS), whole: an export past the inline size comes back as a
 * resource link, and reading it is part of getting the export.
 */
export async function exportTime(
  client: ReviewServer["client"],
  reviewId: string,
): Promise<ExportTiming> {
  const args = { review_id: reviewId, format: "ris", which: "all" };
  const t = await timed(() =>
    call<{ records: number; bytes: number; uri?: string }>(client, "review_export", args),
  );
  const { records, bytes, uri } = t.value;
  if (uri === undefined) return { callMs: t.ms, readMs: 0, records, bytes, linked: false };
  const base = { callMs: t.ms, records, bytes, linked: true };
  try {
    const read = await timed(() => client.readResource({ uri }, { timeout: 600_000 }));
    const text = read.value.contents.map((c) => ("text" in c ? String(c.text) : "")).join("");
    if (!text.includes("ER  -")) throw new Error(`${uri} read back no RIS record`);
    return { ...base, readMs: read.ms };
  } catch (err) {
    return { ...base, readMs: NaN, readError: err instanceof Error ? err.message : String(err) };
  }
}

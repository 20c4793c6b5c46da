/**
 * Systematic-review tools driven as an agent drives them, for the bench's `--screening` section:
 * the real server (its state in this process, an MCP SDK client over the in-memory transport, as
 * §12 references does) against the record-serving stand-in NCBI (src/devtools/review-ncbi.ts),
 * and a simulated reviewer answering with the topic's labels (/work/shared/screening protocol).
 */
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { loadConfig } from "../../src/config.js";
import type { StandInRecord } from "../../src/devtools/review-ncbi.js";
import type { Progress } from "../../src/store/review-types.js";
import { createSession } from "../../src/server.js";
import { closeProcess, initProcess } from "../../src/worker/process.js";
import { parseCsv, type ScreeningTopic } from "./screening-data.js";
import { priorRecords } from "./screening-metrics.js";
import { timed } from "./stats.js";
import { pgliteDir } from "./stores.js";

export const STAGE = "title_abstract";
/** Records per review_screen call, as an agent screening in batches asks. */
export const SCREEN_LIMIT = 10;

/** A topic's records as the stand-in serves them; authors from the CSV's own column. */
export function standInRecords(topic: ScreeningTopic, file: string): StandInRecord[] {
  const [header, ...rows] = parseCsv(readFileSync(file, "utf8"));
  const id = header?.indexOf("pubmedID") ?? -1;
  const names = header?.indexOf("authors") ?? -1;
  const authors = new Map(
    rows.map((r) => [
      r[id] ?? "",
      (r[names] ?? "")
        .split(";")
        .map((a) => a.trim())
        .filter((a) => a !== "" && a !== "NA"),
    ]),
  );
  // The CSVs carry no publication types: none are served, as the offline simulation sees none.
  return topic.docs.map((d) => {
    const pmid = d.id.replace(/^pmid:/, "");
    return { pmid, ...d, authors: authors.get(pmid) ?? [], pubTypes: d.pubTypes };
  });
}

export interface ReviewServer {
  client: Client;
  close(): Promise<void>;
}

/** The server in this process on a fresh store, pointed at a stand-in NCBI. */
export async function startReviewServer(env: Record<string, string>): Promise<ReviewServer> {
  const scratch = await pgliteDir();
  await initProcess(
    loadConfig({ PUBMED_MCP_DATA_DIR: scratch.dataDir, LOG_LEVEL: "error", ...env }),
  );
  const session = createSession();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.connect(serverSide);
  const client = new Client({ name: "bench-screening", version: "1" });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close().catch(() => undefined);
      await session.close().catch(() => undefined);
      await closeProcess();
      await scratch.cleanup();
    },
  };
}

/** A tool's structured answer; a tool error throws with the envelope's text. */
export async function call<T>(client: Client, name: string, args: object): Promise<T> {
  const res = await client.callTool(
    { name, arguments: args as Record<string, unknown> },
    undefined,
    { timeout: 600_000 },
  );
  const first = (res.content as { type: string; text?: string }[])[0];
  if (res.isError) throw new Error(`${name} failed: ${first?.text ?? "no text"}`);
  return (res.structuredContent ?? JSON.parse(first?.text ?? "{}")) as T;
}

export interface AddAnswer {
  added: number;
  duplicates: number;
  identified: number;
  remaining?: number;
  warnings?: string[];
}

interface ScreenAnswer {
  records: { id: string; score: number }[];
  progress: Progress;
}

export async function createAndAdd(
  client: Client,
  review: { name: string; question: string; criteria: string },
  term: string,
  maxRecords: number,
): Promise<{ reviewId: string; add: AddAnswer; addMs: number }> {
  const { review_id } = await call<{ review_id: string }>(client, "review_create", review);
  const t = await timed(() =>
    call<AddAnswer>(client, "review_add", {
      review_id,
      source: "pubmed",
      term,
      max_records: maxRecords,
    }),
  );
  return { reviewId: review_id, add: t.value, addMs: t.ms };
}

/** The reviewer's side: decisions sent, their labels in order, and where a stop was first suggested. */
export class Reviewer {
  readonly order: boolean[] = [];
  /** Records decided when progress.stop_suggested was first true; undefined until then. */
  stopAt: number | undefined;
  /** review_screen calls whose records were not in descending score order. */
  unsorted = 0;

  constructor(
    private readonly client: Client,
    private readonly reviewId: string,
    private readonly truth: ReadonlyMap<string, boolean>,
  ) {}

  async decide(ids: readonly string[]): Promise<Progress> {
    const decisions = ids.map((id) => {
      const included = this.truth.get(id);
      if (included === undefined) throw new Error(`review_screen proposed ${id}, not in the topic`);
      this.order.push(included);
      return { id, decision: included ? "include" : "exclude" };
    });
    const { progress } = await call<{ progress: Progress }>(this.client, "review_decide", {
      review_id: this.reviewId,
      decisions,
    });
    if (progress.stop_suggested && this.stopAt === undefined) this.stopAt = this.order.length;
    return progress;
  }

  /** One review_screen call, timed, deciding nothing. */
  async screen(limit = SCREEN_LIMIT): Promise<{ ms: number; ids: string[] }> {
    const t = await timed(() =>
      call<ScreenAnswer>(this.client, "review_screen", {
        review_id: this.reviewId,
        stage: STAGE,
        limit,
      }),
    );
    const { records } = t.value;
    if (records.length === 0) throw new Error("review_screen proposed nothing before the end");
    if (records.some((r, i) => i > 0 && r.score > (records[i - 1]?.score ?? Infinity)))
      this.unsorted++;
    return { ms: t.ms, ids: records.map((r) => r.id) };
  }

  /** One review_screen call (timed) and the decisions on what it proposed. */
  async round(limit = SCREEN_LIMIT): Promise<{ ms: number; progress: Progress }> {
    const { ms, ids } = await this.screen(limit);
    return { ms, progress: await this.decide(ids) };
  }
}

export interface TopicRun {
  order: boolean[];
  stopAt: number | undefined;
  addMs: number;
  screenMs: number[];
  unsorted: number;
  add: AddAnswer;
}

/**
 * One simulated review of a topic: create, add every record with one PubMed search, decide the
 * seed's two prior records (screening-metrics' priorRecords: the offline simulation's), then
 * review_screen → review_decide until every record has a decision.
 */
export async function screenTopic(
  client: Client,
  topic: ScreeningTopic,
  seed: number,
  review: { question: string; criteria: string },
): Promise<TopicRun> {
  const { reviewId, add, addMs } = await createAndAdd(
    client,
    { name: `${topic.name} (seed ${seed})`, ...review },
    topic.name,
    topic.docs.length,
  );
  const truth = new Map(topic.docs.map((d, i) => [d.id, topic.included[i] === true]));
  if (add.added !== truth.size)
    throw new Error(`review_add added ${add.added} records of ${truth.size}`);
  const reviewer = new Reviewer(client, reviewId, truth);
  const prior = priorRecords(topic.included, seed).map((i) => topic.docs[i]?.id ?? "");
  let progress = await reviewer.decide(prior);
  const screenMs: number[] = [];
  while (progress.remaining > 0) {
    const r = await reviewer.round();
    screenMs.push(r.ms);
    progress = r.progress;
  }
  return {
    order: reviewer.order,
    stopAt: reviewer.stopAt,
    addMs,
    screenMs,
    unsorted: reviewer.unsorted,
    add,
  };
}

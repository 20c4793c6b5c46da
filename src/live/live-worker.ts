/**
 * The live thread (./live-thread.ts starts it): formats citations, parses long EFetch replies and
 * long JATS articles, draws trend charts, and posts each answer back. A citation call is
 * formatted one record per turn of this thread's loop, so a parse or a cancel sent meanwhile is
 * read after the current record (milliseconds; only the first record of a style waits for
 * citation-js to build its engine). JATS articles and charts are done one per turn, in the order
 * sent; a cancel read before one starts drops it. An error goes back as its message, with its
 * code and details when it is one of ../errors.ts: the calling thread turns it into the call's
 * error, of the same class.
 */
import { parentPort } from "node:worker_threads";
import { AppError } from "../errors.js";
import { parseJats } from "../literature/jats.js";
import { renderTrendSvg } from "./chart.js";
import { stdoutToStderr } from "../threads.js";
import { formatCitations } from "./citations.js";
import type { FromLiveThread, ToLiveThread } from "./live-thread.js";
import { parseEFetchFast } from "../ncbi/parse/efetch.js";

if (!parentPort) throw new Error("src/live/live-worker.ts runs as a worker thread only");
const port = parentPort;
stdoutToStderr();

type CiteJob = Extract<ToLiveThread, { type: "cite" }>;
type Job = Extract<ToLiveThread, { type: "jats" | "chart" }>;
const citations: CiteJob[] = [];
/** The citation call the caller gave up (it is told only of the call being formatted). */
let cancelled = 0;
/** JATS articles and charts not yet started. */
const jobs: Job[] = [];
let working = false;

function failure(id: number, err: unknown): FromLiveThread {
  if (!(err instanceof Error)) return { id, ok: false, message: String(err) };
  return {
    id,
    ok: false,
    message: err.message,
    ...(err.stack ? { stack: err.stack } : {}),
    ...(err instanceof AppError ? { code: err.code, details: err.details } : {}),
    ...(err.cause instanceof Error ? { cause: err.cause.message } : {}),
  };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function cite(job: CiteJob): Promise<FromLiveThread> {
  const value: Record<string, string>[] = [];
  try {
    for (const article of job.articles) {
      if (cancelled === job.id) return { id: job.id, ok: false, message: "cancelled" };
      value.push(formatCitations(article, job.styles));
      await nextTurn();
    }
    return { id: job.id, ok: true, value };
  } catch (err) {
    return failure(job.id, err);
  }
}

async function formatAll(): Promise<void> {
  for (let job = citations[0]; job; job = citations[0]) {
    port.postMessage(await cite(job));
    citations.shift();
  }
}

async function run(job: Job): Promise<FromLiveThread> {
  try {
    const value =
      job.type === "jats"
        ? parseJats(job.xml, job.service)
        : await renderTrendSvg(job.query, job.counts);
    return { id: job.id, ok: true, value };
  } catch (err) {
    return failure(job.id, err);
  }
}

/** Each job in a turn of its own: a cancel (or a citation record) sent meanwhile is read first. */
async function workAll(): Promise<void> {
  working = true;
  await nextTurn();
  for (let job = jobs.shift(); job; job = jobs.shift()) {
    port.postMessage(await run(job));
    await nextTurn();
  }
  working = false;
}

port.on("message", (msg: ToLiveThread) => {
  switch (msg.type) {
    case "cancel": {
      const waiting = jobs.findIndex((j) => j.id === msg.id);
      if (waiting >= 0) jobs.splice(waiting, 1);
      else if (citations[0]?.id === msg.id) cancelled = msg.id;
      return;
    }
    case "parse": {
      let reply: FromLiveThread;
      try {
        reply = { id: msg.id, ok: true, value: parseEFetchFast(msg.xml) };
      } catch (err) {
        reply = failure(msg.id, err);
      }
      port.postMessage(reply);
      return;
    }
    case "jats":
    case "chart":
      jobs.push(msg);
      if (!working) void workAll();
      return;
    case "cite":
      citations.push(msg);
      if (citations.length === 1) void formatAll();
  }
});

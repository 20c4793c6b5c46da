/**
 * The live thread (./live-thread.ts starts it): formats citations and parses long EFetch replies
 * it is sent, and posts each answer back. A citation call is formatted one record per turn of
 * this thread's loop, so a parse or a cancel sent meanwhile is read after the current record
 * (milliseconds; only the first record of a style waits for citation-js to build its engine).
 * An error goes back as its message: the calling thread turns it into the call's error.
 */
import { parentPort } from "node:worker_threads";
import { stdoutToStderr } from "../threads.js";
import { formatCitations } from "./cite.js";
import type { FromLiveThread, ToLiveThread } from "./live-thread.js";
import { parseEFetchFast } from "./parse/efetch.js";

if (!parentPort) throw new Error("src/eutils/live-worker.ts runs as a worker thread only");
const port = parentPort;
stdoutToStderr();

type CiteJob = Extract<ToLiveThread, { type: "cite" }>;
const citations: CiteJob[] = [];
/** The citation call the caller gave up (it is told only of the call being formatted). */
let cancelled = 0;

const failure = (id: number, err: unknown): FromLiveThread =>
  err instanceof Error
    ? { id, ok: false, message: err.message, ...(err.stack ? { stack: err.stack } : {}) }
    : { id, ok: false, message: String(err) };

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

port.on("message", (msg: ToLiveThread) => {
  switch (msg.type) {
    case "cancel":
      cancelled = msg.id;
      return;
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
    case "cite":
      citations.push(msg);
      if (citations.length === 1) void formatAll();
  }
});

/**
 * The live thread (./live-thread.ts starts it): formats citations, parses long EFetch replies and
 * long JATS articles, draws trend charts, and posts each answer back. A citation call is
 * formatted one record per turn of this thread's loop, so a parse or a cancel sent meanwhile is
 * read after the current record (milliseconds; only the first record of a style waits for
 * citation-js to build its engine). JATS articles and charts are done one per turn, in the order
 * sent; a cancel read before one starts drops it. An error goes back with its class, code and
 * details (../net/channel.ts): the calling thread rebuilds it as the call's error.
 */
import { parseJats } from "../jats/parse.js";
import { parentChannel } from "../net/thread-channel.js";
import { renderTrendSvg } from "./chart.js";
import { stdoutToStderr } from "../threads.js";
import { formatCitations } from "./citations.js";
import type { LiveApi } from "./live-thread.js";
import { parseEFetch } from "../ncbi/parse/efetch.js";

const owner = parentChannel("src/live/live-worker.ts");
stdoutToStderr();

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Job {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}
/** JATS articles and charts not yet started. */
const jobs: Job[] = [];
let working = false;

/**
 * `run` in a turn of its own, after the jobs sent before it: a cancel (or a citation record)
 * sent meanwhile is read first. Cancelled before it starts, it is dropped.
 */
function inTurn<T>(run: () => T | Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const job: Job = { run, resolve: resolve as Job["resolve"], reject };
    jobs.push(job);
    signal.addEventListener(
      "abort",
      () => {
        const waiting = jobs.indexOf(job);
        if (waiting < 0) return;
        jobs.splice(waiting, 1);
        reject(new Error("cancelled"));
      },
      { once: true },
    );
    if (!working) void workAll();
  });
}

async function workAll(): Promise<void> {
  working = true;
  await nextTurn();
  for (let job = jobs.shift(); job; job = jobs.shift()) {
    try {
      job.resolve(await job.run());
    } catch (err) {
      job.reject(err);
    }
    await nextTurn();
  }
  working = false;
}

const api: LiveApi = {
  /** Record by record, a turn each; a cancel read meanwhile stops it at the next record. */
  async cite({ articles, styles }, served) {
    const value: Record<string, string>[] = [];
    for (const article of articles) {
      if (served.signal.aborted) throw new Error("cancelled");
      value.push(formatCitations(article, styles));
      await nextTurn();
    }
    return value;
  },
  parse: (xml) => parseEFetch(xml),
  jats: ({ xml, service }, served) => inTurn(() => parseJats(xml, service), served.signal),
  chart: ({ query, counts }, served) => inTurn(() => renderTrendSvg(query, counts), served.signal),
};

owner.serve(api);

/**
 * The corpus threads run at a lower priority than the MCP thread (src/threads.ts): when the cores
 * are busy, the thread that answers MCP calls runs first. Read from the kernel (Linux's
 * /proc/self/task/<tid>/stat): the prepare thread and the corpus worker, with the BM25 thread it
 * starts, have nice BACKGROUND_NICE; the calling thread keeps its own. Skipped with a note where
 * threads have no priority of their own.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import ts from "typescript";
import { PrepareThread } from "../../src/corpus/prepare-thread.js";
import { createSynthCorpus } from "../../src/devtools/synth.js";
import { articleSetXml } from "../../src/devtools/synth-xml.js";
import { BACKGROUND_NICE } from "../../src/threads.js";
import { backendEnv } from "../helpers/db.js";
import { callTool, startHarness, type Harness } from "../helpers/mcp.js";
import { REPO_DIR } from "../helpers/shared.js";

jest.setTimeout(120_000);

const LINUX = process.platform === "linux" && existsSync("/proc/thread-self");
if (!LINUX) console.warn("thread-priority tests skipped: no per-thread priority on this system");
const describeLinux = LINUX ? describe : describe.skip;

interface ThreadStat {
  name: string;
  nice: number;
}

/** A process's threads by id: name and nice value (the 19th field of stat). */
function threadsOf(pid: number | "self"): Map<number, ThreadStat> {
  const out = new Map<number, ThreadStat>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue; // the thread ended meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    out.set(Number(tid), { name, nice: Number(fields[16]) });
  }
  return out;
}

/** This process's threads: id → nice value. */
function niceByThread(): Map<number, number> {
  return new Map([...threadsOf("self")].map(([t, s]) => [t, s.nice]));
}

/** Threads started since `before` whose nice is at least `nice`. */
function newAtLeast(before: Map<number, number>, nice: number): number[] {
  return [...niceByThread()].filter(([t, n]) => !before.has(t) && n >= nice).map(([t]) => t);
}

const mainNice = () => niceByThread().get(process.pid);

describeLinux("corpus threads' priority", () => {
  it("the sync's prepare thread runs at the background nice, the caller at its own", async () => {
    const own = mainNice();
    const before = niceByThread();
    const thread = new PrepareThread();
    try {
      const synth = createSynthCorpus({
        seed: 3,
        terms: [{ term: "nice", count: 5, edatFrom: "2020-01-01", edatTo: "2020-12-31" }],
      });
      const body = articleSetXml(Array.from({ length: 5 }, (_, i) => synth.recordAt(i)));
      // Answered by the thread, so its module (which lowers its priority first) has run.
      expect((await thread.prepare(body, new Date())).docs).toHaveLength(5);
      expect(thread.answered).toBe(1);
      expect(newAtLeast(before, BACKGROUND_NICE)).toHaveLength(1);
      expect(mainNice()).toBe(own);
    } finally {
      await thread.close();
    }
  });

  describe("the corpus worker", () => {
    let backend: Awaited<ReturnType<typeof backendEnv>>;
    let h: Harness;
    let before: Map<number, number>;
    let own: number | undefined;
    beforeAll(async () => {
      own = mainNice();
      before = niceByThread();
      backend = await backendEnv("pglite");
      h = await startHarness({ env: backend.env });
    });
    afterAll(async () => {
      await h.close();
      await backend.cleanup();
    });

    it("runs, with the BM25 thread it starts, at the background nice", async () => {
      // A search opens the store in the worker, which starts the BM25 thread.
      const res = await callTool(h.client, "rag_search", { query: "heart failure" });
      expect(res.isError).toBeFalsy();
      // The worker and its BM25 thread (a thread inherits its creator's priority).
      expect(newAtLeast(before, BACKGROUND_NICE).length).toBeGreaterThanOrEqual(2);
      expect(mainNice()).toBe(own);
    });
  });

  it("leaves libuv's pool, which every thread's file and DNS calls use, at the process's nice", async () => {
    // A plain node process (tsx's loader would start the pool itself on the main thread): a
    // worker lowers its priority and then makes the process's first pool request, as the corpus
    // worker of a built server does when it opens the store.
    const dir = mkdtempSync(join(tmpdir(), "pubmed-mcp-nice-"));
    try {
      const source = readFileSync(join(REPO_DIR, "src", "threads.ts"), "utf8");
      const js = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      writeFileSync(join(dir, "threads.mjs"), js);
      writeFileSync(
        join(dir, "worker.mjs"),
        `import { parentPort } from "node:worker_threads";
        import { readFile } from "node:fs/promises";
        import { lowerThisThreadPriority } from "./threads.mjs";
        const lowered = lowerThisThreadPriority(${BACKGROUND_NICE});
        await readFile(new URL(import.meta.url));
        parentPort.on("message", () => undefined); // alive until terminated, so it is listed
        parentPort.postMessage(lowered);`,
      );
      // The child says whether the worker lowered itself, then lives until its stdin closes.
      writeFileSync(
        join(dir, "main.mjs"),
        `import { Worker } from "node:worker_threads";
        const worker = new Worker(new URL("./worker.mjs", import.meta.url));
        worker.once("message", (lowered) => console.log(JSON.stringify(lowered)));
        process.stdin.on("end", () => worker.terminate()).resume();`,
      );
      const child = spawn(process.execPath, [join(dir, "main.mjs")], {
        stdio: ["pipe", "pipe", "inherit"],
      });
      const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
      const threads = [...threadsOf(child.pid!)];
      child.stdin!.end();
      await once(child, "exit");
      const lowered = JSON.parse(line) as boolean;
      expect(lowered).toBe(true);
      const main = threads.find(([tid]) => tid === child.pid)?.[1];
      const pool = threads.filter(([, t]) => t.name === "libuv-worker");
      expect(pool.length).toBeGreaterThan(0);
      expect(pool.every(([, t]) => t.nice === main?.nice)).toBe(true);
      expect(threads.filter(([, t]) => t.nice >= BACKGROUND_NICE)).toHaveLength(1); // the worker
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

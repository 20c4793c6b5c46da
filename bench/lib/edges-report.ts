/** The edges section's figures, notes and goals (issue 45's goals, stated beside each figure). */
import type { CallRecord, RawOutcome } from "./edges-fuzz.js";
import type { HttpRun } from "./edges-http.js";
import type { ProbeSample } from "./edges-probe.js";
import { figure, quantile, ratio, type SectionResult } from "./stats.js";
import { fmt } from "./table.js";

export interface EdgesRun {
  calls: CallRecord[];
  /** Each tool's answer ceiling in bytes of content (src/tools/answer.ts). */
  ceilings: Record<string, number>;
  /**
   * The server's memory after every tenth of the calls (no GC first): RSS, the main thread's JS
   * heap and external memory, and its worker threads' heaps and external memory together.
   */
  series: {
    calls: number;
    rssMb: number;
    heapMb: number;
    externalMb: number;
    /** Each worker thread's heap (physical) plus its external memory, by module name. */
    threads: Record<string, number>;
  }[];
  fuzzS: number;
  pings: number[];
  fuzzLoop: ProbeSample;
  /** pubmed_cite of 50 PMIDs × 6 styles first thing (fresh) and after the calls (warm). */
  cite: Record<"fresh" | "warm", { call: Omit<CallRecord, "kind">; loop: ProbeSample }>;
  rss: {
    idle: number;
    start: number;
    afterFuzz: number;
    end5s: number;
    /** `idleS` seconds after the last message. */
    end: number;
    idleS: number;
    /** After the main thread's full GC at the end. */
    afterGc: number;
    peak: number;
  };
  /** The server's memory after a full collection at the end; null if it had ended. */
  retained: ProbeSample | null;
  /** How the stdio server ended before the section stopped it, if it did. */
  exited: string | null;
  aliveAfterFuzz: boolean;
  stdioRaw: RawOutcome[];
  http: HttpRun;
}

/** An invalid call's answer may be this big, or twice its request if that is more. */
export const INVALID_FLOOR_BYTES = 64 * 1024;
const KB = 1024;

/** Refused as invalid: a VALIDATION result or a JSON-RPC error about the request itself. */
const refused = (c: CallRecord) =>
  c.outcome === "VALIDATION" || /^JSON-RPC -32(60[0-2]|700)$/.test(c.outcome);
const isUnknown = (outcome: string) => outcome === "UNKNOWN" || outcome === "JSON-RPC -32603";
const overBound = (c: CallRecord) =>
  refused(c) && c.answerBytes > Math.max(INVALID_FLOOR_BYTES, 2 * c.requestBytes);
/** Answers whose content passed their tool's ceiling. */
const overCeiling = (r: EdgesRun) =>
  r.calls.filter((c) => c.contentBytes > (r.ceilings[c.tool] ?? Infinity));
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "");

function counts<T>(items: T[], key: (t: T) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const item of items) m.set(key(item), (m.get(key(item)) ?? 0) + 1);
  return new Map([...m].sort((a, b) => b[1] - a[1]));
}

const describe = (c: Omit<CallRecord, "kind"> & { kind?: string }) =>
  `${c.tool} ${c.kind ?? ""} ${fmt(c.requestBytes / KB)} kB → ${fmt(c.answerBytes / KB)} kB ${c.outcome}`;

export function edgesFigures(out: SectionResult, r: EdgesRun): void {
  const calls = r.calls;
  const answered = calls.filter((c) => c.answerBytes > 0);
  const byRatio = [...answered].sort(
    (a, b) => b.answerBytes / b.requestBytes - a.answerBytes / a.requestBytes,
  );
  const bySize = [...answered].sort((a, b) => b.answerBytes - a.answerBytes);
  const invalid = bySize.filter(refused);
  const f = (key: string, label: string, unit: string, v: number) =>
    out.figures.push(figure(`edges.${key}`, label, unit, [v]));

  f("calls", "generated tool calls (stdio)", "calls", calls.length);
  f("calls_per_s", "calls answered per second", "calls/s", calls.length / r.fuzzS);
  for (const [outcome, n] of counts(calls, (c) => c.outcome))
    f(`outcome.${slug(outcome)}`, `answers: ${outcome}`, "calls", n);
  f(
    "unknown",
    "UNKNOWN answers, JSON-RPC -32603 included (goal 0)",
    "calls",
    calls.filter((c) => isUnknown(c.outcome)).length,
  );
  f(
    "no_answer",
    "calls never answered (goal 0)",
    "calls",
    calls.filter((c) => c.answerBytes === 0).length,
  );
  f("answer_max_kb", "largest answer", "kB", (bySize[0]?.answerBytes ?? 0) / KB);
  f(
    "invalid_answer_max_kb",
    "largest answer to a refused call",
    "kB",
    (invalid[0]?.answerBytes ?? 0) / KB,
  );
  f(
    "over_ceiling",
    "answers whose content passed their tool's ceiling (goal 0)",
    "calls",
    overCeiling(r).length,
  );
  f(
    "invalid_over_bound",
    "refused calls answered with more than max(64 kB, 2 × request) (goal 0)",
    "calls",
    calls.filter(overBound).length,
  );
  f(
    "loop_delay_p99_ms",
    "server event-loop delay p99 over the calls (goal ≤ 20)",
    "ms",
    r.fuzzLoop.delayP99Ms,
  );
  f(
    "loop_delay_max_ms",
    "server event-loop delay max over the calls (goal ≤ 100)",
    "ms",
    r.fuzzLoop.delayMaxMs,
  );
  for (const when of ["fresh", "warm"] as const) {
    const { call, loop } = r.cite[when];
    const what = `pubmed_cite of 50 PMIDs in 6 styles, ${when === "fresh" ? "first thing after start" : "after the calls"}`;
    f(`cite.${when}.ms`, `${what} (${call.outcome})`, "ms", call.ms);
    f(
      `cite.${when}.loop_delay_p99_ms`,
      `server event-loop delay p99, ${what} (goal ≤ 20)`,
      "ms",
      loop.delayP99Ms,
    );
    f(
      `cite.${when}.loop_delay_max_ms`,
      `server event-loop delay max, ${what} (goal ≤ 100)`,
      "ms",
      loop.delayMaxMs,
    );
  }
  const pings = r.pings.filter(Number.isFinite);
  if (pings.length > 0) {
    f(
      "ping_rtt_p99_ms",
      "ping round trip p99 during the calls (seen from the client)",
      "ms",
      quantile(pings, 0.99),
    );
    f(
      "ping_rtt_max_ms",
      "ping round trip max during the calls (seen from the client)",
      "ms",
      Math.max(...pings),
    );
  }
  f("rss_idle_mb", "server RSS after initialize", "MB", r.rss.idle);
  f("rss_start_mb", "server RSS at start (after one valid call of each tool)", "MB", r.rss.start);
  f("rss_after_calls_mb", "server RSS after the calls", "MB", r.rss.afterFuzz);
  f("rss_peak_mb", "server peak RSS, VmHWM (goal ≤ 400)", "MB", r.rss.peak);
  f("rss_end_5s_mb", "server RSS 5 s after the last message", "MB", r.rss.end5s);
  f("rss_end_mb", `server RSS ${r.rss.idleS} s after the last message`, "MB", r.rss.end);
  f(
    "rss_after_gc_mb",
    "server RSS at the end, after a full GC of the main thread",
    "MB",
    r.rss.afterGc,
  );
  f(
    "retained_heap_mb",
    "server JS heap used after a full GC at the end",
    "MB",
    r.retained?.heapUsedMb ?? NaN,
  );
  f(
    "retained_external_mb",
    "server external memory after a full GC at the end",
    "MB",
    r.retained?.externalMb ?? NaN,
  );
  const stdioAlive = [r.aliveAfterFuzz, ...r.stdioRaw.map((o) => o.alive)];
  f(
    "stdio.sessions_alive",
    `stdio session alive after the calls and each raw message, of ${stdioAlive.length} (goal all)`,
    "checks",
    stdioAlive.filter(Boolean).length,
  );
  f(
    "http.sessions_alive",
    `HTTP session alive after each raw body, of ${r.http.outcomes.length} (goal all)`,
    "checks",
    r.http.outcomes.filter((o) => o.alive).length,
  );
  f("http.rss_peak_mb", "HTTP server peak RSS, VmHWM (goal ≤ 400)", "MB", r.http.rssPeakMb);

  const top = byRatio[0];
  out.ratios.push(
    ratio(
      "edges.answer_vs_request_max",
      "largest answer ÷ its request",
      `answer bytes ÷ request bytes of that call (${top ? describe(top) : "none"})`,
      [top?.answerBytes ?? NaN],
      [top?.requestBytes ?? NaN],
    ),
    ratio(
      "edges.rss_end_vs_start",
      "server RSS at the end ÷ at start (goal ≤ 1.2)",
      `RSS ${r.rss.idleS} s after the last message ÷ RSS after the warm-up calls`,
      [r.rss.end],
      [r.rss.start],
    ),
  );

  const perKind = counts(calls, (c) => c.kind);
  out.notes.push(
    `${calls.length} calls in ${fmt(r.fuzzS)} s; outcomes per kind of call: ` +
      [...perKind.keys()]
        .map((kind) => {
          const of = counts(
            calls.filter((c) => c.kind === kind),
            (c) => c.outcome,
          );
          return `${kind} (${perKind.get(kind)}): ${[...of].map(([o, n]) => `${o} ${n}`).join(", ")}`;
        })
        .join("; "),
    `server memory during the calls (calls: RSS / main heap / main external / each worker thread's heap + external, MB): ${r.series
      .map(
        (p) =>
          `${p.calls}: ${fmt(p.rssMb)} / ${fmt(p.heapMb)} / ${fmt(p.externalMb)} / ${Object.entries(
            p.threads,
          )
            .map(([n, mb]) => `${n} ${fmt(mb)}`)
            .join(" ")}`,
      )
      .join("; ")}`,
    `largest answers: ${bySize.slice(0, 5).map(describe).join("; ")}`,
    `largest answer ÷ request: ${byRatio
      .slice(0, 5)
      .map((c) => `${fmt(c.answerBytes / c.requestBytes)}× ${describe(c)}`)
      .join("; ")}`,
    ...[
      ...counts(
        calls.filter((c) => c.excerpt),
        (c) => `${c.outcome} ${c.tool} ${c.kind}: ${c.excerpt}`,
      ),
    ]
      .slice(0, 12)
      .map(([what, n]) => `unexpected (${n}×): ${what}`),
    `stdio raw lines (expected → got, alive after): ${r.stdioRaw.map((o) => `${o.name}: ${o.expect} → ${o.got}${o.alive ? "" : ", SESSION DEAD"}`).join("; ")}`,
    r.http.error
      ? `HTTP part not run: ${r.http.error}`
      : `HTTP raw bodies: ${r.http.outcomes.map((o) => `${o.name}: ${o.expect} → ${o.got}${o.alive ? "" : ", SESSION DEAD"}`).join("; ")}; RSS ${fmt(r.http.rssStartMb)} → ${fmt(r.http.rssEndMb)} MB`,
    r.retained
      ? memoryNote(r.retained)
      : `the stdio server ended during the raw messages (${r.exited ?? "?"})`,
    "Event-loop delay is the server's own (bench/lib/edges-probe.ts preloaded: monitorEventLoopDelay at 10 ms resolution, less the resolution); ping round trips are the client's view and include the pipe. Bytes are whole JSON-RPC lines as they crossed stdio.",
  );
}

/** The goals beside the figures, one line each, for stderr. */
export function goalLines(r: EdgesRun): string[] {
  const unknown = r.calls.filter((c) => isUnknown(c.outcome)).length;
  const over = r.calls.filter(overBound).length;
  const silent = r.calls.filter((c) => c.answerBytes === 0).length;
  const aliveAll =
    r.aliveAfterFuzz &&
    r.stdioRaw.every((o) => o.alive) &&
    !r.http.error &&
    r.http.outcomes.every((o) => o.alive);
  const atMost = (goal: string, value: number, unit: string, limit: number) =>
    [`${goal} ≤ ${limit} ${unit}`, `${fmt(value)} ${unit}`, value <= limit] as const;
  const delays = [
    ["calls", r.fuzzLoop],
    ["cite 50 × 6, fresh", r.cite.fresh.loop],
    ["cite 50 × 6, warm", r.cite.warm.loop],
  ] as const;
  const rows: (readonly [string, string, boolean])[] = [
    ["0 UNKNOWN", `${unknown}`, unknown === 0],
    ["every call answered", `${silent} unanswered`, silent === 0],
    ["no answer over its ceiling", `${overCeiling(r).length} over`, overCeiling(r).length === 0],
    ["no refusal over max(64 kB, 2 × request)", `${over} over`, over === 0],
    ...delays.flatMap(([what, loop]) => [
      atMost(`loop delay p99 (${what})`, loop.delayP99Ms, "ms", 20),
      atMost(`loop delay max (${what})`, loop.delayMaxMs, "ms", 100),
    ]),
    atMost("RSS peak (stdio)", r.rss.peak, "MB", 400),
    atMost("RSS peak (HTTP)", r.http.rssPeakMb, "MB", 400),
    atMost(`RSS ${r.rss.idleS} s idle ÷ start`, r.rss.end / r.rss.start, "×", 1.2),
    ["every session alive after every message", aliveAll ? "all alive" : "one died", aliveAll],
  ];
  const width = Math.max(...rows.map((row) => row[0].length));
  return [
    "Edges: goals (issue 45)",
    ...rows.map(
      ([goal, got, met]) => `  ${goal.padEnd(width)}  ${met ? "met    " : "NOT MET"}  ${got}`,
    ),
  ];
}

/** Where the server's memory was at the end, main thread collected first. */
function memoryNote(m: ProbeSample): string {
  const spaces = Object.entries(m.spaces).map(([s, mb]) => `${s} ${fmt(mb)}`);
  const threads = m.workers.map(
    (w) => `${w.name} ${fmt(w.heapUsedMb)} / ${fmt(w.physicalMb)} / ${fmt(w.externalMb)}`,
  );
  return (
    `server memory at the end, main thread after a full GC: heap ${fmt(m.heapUsedMb)} MB used ` +
    `of ${fmt(m.heapTotalMb)} ` +
    `(${spaces.join(", ")}), external ${fmt(m.externalMb)} MB (array buffers ` +
    `${fmt(m.arrayBuffersMb)}); worker threads, not collected (heap used / physical / ` +
    `external, MB): ${threads.join(", ")}; handles ${JSON.stringify(m.resources)}`
  );
}

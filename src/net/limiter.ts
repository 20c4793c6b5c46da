/**
 * The gate every NCBI request passes: a p-queue for the concurrency cap and fair ordering, and a
 * sliding-window check in front of each start. NCBI allows 3 requests/s without an API key and 10
 * with one, counted over any second as requests arrive. p-queue's own sliding window (`strict`)
 * counts task starts, which can be long before a request is on the wire; this one counts the
 * moment each request is written to the socket (below), holds starts for a cool-down after a
 * 429 with probes, fails at once a wait longer than the caller's deadline, and checks the
 * replicas' shared budget (shared-budget.ts), first come, first served across them, after the
 * local check: what p-queue does not do.
 */
import { AsyncResource } from "node:async_hooks";
import dc from "node:diagnostics_channel";
import PQueue from "p-queue";
import { sleep } from "../sleep.js";
import type { Admission, Place, Refusal, SharedBudget } from "./shared-budget.js";

/**
 * NCBI counts arrivals, not our starts. A start is therefore timed when undici writes the request
 * to the socket (after connect/TLS, which can take far longer for a fresh connection than for a
 * pooled one), and the window is 1 s plus this margin for the jitter between write and arrival
 * (tens of ms on the internet; 5–25 ms at a loopback stand-in in its own process on a loaded
 * machine). Judge the ceiling where NCBI would, in another process: a stand-in that notes arrivals
 * on an event loop it shares with the sender sees them bunched by that loop's lag (11 in one
 * second from starts 1.1 s apart on the wire: __tests__/eutils/rate-ceiling.test.ts tells more).
 */
export const SAFETY_MARGIN_MS = 100;
/** How often a full window is re-checked while its oldest request is not yet on the wire. */
const POLL_MS = 20;
/**
 * Cool-down policy after a 429. NCBI's Retry-After is honoured up to MAX_COOL_DOWN_MS (a single
 * "Retry-After: 3600" must not stop every live tool for an hour), and while a cool-down runs one
 * request at a time may start every PROBE_INTERVAL_MS as a probe: when it is not refused, NCBI is
 * back and the cool-down ends for everyone. Documented in the README (NCBI etiquette).
 */
export const MAX_COOL_DOWN_MS = 30_000;
export const PROBE_INTERVAL_MS = 2_000;
const COOL_POLL_MS = 100;

/** The moment (on the limiter's clock) by which a call must have started, registered per signal. */
const deadlines = new WeakMap<AbortSignal, number>();

/** Records that `signal` aborts at `at` (performance.now() ms), so waits longer than that fail at once. */
export function setDeadline(signal: AbortSignal, at: number): AbortSignal {
  deadlines.set(signal, at);
  return signal;
}

export function deadlineOf(signal: AbortSignal | undefined): number | undefined {
  return signal ? deadlines.get(signal) : undefined;
}

/**
 * A call cannot start before its deadline: the replicas' shared budget is taken by the calls
 * queued ahead of it (`queued` in all, this one included).
 */
export class BudgetSaturatedError extends Error {
  constructor(
    /** How long until this call's turn would come, in ms. */
    readonly waitMs: number,
    readonly queued: number,
  ) {
    super(`the shared budget is saturated: ${queued} calls queued`);
    this.name = "BudgetSaturatedError";
  }
}

/** A call cannot start before its deadline: NCBI asked for a pause that outlasts it. */
export class CoolDownError extends Error {
  constructor(
    /** How long until requests may start again, in ms. */
    readonly waitMs: number,
  ) {
    super(`NCBI asked for a pause of ${Math.ceil(waitMs / 1000)} s`);
    this.name = "CoolDownError";
  }
}

export interface LimiterOptions {
  /** Most starts in any window (NCBI_MAX_RPS). */
  maxRps: number;
  /** Most requests in flight at once; defaults to maxRps. */
  concurrency?: number;
  /** Window length; 1 s plus the safety margin unless a test says otherwise. */
  windowMs?: number;
  /** Monotonic clock in ms. */
  now?: () => number;
  /**
   * A budget shared with other processes (replicas on one database): each start that the local
   * window allows is also admitted there. The local window stays the fast path and still applies.
   */
  shared?: SharedBudget;
}

/** Handed to a task: send `headers` with the request so its moment on the wire can be seen. */
export interface Ticket {
  headers: Record<string, string>;
  /** Marks the request as on the wire now (called for you when undici reports it). */
  onWire(): void;
}

interface Start {
  at: number;
  /** Until true, the request may still be about to arrive, so it counts as arriving now. */
  onWire: boolean;
  /** Started during a cool-down to test whether NCBI accepts requests again. */
  probe: boolean;
  /** The shared budget's record of this start, when there is one. */
  shared?: Admission;
}

export class RateLimiter {
  private readonly queue: PQueue;
  /** Most starts in any window. */
  readonly maxRps: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly shared: SharedBudget | undefined;
  private starts: Start[] = [];
  private coolUntil = 0;
  /** During a cool-down: when the next probe may start, and whether one is out. */
  private nextProbeAt = 0;
  private probing = false;
  private total = 0;

  constructor(opts: LimiterOptions) {
    this.maxRps = Math.max(1, Math.floor(opts.maxRps));
    this.windowMs = opts.windowMs ?? 1000 + SAFETY_MARGIN_MS;
    this.now = opts.now ?? (() => performance.now());
    this.shared = opts.shared;
    this.queue = new PQueue({ concurrency: Math.max(1, opts.concurrency ?? this.maxRps) });
  }

  /**
   * Runs `task` once a slot is free and the window allows a start. An abort of `signal` removes the
   * call from the queue or ends its wait with `signal.reason`; the task itself must honour the
   * signal for its own I/O. A task whose request was never seen on the wire counts as sent when it
   * ends: the latest moment it can have reached NCBI.
   */
  run<T>(task: (ticket: Ticket) => Promise<T>, signal?: AbortSignal): Promise<T> {
    // p-queue runs the task from another call's continuation: bind it to the caller's async
    // context, so what it logs is credited to the caller's MCP session (src/protocol/logging.ts).
    // A call that must wait here for a slot is numbered in the replicas' shared queue now, so it
    // keeps its place among the calls of every replica that arrived after it.
    const place: Place = {};
    if (this.shared && this.queue.pending >= this.queue.concurrency) {
      place.reserved = this.shared.reserve();
    }
    return this.queue.add(
      AsyncResource.bind(async () => {
        const start = await this.acquire(signal, deadlineOf(signal), place);
        const onWire = () => {
          if (start.onWire) return;
          start.at = this.now();
          start.onWire = true;
          start.shared?.sent();
        };
        const tag = watchWire(onWire);
        try {
          return await task({ headers: tag.headers, onWire });
        } finally {
          tag.release();
          onWire();
          if (start.probe) this.probing = false;
        }
      }),
      { signal },
    );
  }

  /**
   * After a 429 no request may start before `ms` from now (at most MAX_COOL_DOWN_MS), whoever sends
   * it, except one probe every PROBE_INTERVAL_MS.
   */
  coolDown(ms: number): void {
    const now = this.now();
    const until = now + Math.min(Math.max(0, ms), MAX_COOL_DOWN_MS);
    if (until > this.coolUntil) this.coolUntil = until;
    this.nextProbeAt = now + PROBE_INTERVAL_MS;
  }

  /** NCBI accepted a request: any cool-down is over. */
  accepted(): void {
    this.coolUntil = 0;
  }

  /** ms until requests may start again without probing (0 when not cooling down). */
  get coolDownMs(): number {
    return Math.max(0, this.coolUntil - this.now());
  }

  /** Calls waiting for a slot. */
  get size(): number {
    return this.queue.size;
  }

  /** Calls holding a slot (waiting for the window or in flight). */
  get pending(): number {
    return this.queue.pending;
  }

  /** Requests started since creation. */
  get started(): number {
    return this.total;
  }

  /**
   * Waits until a start is allowed, then records it; check-and-record is synchronous, so no race.
   * A call whose deadline comes before the cool-down lets anything start, or before its turn in
   * the replicas' shared queue, fails at once; a call that gives up leaves that queue.
   */
  private async acquire(
    signal: AbortSignal | undefined,
    deadline: number | undefined,
    place: Place,
  ): Promise<Start> {
    try {
      if (place.reserved) place.ticket ??= await place.reserved;
      return await this.waitForStart(signal, deadline, place);
    } finally {
      if (place.ticket !== undefined) this.shared?.leave(place);
    }
  }

  private async waitForStart(
    signal: AbortSignal | undefined,
    deadline: number | undefined,
    place: Place,
  ): Promise<Start> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.now();
      this.starts = this.starts.filter((s) => !s.onWire || now - s.at < this.windowMs);
      const probe = this.probeNow(now);
      const wait = probe ? this.windowWaitMs(now) : this.waitMs(now);
      if (wait <= 0) {
        const start: Start = { at: now, onWire: false, probe };
        if (probe) {
          this.probing = true;
          this.nextProbeAt = now + PROBE_INTERVAL_MS;
        }
        // Held locally while the shared budget decides, so no other local call takes the slot.
        this.starts.push(start);
        const refusal = await this.admitShared(start, place, signal);
        if (refusal === undefined) {
          this.total += 1;
          return start;
        }
        if (deadline !== undefined && this.now() + refusal.waitMs >= deadline) {
          throw new BudgetSaturatedError(refusal.waitMs, refusal.queued);
        }
        await sleep(refusal.waitMs, signal);
        continue;
      }
      const cooling = this.coolUntil - now;
      // The earliest this call could go is the next probe slot or the cool-down's end; while a
      // probe is out its answer may end the cool-down, so no verdict until it lands.
      if (deadline !== undefined && cooling > 0 && !this.probing) {
        if (now + Math.min(cooling, this.nextProbeAt - now) >= deadline) {
          throw new CoolDownError(cooling);
        }
      }
      // Timers may fire a little early against this clock; the loop re-checks. During a cool-down
      // the loop also looks again soon, since a probe's success ends it for everyone.
      await sleep(Math.ceil(cooling > 0 ? Math.min(wait, COOL_POLL_MS) : wait), signal);
    }
  }

  /**
   * Undefined when the shared budget (if any) admits `start`; otherwise the local hold is dropped
   * and the budget's refusal returned. An abort during the round trip gives the start back.
   */
  private async admitShared(
    start: Start,
    place: Place,
    signal: AbortSignal | undefined,
  ): Promise<Refusal | undefined> {
    if (!this.shared) return undefined;
    const verdict = await this.shared.admit(this.maxRps, this.windowMs, place);
    if (!("waitMs" in verdict)) {
      if (!signal?.aborted) {
        start.shared = verdict;
        return undefined;
      }
      verdict.cancel();
    }
    this.starts = this.starts.filter((s) => s !== start);
    if (start.probe) this.probing = false;
    signal?.throwIfAborted();
    return "waitMs" in verdict ? verdict : undefined;
  }

  /** During a cool-down, whether this start may be the probe that tests whether NCBI is back. */
  private probeNow(now: number): boolean {
    return now < this.coolUntil && !this.probing && now >= this.nextProbeAt;
  }

  private waitMs(now: number): number {
    return Math.max(this.coolUntil - now, this.windowWaitMs(now));
  }

  private windowWaitMs(now: number): number {
    if (this.starts.length < this.maxRps) return 0;
    const sent = this.starts.filter((s) => s.onWire).map((s) => s.at);
    return sent.length > 0 ? Math.min(...sent) + this.windowMs - now : POLL_MS;
  }
}

/**
 * Node's fetch (undici) publishes "undici:client:sendHeaders" when a request's headers are written
 * to the socket; a per-request header lets us tell which request it was. With another fetch the
 * event never comes and the limiter falls back to the (later, safe) end of the task.
 */
const WIRE_HEADER = "x-pubmed-mcp-request";
const waitingForWire = new Map<string, () => void>();
let wireSeq = 0;
let subscribed = false;

function watchWire(onWire: () => void): { headers: Record<string, string>; release(): void } {
  if (!subscribed) {
    dc.subscribe("undici:client:sendHeaders", (message) => {
      const headers = (message as { request?: { headers?: unknown } }).request?.headers;
      const id = headerValue(headers, WIRE_HEADER);
      if (id !== undefined) waitingForWire.get(id)?.();
    });
    subscribed = true;
  }
  const id = String(++wireSeq);
  waitingForWire.set(id, onWire);
  return { headers: { [WIRE_HEADER]: id }, release: () => waitingForWire.delete(id) };
}

/** undici keeps request headers as a flat [name, value, …] array (or "name: value\r\n" text). */
function headerValue(headers: unknown, name: string): string | undefined {
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) {
      if (String(headers[i]).toLowerCase() === name) return String(headers[i + 1]);
    }
    return undefined;
  }
  if (typeof headers !== "string") return undefined;
  return new RegExp(`^${name}:\\s*(\\S+)`, "im").exec(headers)?.[1];
}

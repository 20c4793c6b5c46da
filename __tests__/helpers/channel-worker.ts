/**
 * A thread for the tests of src/net/channel.ts and thread-channel.ts
 * (__tests__/net/channel.test.ts): answers a few requests that echo, fail, wait for their cancel,
 * report progress, hand buffers back, ask the owner in turn, or end the thread.
 */
import { CancelledError, ERROR_CLASSES, UpstreamError } from "../../src/errors.js";
import type { Served } from "../../src/net/channel.js";
import { parentChannel } from "../../src/net/thread-channel.js";

/** What the owner answers the thread. */
export type OwnerApi = {
  double(n: number): number;
  /** Answers once its signal aborts. */
  hold(_: void, served: Served): Promise<string>;
};

export type ChannelTestApi = {
  echo(value: unknown): unknown;
  fail(kind: "upstream" | "cancelled" | "type"): never;
  /** Answers once its signal aborts (never, unless cancelled). */
  untilCancelled(_: void, served: Served): Promise<string>;
  /** Requests whose signal aborted so far. */
  cancels(): number;
  count(to: number, served: Served<number>): Promise<number>;
  /** The bytes' sum, and the bytes handed back (transferred, not copied). */
  sum(bytes: Uint8Array, served: Served): { sum: number; bytes: Uint8Array };
  remember(value: string): void;
  recall(): string[];
  exit(code: number): void;
  /** Asks the owner to double `n`, for this request. */
  ask(n: number, served: Served): Promise<number>;
  /** Asks the owner to hold, for this request, and answers what the owner answers. */
  askToHold(_: void, served: Served): Promise<string>;
  /** Aborts every request being served here (as the corpus worker's close does). */
  drain(): void;
};

const owner = parentChannel<OwnerApi>("__tests__/helpers/channel-worker.ts", ERROR_CLASSES);
const remembered: string[] = [];
let cancels = 0;

const api: ChannelTestApi = {
  echo: (value) => value,
  fail(kind) {
    if (kind === "upstream") {
      throw new UpstreamError(
        "NCBI timed out",
        { service: "efetch" },
        { cause: new Error("ETIMEDOUT") },
      );
    }
    if (kind === "cancelled") throw new CancelledError("The call was cancelled.");
    throw new TypeError("x is undefined");
  },
  untilCancelled: (_, served) =>
    new Promise((resolve) =>
      served.signal.addEventListener("abort", () => {
        cancels++;
        resolve("cancelled");
      }),
    ),
  cancels: () => cancels,
  async count(to, served) {
    for (let i = 1; i <= to; i++) {
      served.progress(i);
      await new Promise((resolve) => setImmediate(resolve));
    }
    return to;
  },
  sum(bytes, served) {
    served.transfer([bytes.buffer as ArrayBuffer]);
    return { sum: bytes.reduce((a, b) => a + b, 0), bytes };
  },
  remember: (value) => void remembered.push(value),
  recall: () => remembered,
  exit: (code) => process.exit(code),
  ask: (n, served) => owner.request("double", n, { within: served.id }),
  askToHold: (_, served) => owner.request("hold", undefined, { within: served.id }),
  drain: () => void owner.drain(),
};

owner.serve(api);

/**
 * setTimeout as a promise that rejects with `signal.reason` when the signal aborts. The callers
 * rely on that reason (a client's cancel, a call's deadline as RATE_LIMIT); `node:timers/promises`
 * rejects with an AbortError of its own instead.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

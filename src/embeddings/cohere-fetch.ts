/**
 * Transport helper for the Cohere embedder: a fetch that never rejects (working around a timer
 * leak in cohere-ai).
 */

/** Marks the stand-in response fetchWithoutRejections makes for a failed fetch. */
export const FETCH_FAILED = "x-pubmed-mcp-fetch-failed";

/**
 * cohere-ai 8.1 starts a timer per request and clears it only when fetch resolves, so every
 * refused connection or aborted request kept the process alive for the whole SDK timeout (the
 * CLI could not exit). Turning a rejected fetch into a marked 599 response lets the SDK clear it;
 * #classify reads the mark, and aborts are recognised from our own signals before that.
 */
export async function fetchWithoutRejections(...args: Parameters<typeof fetch>): Promise<Response> {
  try {
    return await fetch(...args);
  } catch (err) {
    const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
    const message = String(cause?.code ?? cause?.message ?? (err as Error).message);
    return new Response(JSON.stringify({ message }), {
      status: 599,
      headers: { "content-type": "application/json", [FETCH_FAILED]: "1" },
    });
  }
}

/**
 * A stand-in for Crossref's REST API (the `/works` list route only) for tests: real HTTP on
 * 127.0.0.1, plain node:http, sharing fake-eutils.ts's reply options and `send`. No recorded
 * Crossref replies exist, so the works it serves are the test's own, and its replies are written
 * after Crossref's documented shapes (https://api.crossref.org/swagger-ui/index.html; the
 * `update-to` / `updated-by` relations as https://github.com/CrossRef/rest-api-doc/issues/205 shows
 * them): a `work-list` message whose items carry only the `select`ed fields. It answers
 * `filter=updates:A,updates:B` with the works whose `update-to` names A or B (the notices), and
 * `filter=doi:A,doi:B` with the works A and B (repeated filters of one name are ORed, as Crossref
 * does). Every request is recorded with its raw query string.
 *
 *   const cr = await startFakeCrossref({ works: [retractionNotice("10.1/notice", "10.1/paper")] });
 *   const h = await startHarness({ env: { ...cr.env, CROSSREF_MAILTO: "ops@example.org" } });
 *   cr.failWith({ status: 500, body: "busy" });   // every request fails until failWith(undefined)
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { later, send, type FakeReply } from "./fake-eutils.js";

export interface CrossrefUpdate {
  DOI?: string;
  /** Crossref's update type: "retraction", "correction", "erratum", "withdrawal", "new_version", … */
  type: string;
  label?: string;
  updated?: { "date-parts": number[][]; "date-time"?: string; timestamp?: number };
  /** On `updated-by`: "publisher" or "retraction-watch". */
  source?: string;
}

export interface CrossrefWork {
  DOI: string;
  type?: string;
  title?: string[];
  "update-to"?: CrossrefUpdate[];
  "updated-by"?: CrossrefUpdate[];
}

export interface CrossrefRequest {
  path: string;
  /** The query string as sent (decoded), to check that no secret is echoed and what was asked. */
  query: string;
  params: Record<string, string>;
  /** The `filter` parameter split into [name, value] pairs. */
  filters: [string, string][];
}

export interface FakeCrossref {
  /** CROSSREF_BASE_URL pointed here. */
  env: { CROSSREF_BASE_URL: string };
  requests: CrossrefRequest[];
  /** Every request gets `reply` (whatever the works say) until called with undefined. */
  failWith(reply: FakeReply | undefined): void;
  close(): Promise<void>;
}

/** An `updated` date as Crossref writes it. */
export function crossrefDate(y: number, m: number, d: number): CrossrefUpdate["updated"] {
  const at = Date.UTC(y, m - 1, d);
  return {
    "date-parts": [[y, m, d]],
    "date-time": new Date(at).toISOString().replace(/\.000Z$/, "Z"),
    timestamp: at,
  };
}

export async function startFakeCrossref(opts: { works: CrossrefWork[] }): Promise<FakeCrossref> {
  const requests: CrossrefRequest[] = [];
  let failure: FakeReply | undefined;
  const server = createServer((inc, res) => {
    const url = new URL(inc.url ?? "/", "http://fake");
    const params = Object.fromEntries(url.searchParams);
    const filters = (params.filter ?? "")
      .split(",")
      .filter((f) => f !== "")
      .map((f): [string, string] => {
        const at = f.indexOf(":");
        return [f.slice(0, at), f.slice(at + 1)];
      });
    const req: CrossrefRequest = {
      path: url.pathname,
      query: decodeURIComponent(url.search),
      params,
      filters,
    };
    requests.push(req);
    const reply = failure ?? answer(req, opts.works);
    later(reply.delayMs ?? 0, res, () => send(res, reply));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    env: { CROSSREF_BASE_URL: `http://127.0.0.1:${port}` },
    requests,
    failWith: (reply) => {
      failure = reply;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

function answer(req: CrossrefRequest, works: readonly CrossrefWork[]): FakeReply {
  if (req.path !== "/works") {
    return { status: 404, body: "Resource not found.", contentType: "text/plain" };
  }
  const names = new Set(req.filters.map(([n]) => n));
  const values = new Set(req.filters.map(([, v]) => v.toLowerCase()));
  if (names.size !== 1 || !(names.has("updates") || names.has("doi"))) {
    return {
      status: 400,
      body: JSON.stringify({
        status: "failed",
        "message-type": "validation-failure",
        message: [{ type: "filter-not-available", value: [...names].join(","), message: "" }],
      }),
    };
  }
  const items = names.has("doi")
    ? works.filter((w) => values.has(w.DOI.toLowerCase()))
    : works.filter((w) =>
        (w["update-to"] ?? []).some((u) => values.has((u.DOI ?? "").toLowerCase())),
      );
  const select = req.params.select?.split(",");
  const rows = Number(req.params.rows ?? 20);
  const shown = items.slice(0, rows).map((w) => (select ? pick(w, select) : w));
  return {
    contentType: "application/json;charset=utf-8",
    body: JSON.stringify({
      status: "ok",
      "message-type": "work-list",
      "message-version": "1.0.0",
      message: {
        facets: {},
        "total-results": items.length,
        items: shown,
        "items-per-page": rows,
        query: { "start-index": 0, "search-terms": null },
      },
    }),
  };
}

function pick(work: CrossrefWork, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(work).filter(([k]) => fields.includes(k)));
}

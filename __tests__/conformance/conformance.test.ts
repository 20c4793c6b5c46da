/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, server mode) against
 * the real HTTP front (`startHttpServer`, Streamable HTTP at /mcp, default settings: no token, no
 * MCP_ALLOWED_HOSTS/ORIGINS) with a fake NCBI and an isolated data dir. One jest test per
 * scenario, so each passes or fails on its own; a failure lists the suite's failing checks.
 *
 * The server runs in this process (the same code `pubmed-mcp serve --http` starts, without a
 * build step); the suite is a separate process speaking HTTP to it, as any client would.
 *
 * A scenario "passes" when the CLI exits 0 (no check with status FAILURE) and, where named
 * below, the checks that prove the feature was really exercised are SUCCESS — several
 * scenarios end with only a WARNING when the server lacks what they need (e.g. no session id),
 * which the CLI counts as a pass.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { onUtility } from "../helpers/fake-eutils.js";
import {
  ESPELL_XML,
  connectStreamable,
  startHttpHarness,
  type HttpHarness,
} from "../http/harness.js";
import { listServerScenarios, problems, runScenario, type Check } from "./run.js";

interface Expectation {
  /** Checks that must be present with status SUCCESS. */
  succeed: string[];
  /** Checks that must not appear at all (a WARNING the suite uses for a missing feature). */
  absent?: string[];
}

/** Every server scenario that applies to a product server, with what it must show. */
const APPLIES: Record<string, Expectation> = {
  "server-initialize": { succeed: ["server-initialize"] },
  ping: { succeed: ["ping"] },
  "logging-set-level": { succeed: ["logging-set-level"] },
  "tools-list": { succeed: ["tools-list"] },
  "resources-list": { succeed: ["resources-list"] },
  // Both subscribe to `test://watched-resource`: a server that advertises subscriptions accepts
  // any URI (updates are only sent for resources that exist).
  "resources-subscribe": { succeed: ["resources-subscribe"] },
  "resources-unsubscribe": { succeed: ["resources-unsubscribe"] },
  "prompts-list": { succeed: ["prompts-list"] },
  // Host `evil.example.com` must get a 4xx; the server's own 127.0.0.1:<port> a 2xx.
  "dns-rebinding-protection": {
    succeed: ["localhost-host-rebinding-rejected", "localhost-host-valid-accepted"],
  },
  // Needs an Mcp-Session-Id (else it stops with a WARNING). Three concurrent POSTs on one
  // session must all be accepted.
  "server-sse-multiple-streams": { succeed: ["server-accepts-multiple-post-streams"] },
  // SEP-1699 polling. Its other checks are SHOULDs that cannot succeed against the SDK's
  // transport: the suite sends `MCP-Protocol-Version: 2025-03-26` on the POST and the SDK only
  // writes priming events (and their `retry:` field) for 2025-11-25 clients, so those stay
  // WARNING. What the suite can check here: a session id, and no FAILURE on the POST stream.
  "server-sse-polling": { succeed: [], absent: ["server-sse-polling-session"] },
};

/**
 * Scenarios that test the suite's reference "everything" server: each calls a fixture by a name
 * only that server has, so against any product server it can only fail. Where the behaviour it
 * checks is generic, the "same checks" tests below make it against this server's own names.
 */
const DOES_NOT_APPLY: Record<string, string> = {
  "completion-complete":
    "asks completions for the fixture prompt `test_prompt_with_arguments`; this server has no such prompt, and the spec answers an unknown prompt with -32602, which the scenario counts as a failure (same check below with pico_search)",
  "tools-call-simple-text": "calls the fixture tool `test_simple_text`",
  "tools-call-image": "calls the fixture tool `test_image_content`",
  "tools-call-audio": "calls the fixture tool `test_audio_content`",
  "tools-call-embedded-resource": "calls the fixture tool `test_embedded_resource`",
  "tools-call-mixed-content": "calls the fixture tool `test_multiple_content_types`",
  "tools-call-with-logging": "calls the fixture tool `test_tool_with_logging`",
  "tools-call-error":
    "calls the fixture tool `test_error_handling` (same check below: a tool error is isError with a text message)",
  "tools-call-with-progress":
    "calls the fixture tool `test_tool_with_progress`; this server reports progress from pubmed_sync_delta (__tests__/corpus)",
  "tools-call-sampling": "calls `test_sampling`; this server never asks the client for sampling",
  "tools-call-elicitation": "calls `test_elicitation`; this server never elicits input",
  "elicitation-sep1034-defaults": "calls `test_elicitation_sep1034_defaults` (elicitation)",
  "elicitation-sep1330-enums": "calls `test_elicitation_sep1330_enums` (elicitation)",
  "json-schema-2020-12":
    "looks for the fixture tool `json_schema_2020_12_tool` with a hand-written 2020-12 inputSchema",
  "resources-read-text": "reads the fixture resource `test://static-text`",
  "resources-read-binary": "reads the fixture resource `test://static-binary`",
  "resources-templates-read":
    "reads `test://template/123/data` from a fixture template; this server's template (resource://pubmed/paper/{pmid}) serves synced papers only",
  "prompts-get-simple": "gets the fixture prompt `test_simple_prompt`",
  "prompts-get-with-args": "gets the fixture prompt `test_prompt_with_arguments`",
  "prompts-get-embedded-resource": "gets the fixture prompt `test_prompt_with_embedded_resource`",
  "prompts-get-with-image": "gets the fixture prompt `test_prompt_with_image`",
};

/** A check's status; when it is missing, what the suite said instead (it stopped early). */
const statusOf = (checks: Check[], id: string) =>
  checks.find((c) => c.id === id)?.status ??
  `missing; the suite reported: ${problems(checks).join(" | ") || "nothing"}`;

let h: HttpHarness;
let url: string;

beforeAll(async () => {
  h = await startHttpHarness({ routes: [onUtility("espell", { body: ESPELL_XML })] });
  url = `${h.http.url}/mcp`;
}, 60_000);

afterAll(async () => {
  await h.close();
});

describe("MCP conformance suite, server scenarios over Streamable HTTP", () => {
  it.each(Object.keys(APPLIES))(
    "%s",
    async (scenario) => {
      const expected = APPLIES[scenario] ?? { succeed: [] };
      const run = await runScenario(url, scenario);
      expect(run.checks.length).toBeGreaterThan(0);
      // Failing and warning checks first: on a failure this is the readable part.
      expect(problems(run.checks).filter((p) => p.includes(": FAILURE"))).toEqual([]);
      expect(run.exitCode).toBe(0);
      expect(
        Object.fromEntries(expected.succeed.map((id) => [id, statusOf(run.checks, id)])),
      ).toEqual(Object.fromEntries(expected.succeed.map((id) => [id, "SUCCESS"])));
      const absent = new Set(expected.absent ?? []);
      expect(problems(run.checks.filter((c) => absent.has(c.id)))).toEqual([]);
    },
    120_000,
  );

  it("runs or explains every server scenario the installed suite has", async () => {
    const known = await listServerScenarios();
    expect(known.length).toBeGreaterThan(10);
    const accounted = new Set([...Object.keys(APPLIES), ...Object.keys(DOES_NOT_APPLY)]);
    expect(known.filter((s) => !accounted.has(s))).toEqual([]);
    // A name listed here but gone from the suite is a stale entry.
    expect([...accounted].filter((s) => !known.includes(s))).toEqual([]);
  }, 60_000);
});

describe("the fixture scenarios' generic checks, against this server's own names", () => {
  let client: Client;
  beforeAll(async () => {
    client = await connectStreamable(h.http.url);
  }, 60_000);
  afterAll(async () => {
    await client.close();
  });

  it("completion-complete: a prompt argument completes to a values array", async () => {
    const { completion } = await client.complete({
      ref: { type: "ref/prompt", name: "pico_search" },
      argument: { name: "studyType", value: "c" },
    });
    expect(completion.values).toEqual(expect.arrayContaining(["cohort", "case_control"]));
    expect(completion.values).not.toContain("rct");
  });

  it("completion-complete: the suite's fixture prompt is refused with -32602 naming the prompts that exist", async () => {
    const err = await client
      .complete({
        ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
        argument: { name: "arg1", value: "test" },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32602);
    expect((err as McpError).message).toContain("pico_search");
  });

  it("tools-call-error: a failing tool call is isError with a readable text message", async () => {
    const result = await client.callTool({ name: "pubmed_spell", arguments: { query: "" } });
    expect(result.isError).toBe(true);
    const content = result.content as { type: string; text: string }[];
    expect(content[0]?.type).toBe("text");
    expect(JSON.parse(content[0]?.text ?? "{}")).toMatchObject({ error: { code: "VALIDATION" } });
  });
});

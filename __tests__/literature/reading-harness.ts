/**
 * The harness of the reading-tool tests: the official MCP SDK client in-memory against a server
 * whose NCBI is fake-eutils and whose Europe PMC, PubTator (and ID Converter, Unpaywall) are
 * fake-literature, serving the recorded replies of ../shared/fixtures/literature where present.
 * Retries back off 5 ms, so failure paths stay quick.
 */
import { afterAll, beforeAll, beforeEach } from "@jest/globals";
import { startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import {
  recordedLiteratureRoutes,
  startFakeLiterature,
  type FakeLiterature,
} from "../helpers/fake-literature.js";
import { callTool, startHarness, type Harness } from "../helpers/mcp.js";
import { HAS_LITERATURE } from "../helpers/shared.js";

export type Json = Record<string, unknown>;

export interface ReadingHarness {
  ncbi: FakeEutils;
  lit: FakeLiterature;
  /** Calls a tool; `json` is its decoded text (the result or the error envelope). */
  call: (tool: string, args: Json) => Promise<{ isError: boolean; json: Json }>;
}

/** Registers the suite's hooks (fakes reset before each test) and returns its handles. */
export function useReadingHarness(): ReadingHarness {
  let h: Harness;
  const handles = {} as ReadingHarness;
  beforeAll(async () => {
    handles.ncbi = await startFakeEutils();
    handles.lit = await startFakeLiterature({
      routes: HAS_LITERATURE ? recordedLiteratureRoutes() : [],
    });
    h = await startHarness({
      fake: handles.ncbi,
      env: handles.lit.env,
      eutils: { backoffBaseMs: 5 },
      services: { backoffBaseMs: 5 },
    });
  });
  afterAll(async () => {
    await h.close();
    await handles.ncbi.close();
    await handles.lit.close();
  });
  beforeEach(() => {
    handles.ncbi.reset();
    handles.lit.reset();
  });
  handles.call = async (tool, args) => {
    const out = await callTool(h.client, tool, args);
    return { isError: out.isError, json: out.json as Json };
  };
  return handles;
}

/** The error envelope's body. */
export const envelope = (json: Json) =>
  (json as { error: { code: string; message: string } }).error;

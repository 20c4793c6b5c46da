/**
 * A synthetic NCBI (src/devtools/synth-ncbi.ts) behind the fake E-utilities server, for one
 * describe block: the server starts once; before each test a fresh corpus is made from `options`
 * and served, replacing any routes the previous test added. Call it at the top of the block,
 * before the hooks that start a harness on `fake` (jest runs beforeEach hooks in order).
 */
import { afterAll, beforeAll, beforeEach } from "@jest/globals";
import {
  createSynthCorpus,
  type SynthCorpus,
  type SynthCorpusOptions,
} from "../../src/devtools/synth.js";
import { synthHandler } from "../../src/devtools/synth-ncbi.js";
import { startFakeEutils, type FakeEutils } from "./fake-eutils.js";

export interface SynthNcbi {
  /** The fake E-utilities server (its requests, extra routes). */
  readonly fake: FakeEutils;
  /** This test's corpus: what the fake answers from. */
  readonly corpus: SynthCorpus;
}

export function useSynthNcbi(options: SynthCorpusOptions): SynthNcbi {
  let fake: FakeEutils | undefined;
  let corpus: SynthCorpus | undefined;
  beforeAll(async () => {
    fake = await startFakeEutils();
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => {
    const served = createSynthCorpus(options);
    const handle = synthHandler(served);
    corpus = served;
    ncbi.fake.reset();
    ncbi.fake.route((req) => handle(req));
  });
  const ncbi: SynthNcbi = {
    get fake() {
      if (!fake) throw new Error("useSynthNcbi: the fake NCBI is not started (outside a test?)");
      return fake;
    },
    get corpus() {
      if (!corpus) throw new Error("useSynthNcbi: no corpus yet (outside a test?)");
      return corpus;
    },
  };
  return ncbi;
}

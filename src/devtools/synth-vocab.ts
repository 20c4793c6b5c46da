/**
 * The generator's word lists (fixtures/synth/vocabulary.json, written by this project). Read once,
 * on first use, from the checkout's root: the same relative path holds from src/devtools and from
 * dist/devtools. Neither this folder nor `fixtures` ships in the npm package: the demo runs from a
 * checkout (`npm run demo`).
 */
import { readFileSync } from "node:fs";

export type MeshPair = [ui: string, name: string];

export interface Topic {
  key: string;
  aliases: string[];
  /** Noun phrase; may carry inline markup. */
  subject: string;
  interventions: string[];
  outcomes: string[];
  markers: string[];
  mesh: MeshPair[];
  keywords: string[];
  /** Whether animal experiments make sense for the topic. */
  animal: boolean;
}

export interface Journal {
  title: string;
  iso: string;
  issnPrint: string | null;
  issnElectronic: string | null;
  nlmId: string;
  country: string;
  /** MEDLINE citation subset: "AIM" journals are also "IM". */
  subset: "AIM" | "IM" | null;
  weight: number;
  firstYear: number;
  pubModel: "Print" | "Print-Electronic" | "Electronic" | "Electronic-eCollection";
  /** Article numbers (e.g. "e0123") instead of page ranges. */
  eloc: boolean;
}

export interface Vocabulary {
  topics: Topic[];
  populations: string[];
  settings: string[];
  animalModels: string[];
  sentences: Record<"background" | "objective" | "methods" | "results" | "conclusions", string[]>;
  titles: Record<
    "rct" | "meta" | "sysrev" | "review" | "observational" | "case" | "basic",
    string[]
  >;
  acronyms: string[];
  surnames: string[];
  forenames: string[];
  departments: string[];
  /** [name, city, country] */
  institutions: [string, string, string][];
  emailDomains: string[];
  collectiveNames: string[];
  /** [agency, country, grant-id prefix or null] */
  grantAgencies: [string, string, string | null][];
  journals: Journal[];
  /** misspelt word → correction, for ESpell */
  spelling: Record<string, string>;
}

let cached: Vocabulary | undefined;

export function vocabulary(): Vocabulary {
  if (!cached) {
    const url = new URL("../../fixtures/synth/vocabulary.json", import.meta.url);
    cached = JSON.parse(readFileSync(url, "utf8")) as Vocabulary;
  }
  return cached;
}

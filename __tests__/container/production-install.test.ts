/**
 * What users and the container get, without publishing and without Docker, from a fresh build:
 * - the npm package: `npm pack`, then `npm install --omit=dev <tarball>` in an empty directory,
 *   as `npm install -g ./pubmed-mcp-<version>.tgz` or `npx -y pubmed-mcp` would; its `pubmed-mcp`
 *   command is driven over stdio and HTTP by the SDK client against a fake NCBI;
 * - the image's runtime: scripts/install-production.sh (the Dockerfile's deps stage) beside the
 *   same build, served over HTTP and stopped with SIGTERM.
 * Catches a runtime import of a dev or peer dependency, a file missing from `files`, a bin that
 * only works from the source tree. Skips (with a note) only when the npm registry is unreachable.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { TOOLS } from "../../src/tools/index.js";
import { onUtility, startFakeEutils, type FakeEutils } from "../helpers/fake-eutils.js";
import { testEnv } from "../helpers/mcp.js";
import { REPO_DIR } from "../helpers/shared.js";
import { ESPELL_XML } from "../http/harness.js";

const run = promisify(execFile);
const NPM_FLAGS = ["--no-audit", "--no-fund", "--prefer-offline"];
const PATH = `${dirname(process.execPath)}:${process.env.PATH ?? ""}`;
const { version } = JSON.parse(readFileSync(join(REPO_DIR, "package.json"), "utf8")) as {
  version: string;
};

async function registryReachable(): Promise<boolean> {
  try {
    await run("npm", ["ping"], { timeout: 15_000 });
    return true;
  } catch {
    return false;
  }
}

/** `npm run build` into `stage/dist`, plus what `files` adds, beside the checkout's node_modules. */
async function stagePackage(stage: string): Promise<void> {
  const tsc = join(REPO_DIR, "node_modules", "typescript", "bin", "tsc");
  const out = join(stage, "dist");
  // --noCheck: type errors are the typecheck step's business.
  await run(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", out, "--noCheck"], {
    cwd: REPO_DIR,
  });
  await run(process.execPath, [join(REPO_DIR, "scripts", "postbuild.mjs"), out]);
  for (const f of ["package.json", "README.md", "LICENSE", "CHANGELOG.md", "SECURITY.md"])
    cpSync(join(REPO_DIR, f), join(stage, f));
  // npm pack copies the bundled dependencies out of the installed tree.
  symlinkSync(join(REPO_DIR, "node_modules"), join(stage, "node_modules"), "dir");
}

interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  bundled: string[];
  files: { path: string }[];
}

async function pack(stage: string, dest: string): Promise<Packed> {
  const { stdout } = await run(
    "npm",
    ["pack", "--json", "--ignore-scripts", "--pack-destination", dest],
    { cwd: stage, maxBuffer: 64 * 1024 * 1024 },
  );
  return (JSON.parse(stdout) as Packed[])[0]!;
}

/** `npm install --omit=dev <tarball>` into an empty project, as a user would. */
async function installTarball(tarball: string, app: string): Promise<void> {
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), '{ "name": "app", "private": true }\n');
  await run("npm", ["install", "--omit=dev", ...NPM_FLAGS, tarball], {
    cwd: app,
    timeout: 240_000,
  });
}

/** The Dockerfile's deps stage: locked production dependencies, no dev, no peers. */
async function installLikeTheImage(image: string): Promise<void> {
  mkdirSync(join(image, "scripts"), { recursive: true });
  for (const f of ["package.json", "package-lock.json", "scripts/install-production.sh"])
    cpSync(join(REPO_DIR, f), join(image, f));
  await run("sh", ["scripts/install-production.sh", "--prefer-offline"], {
    cwd: image,
    timeout: 240_000,
  });
}

async function sizeOf(dir: string): Promise<string> {
  const { stdout } = await run("du", ["-sb", dir]);
  return `${(Number(stdout.split("\t")[0]) / 1e6).toFixed(1)} MB`;
}

/** Starts `command … serve --http` on a free port; resolves with the port from the start-up log. */
function startHttp(
  command: string,
  args: string[],
  env: Record<string, string>,
  started: ChildProcess[],
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(command, [...args, "serve", "--http"], {
    env: { PATH, HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.push(child);
  return new Promise((resolve, reject) => {
    let log = "";
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 30_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      const line = log.split("\n").find((l) => l.includes("serving over HTTP"));
      if (line) {
        clearTimeout(timer);
        resolve({ child, port: (JSON.parse(line) as { port: number }).port });
      }
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}:\n${log}`)));
  });
}

const reachable = await registryReachable();
if (!reachable)
  process.stderr.write(
    "note: skipping the production-install test: the npm registry is unreachable\n",
  );

(reachable ? describe : describe.skip)("production install", () => {
  let work: string;
  let packed: Packed;
  let app: string;
  let image: string;
  let fake: FakeEutils;
  const children: ChildProcess[] = [];
  const env = (extra: Record<string, string> = {}) =>
    testEnv(fake, mkdtempSync(join(work, "data-")), extra);

  /** One pubmed_spell call through `client`; the fake NCBI must see exactly that one request. */
  async function spellThrough(client: Client): Promise<void> {
    const seen = fake.requests.length;
    const res = await client.callTool({
      name: "pubmed_spell",
      arguments: { query: "asthmaa childrn" },
    });
    expect(res.structuredContent).toEqual({
      original: "asthmaa childrn",
      corrected: "asthma children",
      hasSuggestion: true,
    });
    expect(fake.requests.slice(seen).map((r) => r.utility)).toEqual(["espell"]);
  }

  /** /health, then initialize + a tool call over Streamable HTTP, then SIGTERM → exit 0. */
  async function checkHttp(server: { child: ChildProcess; port: number }): Promise<void> {
    const base = `http://127.0.0.1:${server.port}`;
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const client = new Client({ name: "prod-http", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", base)));
    expect(client.getServerVersion()).toMatchObject({ name: "pubmed-mcp", version });
    await spellThrough(client);
    await client.close();
    const exited = new Promise<number | null>((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "pubmed-mcp-prod-"));
    const stage = join(work, "stage");
    mkdirSync(stage);
    app = join(work, "app");
    image = join(work, "image");
    const t0 = performance.now();
    const took = async (what: string, work: Promise<void>) => {
      await work;
      process.stderr.write(
        `production install: ${what} in ${Math.round(performance.now() - t0)} ms\n`,
      );
    };
    const user = async () => {
      await took("package built", stagePackage(stage));
      packed = await pack(stage, work);
      await took("tarball installed", installTarball(join(work, packed.filename), app));
    };
    await Promise.all([user(), took("image dependencies installed", installLikeTheImage(image))]);
    cpSync(join(stage, "dist"), join(image, "dist"), { recursive: true });
    rmSync(join(image, "dist", "devtools"), { recursive: true, force: true }); // as the Dockerfile
    process.stderr.write(
      `production install: tarball ${packed.filename} ${packed.entryCount} files, ` +
        `${(packed.size / 1e3).toFixed(1)} kB packed, ${(packed.unpackedSize / 1e6).toFixed(2)} MB unpacked; ` +
        `node_modules: npm install of the tarball ${await sizeOf(join(app, "node_modules"))}, ` +
        `image ${await sizeOf(join(image, "node_modules"))}\n`,
    );
    fake = await startFakeEutils({ routes: [onUtility("espell", { body: ESPELL_XML })] });
  }, 420_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await fake?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("packs the compiled server and its documents: no sources, tests, fixtures or demo", () => {
    const own = packed.files.map((f) => f.path).filter((p) => !p.startsWith("node_modules/"));
    expect(own).toEqual(
      expect.arrayContaining([
        "package.json",
        "README.md",
        "LICENSE",
        "CHANGELOG.md",
        "SECURITY.md",
        "dist/main.js",
        "dist/server.js",
        "dist/live/csl/modern-language-association.csl",
      ]),
    );
    const strays = own.filter(
      (p) =>
        !/^(package\.json|[A-Z]+\.md|LICENSE|dist\/.+\.(js|csl))$/.test(p) ||
        p.startsWith("dist/devtools/"),
    );
    expect(strays).toEqual([]);
    // The Qdrant client ships inside the package, so npm does not install its TypeScript peer.
    expect(packed.bundled.sort()).toEqual(
      ["@qdrant/js-client-rest", "@qdrant/openapi-typescript-fetch", "undici"].sort(),
    );
  });

  it("installs without TypeScript or any dev dependency, in the tarball and in the image", () => {
    const absent = (dir: string, name: string) => [
      name,
      existsSync(join(dir, "node_modules", name)),
    ];
    for (const dir of [app, image]) {
      expect(existsSync(join(dir, "node_modules", "fastmcp"))).toBe(true);
      for (const name of [
        "typescript",
        "jest",
        "tsx",
        "eslint",
        "prettier",
        "@swc/core",
        "@anthropic-ai/mcpb",
      ])
        expect(absent(dir, name)).toEqual([name, false]);
    }
  });

  it("loads the dense leg's native index (usearch's prebuild, install scripts skipped) in both", async () => {
    // What a hash or Cohere corpus loads on its first dense search: the compiled module, from
    // the installed tree, scanning its vectors.
    const probe = (module: string) => `
      const { DenseIndex } = await import(${JSON.stringify(module)});
      const index = await DenseIndex.create(3);
      const row = (id, vector) => ({ id, pmid: id, retracted: false, quality: 1, vector: Float32Array.from(vector) });
      index.apply([row("a", [1, 0, 0]), row("b", [0, 1, 0])], []);
      console.log(JSON.stringify(index.search(Float32Array.from([0.1, 1, 0]), 1, true)));`;
    for (const module of [
      join(app, "node_modules", "pubmed-mcp", "dist", "vectors", "memory", "dense-index.js"),
      join(image, "dist", "vectors", "memory", "dense-index.js"),
    ]) {
      const { stdout } = await run(process.execPath, ["--input-type=module", "-e", probe(module)]);
      expect(JSON.parse(stdout)).toEqual([
        { id: "b", pmid: "b", score: expect.closeTo(0.995, 3), quality: 1 },
      ]);
    }
  });

  it("its pubmed-mcp command serves stdio: initialize, tools/list, tools/call", async () => {
    const client = new Client({ name: "prod-stdio", version: "1.0.0" });
    const transport = new StdioClientTransport({
      command: join(app, "node_modules", ".bin", "pubmed-mcp"),
      env: { PATH, ...env() },
      stderr: "pipe",
    });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: "pubmed-mcp", version });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
      await spellThrough(client);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("its pubmed-mcp command serves HTTP: /health and MCP over Streamable HTTP", async () => {
    const bin = join(app, "node_modules", ".bin", "pubmed-mcp");
    const extra = { MCP_HTTP_HOST: "127.0.0.1", MCP_HTTP_PORT: "0", LOG_LEVEL: "info" };
    await checkHttp(await startHttp(bin, [], env(extra), children));
  }, 60_000);

  it("the image's install serves HTTP and stops cleanly on SIGTERM", async () => {
    const main = join(image, "dist", "main.js");
    const extra = { MCP_HTTP_HOST: "127.0.0.1", MCP_HTTP_PORT: "0", LOG_LEVEL: "info" };
    await checkHttp(await startHttp(process.execPath, [main], env(extra), children));
  }, 60_000);
});

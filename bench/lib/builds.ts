/**
 * Compiled copies of the server for the `startup` section: the working tree, or any commit, built
 * (tsc emit + scripts/postbuild.mjs, as `npm run build`) into a temporary folder that reaches the
 * repository's node_modules through a symlink, beside a copy of package.json ("type": "module",
 * the version the server reports). The caller removes the folder.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_DIR } from "./child.js";

const TSC = join(REPO_DIR, "node_modules", "typescript", "bin", "tsc");
const BUILD_MS = 300_000;

function compile(sourceRoot: string, root: string): string {
  const out = join(root, "dist");
  mkdirSync(root, { recursive: true });
  copyFileSync(join(sourceRoot, "package.json"), join(root, "package.json"));
  symlinkSync(join(REPO_DIR, "node_modules"), join(root, "node_modules"), "dir");
  const run = (args: string[]) =>
    execFileSync(process.execPath, args, { cwd: sourceRoot, stdio: "pipe", timeout: BUILD_MS });
  // --noCheck: emit only; `npm run typecheck` is where types are checked.
  run([TSC, "-p", "tsconfig.build.json", "--outDir", out, "--noCheck"]);
  run([join(sourceRoot, "scripts", "postbuild.mjs"), out]);
  return join(out, "main.js");
}

/** Builds the working tree's src/ into `root`; returns the path of its main.js. */
export function buildWorkingTree(root: string): string {
  return compile(REPO_DIR, root);
}

/**
 * Builds `commit` (any git revision) into `root` from `git archive` (no worktree, nothing in the
 * repository changes); returns the path of its main.js.
 */
export function buildCommit(commit: string, root: string): string {
  const src = join(root, "source");
  mkdirSync(src, { recursive: true });
  const tar = execFileSync("git", ["archive", "--format=tar", commit], {
    cwd: REPO_DIR,
    maxBuffer: 512 * 1024 * 1024,
  });
  execFileSync("tar", ["-x", "-C", src], { input: tar });
  // tsc resolves @types and packages from the source tree; postbuild needs nothing else.
  symlinkSync(join(REPO_DIR, "node_modules"), join(src, "node_modules"), "dir");
  writeFileSync(join(src, ".built-from"), `${commit}\n`);
  return compile(src, join(root, "build"));
}

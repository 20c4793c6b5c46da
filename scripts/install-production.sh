#!/usr/bin/env sh
# Installs the run-time dependencies into ./node_modules from package.json + package-lock.json
# (the locked versions), as the Docker image's deps stage does; the packaging test runs this same
# script. Run it in a copy: it rewrites that copy's package.json.
#
# Why not just `npm ci --omit=dev`: TypeScript is a peer dependency of @qdrant/js-client-rest (for
# its typings; nothing loads it at run time) and also our build tool (a devDependency). npm cannot
# omit a package that is both, so `npm ci --omit=dev --omit=peer` still installs it (24 MB).
# Dropping the devDependencies first leaves it a peer only, which --omit=peer then skips. The
# lockfile still pins every version that remains.
set -eu
npm pkg delete devDependencies
npm install --omit=dev --omit=peer --ignore-scripts --no-audit --no-fund "$@"

# usearch (the in-memory dense index) ships its C++ sources and prebuilt modules for four
# platforms, 26 MB; at run time node-gyp-build loads this platform's prebuild only.
usearch=node_modules/usearch
if [ -d "$usearch/prebuilds" ]; then
  platform=$(node -p process.platform)
  arch=$(node -p process.arch)
  for dir in "$usearch"/prebuilds/*; do
    case "$(basename "$dir")" in
      "$platform"-*"$arch"*) ;;
      *) rm -rf "$dir" ;;
    esac
  done
  rm -rf "$usearch/numkong" "$usearch/c" "$usearch/cpp" "$usearch/include" "$usearch/cmake"
fi

#!/usr/bin/env bash
# Steps a second of this tree against an older commit, measured alternately in the same minutes
# (this machine is shared and noisy: only pairs taken together compare). Each side runs
# bench/steps-per-second.ts from its own build, one process each.
#   bash bench/old-against-new.sh [COMMIT] [PAIRS]      (defaults: 6b3a958, the code before issue 18; 8 pairs)
# The older tree is checked out with `git worktree` (in a temporary directory, removed at the end), its
# node_modules linked to this one's (its own packages to itself), and built; this tree is built too.
# Extra environment (RUNS, CALLS, WAVES, STORE) is passed to both sides.
set -euo pipefail
old_commit=${1:-6b3a958}
pairs=${2:-8}
here=$(cd "$(dirname "$0")/.." && pwd)
old=$(mktemp -d)/old
cleanup() { git -C "$here" worktree remove --force "$old" >/dev/null 2>&1 || true; }
trap cleanup EXIT

git -C "$here" worktree add --detach "$old" "$old_commit" >/dev/null
mkdir -p "$old/node_modules/@wardrik"
for entry in "$here"/node_modules/* "$here"/node_modules/.bin; do
  name=$(basename "$entry")
  if [ "$name" != wardrik ] && [ "$name" != @wardrik ]; then ln -s "$entry" "$old/node_modules/$name"; fi
done
ln -s "$old/packages/wardrik" "$old/node_modules/wardrik"
for package in core worker; do ln -s "$old/packages/$package" "$old/node_modules/@wardrik/$package"; done
# The same benchmark on both sides: this tree's, which runs unchanged against older trees.
cp "$here/bench/steps-per-second.ts" "$old/bench/steps-per-second.ts"
(cd "$old" && npx tsc -b packages/core packages/wardrik packages/worker)
(cd "$here" && npx tsc -b packages/core packages/wardrik packages/worker)

measure() { (cd "$1" && node --expose-gc --import tsx bench/steps-per-second.ts | awk '/steps\/s/ { print $1 }'); }
befores=()
nows=()
for pair in $(seq "$pairs"); do
  before=$(measure "$old")
  now=$(measure "$here")
  befores+=("$before")
  nows+=("$now")
  echo "pair $pair: $old_commit $before steps/s, this tree $now steps/s"
done
node -e '
const [before, now] = process.argv.slice(1).map((list) => list.split(" ").map(Number));
const median = (values) => { const s = [...values].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const ratios = now.map((value, index) => value / before[index]).sort((a, b) => a - b);
console.log(`medians: before ${Math.round(median(before))}, now ${Math.round(median(now))} steps/s; ratio of medians ${(median(now) / median(before)).toFixed(2)}×; pairs ${ratios[0].toFixed(2)}–${ratios.at(-1).toFixed(2)}× (median ${median(ratios).toFixed(2)}×)`);
' "${befores[*]}" "${nows[*]}"

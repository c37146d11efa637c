#!/usr/bin/env bash
# scripts/device/experiments/decode_probe.sh RUNS -- after a build (scripts/device/gemm_h100.sh build), time the
# decode shapes with forced tiles / splits: RUNS is "name|env|shapes|tile|split; ...", each a `tessera bench gemm`
# (--repeats ${REPEATS:-10}) whose JSON lands in $OUT/probe/<name>.json and whose table goes to $OUT/probe.log.
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/gemm-out}; B=${TESSERA_BUILD_DIR:-/tmp/tessera-build}
mkdir -p "$OUT/probe"
IFS=';' read -ra runs <<< "$1"
for r in "${runs[@]}"; do
  IFS='|' read -r name envs shapes tile split <<< "$r"
  name=$(echo $name)
  args=(bench gemm --shapes "$(echo $shapes)" --repeats ${REPEATS:-10} --json "$OUT/probe/$name.json")
  [ -n "$(echo $tile)" ] && args+=(--tile $(echo $tile))
  [ -n "$(echo $split)" ] && args+=(--split-k $(echo $split))
  t0=$(date +%s)
  env $envs timeout 200 "$B/tools/tessera" "${args[@]}" > "$OUT/probe/$name.log" 2>&1
  rc=$?
  { echo "== $name ($envs tile=$tile split=$split) rc=$rc $(( $(date +%s) - t0 )) s"; sed -n '/^bf16 GEMM/,$p' "$OUT/probe/$name.log"; } >> "$OUT/probe.log"
  echo "== $name rc=$rc $(( $(date +%s) - t0 )) s"
done
( cd "$OUT/probe" && tar czf ../probe_json.tgz *.json ) 2>/dev/null; rm -rf "$OUT/probe"

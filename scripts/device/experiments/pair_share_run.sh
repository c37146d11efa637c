#!/usr/bin/env bash
# scripts/device/experiments/pair_share_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): pair_share.patch applied, tessera_cli built; ROUNDS (default 2) rounds of the decode set with the scattered
# pair (the tree's) and with TESSERA_PAIR_SHARE set (the staged exchange) in turn, the epilogue-cost line after each.
# Pass TESSERA_GIT_COMMIT.  Results under $OUT (pair_share.tar.xz).
# About 220 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, el, patch_build, ab_decode)
patch_build pair_share.patch tessera_cli || exit 1
ab_decode scatter share TESSERA_PAIR_SHARE "${ROUNDS:-2}" pair_share.tar.xz
echo "all done at $(el) s"

#!/usr/bin/env bash
# One libFuzzer target as a test: replay every seed (each must pass), then fuzz for
# FUZZ_SECONDS (default 10) under the limits the campaigns use: 2 GiB of memory, 10 s an
# input. New inputs go to a scratch folder that is removed afterwards; a crash, leak,
# timeout or OOM fails the test, and its input is kept in FUZZ_ARTIFACTS (default
# build/fuzz-artifacts) to be minimised and added to the corpus as a regression seed.
#
#   run_target.sh TARGET DICT SEED_DIR...     (DICT may not exist: no dictionary)
set -euo pipefail
target=$1 dict=$2
shift 2
seeds=("$@")
seconds=${FUZZ_SECONDS:-10}
artifacts=${FUZZ_ARTIFACTS:-$PWD/fuzz-artifacts}
mkdir -p "$artifacts"
scratch=$(mktemp -d /tmp/femu-fuzz-corpus.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
options=(-rss_limit_mb=2048 -timeout=10 -artifact_prefix="$artifacts/$(basename "$target")-")
[[ -f $dict ]] && options+=(-dict="$dict")   # a target may have none
echo "replaying the seeds of ${seeds[*]}"
"$target" "${options[@]}" -runs=0 "${seeds[@]}"
echo "fuzzing for $seconds s"
"$target" "${options[@]}" -max_total_time="$seconds" -print_final_stats=1 "$scratch" "${seeds[@]}"

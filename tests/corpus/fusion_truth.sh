#!/usr/bin/env bash
# Scope fusion against Ascend's ground truth (docs/ASCEND.md §9): every
# corpus model with every stdlib scope pass enabled, compared pass by pass (see
# fusion_truth.py). Passes not in the stdlib yet are listed as skipped. Env: TFXC, TFXC_SRC,
# TFXC_CORPUS; TFXC_TRUTH (truth dir), TFXC_TRUTH_PASSES (A,B: compare only these).
# Exit 77 when the truth or the corpus is absent.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
exec python3 "$(dirname "$0")/fusion_truth.py" "$@"

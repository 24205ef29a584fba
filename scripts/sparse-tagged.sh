#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sparse, with every line it prints prefixed "sparse: ", so that a build with
# both W=1 and C=2 tells compiler and sparse diagnostics apart:
#   make modules C=2 CHECK=$PWD/scripts/sparse-tagged.sh
set -o pipefail
sparse "$@" 2>&1 | sed 's/^/sparse: /' >&2

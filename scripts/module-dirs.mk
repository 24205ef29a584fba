# SPDX-License-Identifier: GPL-2.0
# The module directories, in load order (read by the Makefile, dkms.conf,
# scripts/ and tests/; one list, change it only here).  A directory counts
# once it has a Kbuild.
STACK_DIRS := core mlx4_core mlx4_ib mad sa cm umad uverbs ipoib
TEST_DIRS := tests/kverbs tests/kmad tests/ksa tests/kcm tests/debugcheck

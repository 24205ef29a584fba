# SPDX-License-Identifier: GPL-2.0
# InfiniBand stack for ConnectX-3, out of tree.  See README.md.
#   make setup   install what the builds and tests need (root, idempotent)
#   make check   setup, then every test; ends with "N passed, N failed"

.PHONY: all setup check unit qemu testbed clean

all: qemu

setup:
	tests/setup/setup.sh

check: setup
	tests/run-checks

unit:
	$(MAKE) -C tests/cx3/unit check

qemu:
	tests/cx3/build-qemu.sh

testbed:
	tests/testbed/run-tests

clean:
	$(MAKE) -C tests/cx3/unit clean

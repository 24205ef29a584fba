# SPDX-License-Identifier: GPL-2.0
# InfiniBand stack for ConnectX-3, out of tree.  See README.md.
#   make setup   install what the builds and tests need (root, idempotent)
#   make check   setup, then every test; ends with "N passed, N failed"
#   make demo    two VMs under opensm: ibstat, ibnetdiscover, IPoIB ping, RC

.PHONY: all setup check demo unit qemu testbed clean

all: qemu

setup:
	tests/setup/setup.sh

check: setup
	tests/run-checks

demo: setup
	tests/demo

unit:
	$(MAKE) -C tests/cx3/unit check

qemu:
	tests/cx3/build-qemu.sh

testbed:
	tests/testbed/run-tests

clean:
	$(MAKE) -C tests/cx3/unit clean

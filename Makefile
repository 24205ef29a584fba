# SPDX-License-Identifier: GPL-2.0
# InfiniBand stack for ConnectX-3, out of tree.  See README.md.
#   make setup   install what the builds and tests need (root, idempotent)
#   make check   setup, then every test group once (6.1, our stack; a 6.12
#                smoke): the README's test command and CI's; ends with
#                "N passed, N failed"
#   make check-full   setup, then the whole matrix (both kernels, one and two
#                nodes, every comparison with the in-tree stack, mixed
#                fabrics both ways, the 50-cycle modprobe runs)
#   make check-debug  setup, then our stack's groups on the debug kernel
#                (tests/setup/debug-kernel.sh: lockdep, KASAN, kmemleak...)
#   make demo    two VMs under opensm: ibstat, ibnetdiscover, IPoIB ping, RC
#
# Our kernel modules (see "Building the modules" in README.md):
#   make modules [KVER=<release>] [W=1] [C=2] [WERROR=1] [WITH_TESTS=0] [FRESH=1]
#                      build every module directory (scripts/module-dirs.mk)
#                      that has a Kbuild, in build/<release>/
#                      (a release of tests/setup/envs.sh is built in its
#                      release's root, with that release's compiler)
#   make modules_install [KVER=...]   into /lib/modules/<release>/updates,
#                      and the development tree (install-devel)
#   make install-devel [KVER=...] [DESTDIR=...]   the tree a third-party ULP
#                      builds against: $(DESTDIR)/usr/src/ibstack-cx3/<release>/
#                      (README "Building a ULP against ibstack-cx3")
#   make uninstall-devel [KVER=...] [DESTDIR=...]   removes it
#   make upstream-ipoib-build KVER=...   Linux 6.1's own IPoIB built against
#                      our development tree, with the checks of
#                      docs/kernel-api.md 6.2 (tests/upstream-ipoib/build.sh)
#   make print-builddir [KVER=...]    the build directory (with -s)
#   make print-kverbs [KVER=...]      the test module's .ko path (with -s)
#   make install-extras               packaging/ files (modprobe.d, dkms)
#   make dkms-src DEST=<dir>          the tree DKMS needs, copied to DEST
#   make deb                          the Debian package (DKMS):
#                      build/deb/ibstack-cx3-dkms_<version>_all.deb
#                      (scripts/build-deb.sh)
#   make build-check                  tests/build/check.sh
#   make clean-modules [KVER=...]     remove build/<release>/
#   make clean

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
include $(TOP)/scripts/module-dirs.mk

.PHONY: all setup check check-full check-debug demo unit qemu testbed clean bench-tools bench
.PHONY: modules modules_install modules-dir print-builddir print-kver print-kverbs \
	print-modules build-check install-extras uninstall-extras dkms-src deb \
	clean-modules modules-locked install-devel uninstall-devel upstream-ipoib-build

all: qemu

setup:
	tests/setup/setup.sh

# CHECKS_T0: the run's time limit counts from here, setup included
check:
	t0=$$(date +%s) && tests/setup/setup.sh && CHECKS_T0=$$t0 tests/run-checks --tier check

check-full:
	t0=$$(date +%s) && tests/setup/setup.sh && CHECKS_T0=$$t0 tests/run-checks --tier full

# our stack's groups on the debug kernel (lockdep, KASAN, kmemleak, ...)
check-debug:
	t0=$$(date +%s) && tests/setup/setup.sh && CHECKS_T0=$$t0 tests/run-checks --tier debug

demo: setup
	tests/demo

unit:
	$(MAKE) -C tests/cx3/unit check

qemu:
	tests/cx3/build-qemu.sh

# the test bed's own groups (the model judged by the in-tree stack)
testbed:
	tests/run-checks devinfo intx autoactive datapath twonode

# make bench's user-space tools (verbsbench, madbench) in build/bench/
bench-tools:
	$(MAKE) -C bench/tools O=$(CURDIR)/build/bench

# our stack against the in-tree stack (bench/README.md); BENCH_KERNEL=6.12
bench:
	bench/run

clean:
	if [ -d $(TOP)/tests/cx3/unit ]; then $(MAKE) -C $(TOP)/tests/cx3/unit clean; fi
	rm -rf $(TOP)/build

# The build tree of one release (make clean: all of them).
clean-modules:
	rm -rf $(BUILDDIR)

# --- our modules -------------------------------------------------------------
# KVER: the target kernel release.  Default: the running kernel if its build
# tree is installed, else the newest installed one.
ifeq ($(origin KVER),undefined)
KVER := $(shell r=$$(uname -r); \
	if [ -f /lib/modules/$$r/build/Makefile ]; then echo $$r; else \
	ls -1d /lib/modules/*/build/Makefile 2>/dev/null | \
	sed 's|^/lib/modules/||; s|/build/Makefile$$||' | sort -V | tail -n 1; fi)
endif
KDIR ?= /lib/modules/$(KVER)/build
# A release whose build tree is not on this system but in one of the test
# bed's build environments (tests/setup/envs.sh: a root per Debian release,
# with that release's compiler) is built in that root: the targets below
# that run kbuild are handed to make there, with the same variables.
ENVS := $(TOP)/tests/setup/envs.sh
# The test bed's debug kernel (tests/setup/debug-kernel.sh) has a root too,
# without a system in it: it was built by the host's compiler, and its
# build tree is on the host, where its lib/modules/<release>/build points.
ifeq ($(wildcard $(KDIR)/Makefile),)
ifneq ($(KVER),)
KROOT := $(if $(wildcard $(ENVS)),$(shell $(ENVS) root $(KVER) 2>/dev/null))
ifneq ($(KROOT),)
ifeq ($(wildcard $(KROOT)/bin/sh),)
KDIR := $(KROOT)/lib/modules/$(KVER)/build
KROOT :=
endif
endif
endif
endif
IN_ENV := $(if $(filter-out /,$(KROOT)),1)
ENV_VARS = KVER=$(KVER) W=$(W) WERROR=$(WERROR) WITH_TESTS=$(WITH_TESTS) \
	JOBS=$(JOBS) BUILD_ROOT=$(BUILD_ROOT) $(if $(C),C=$(C)) $(if $(FRESH),FRESH=$(FRESH)) \
	$(if $(CHECK),CHECK=$(CHECK)) \
	$(if $(INSTALL_MOD_PATH),INSTALL_MOD_PATH=$(INSTALL_MOD_PATH))
# BUILD_ROOT/<release>/ (default build/<release>/): a copy of the sources (scripts/sync-tree.sh) that kbuild
# builds in place, so builds for different kernels never share an object.
BUILD_ROOT ?= $(TOP)/build
BUILDDIR := $(BUILD_ROOT)/$(KVER)
WITH_TESTS ?= 1
WERROR ?= 0
# Extra warnings (kbuild's W=): on by default, the project is W=1 clean.
W ?= 1
JOBS ?= 2

IBSTACK_DIRS := $(foreach d,$(STACK_DIRS) $(if $(filter 1,$(WITH_TESTS)),$(TEST_DIRS)),\
	$(if $(wildcard $(TOP)/$(d)/Kbuild),$(d)))

PROBES_H := $(BUILDDIR)/gen/ibstack-probes.h
# -jJOBS unless the caller's make already runs a jobserver.
kbuild_jobs = $(if $(findstring -j,$(MAKEFLAGS)),,-j$(JOBS))
# $(call kbuild,DIRS) TARGET: kbuild on build/<release>/ for those directories.
kbuild = $(MAKE) $(kbuild_jobs) -C $(KDIR) M=$(BUILDDIR) W=$(W) \
	IBSTACK_DIRS="$(strip $(1))" IBSTACK_WERROR=$(WERROR)

check-kver:
	@if [ -z "$(KVER)" ] || [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "no kernel build tree for KVER=$(KVER) at $(KDIR) (install the headers)" >&2; \
		exit 1; fi

# The per-release probe results for include/ibstack/compat.h, redone when a
# probe or the kernel's build tree changes.
$(PROBES_H): $(TOP)/scripts/compat-probe.sh $(wildcard $(TOP)/scripts/compat-probes/*.c) \
		$(wildcard $(KDIR)/.config $(KDIR)/Module.symvers) | check-kver
	@echo "  PROBE   $(KVER): kernel API probes for compat.h"
	@$(TOP)/scripts/compat-probe.sh $(KDIR) $@ $(KVER)

# One build per release at a time (tests/vm/run, check.sh and people share
# build/<release>/): the real work runs under a lock.  FRESH=1 first removes
# everything built for the release but the probe results (a full rebuild,
# e.g. to see every warning again).
ifeq ($(IN_ENV),1)
modules modules_install:
	+$(ENVS) run $(KROOT) make --no-print-directory -C $(TOP) $@ $(ENV_VARS)
else
modules: check-kver
	@mkdir -p $(BUILD_ROOT)
	+@exec 9>$(BUILD_ROOT)/.$(KVER).lock; \
	if ! flock -n 9; then \
		echo "make modules: waiting for another build for $(KVER) to finish"; \
		flock 9; fi; \
	if [ "$(FRESH)" = 1 ] && [ -d $(BUILDDIR) ]; then \
		find $(BUILDDIR) -mindepth 1 -maxdepth 1 ! -name gen -exec rm -rf {} +; fi; \
	$(MAKE) --no-print-directory -f $(TOP)/Makefile modules-locked

modules-locked: $(PROBES_H)
	@$(TOP)/scripts/sync-tree.sh $(TOP) $(BUILDDIR) $(IBSTACK_DIRS)
ifeq ($(strip $(IBSTACK_DIRS)),)
	@echo "make modules: no module directory has a Kbuild yet ($(STACK_DIRS) $(TEST_DIRS))"
else
	+$(call kbuild,$(IBSTACK_DIRS)) modules
	@$(TOP)/scripts/shadow-check.sh $(BUILDDIR) $(IBSTACK_DIRS)
endif

# Our modules go to updates/, which depmod prefers to the kernel's own
# (so "modinfo -n ib_core" names ours); the test module is not installed.
modules_install: check-kver
	+$(MAKE) --no-print-directory -f $(TOP)/Makefile modules KVER=$(KVER) WITH_TESTS=0
ifneq ($(strip $(IBSTACK_DIRS)),)
	+$(call kbuild,$(filter-out $(TEST_DIRS),$(IBSTACK_DIRS))) \
		INSTALL_MOD_DIR=updates modules_install
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a $(KVER)
	+$(MAKE) --no-print-directory -f $(TOP)/Makefile install-devel KVER=$(KVER) WITH_TESTS=0 \
		DESTDIR=$(or $(DESTDIR),$(INSTALL_MOD_PATH))
endif
endif

# The development tree of a release (docs/kernel-api.md section 5): our
# headers, the Module.symvers of our modules (not the test modules'), the
# recipe ibstack.mk and the checks of a built ULP (scripts/devel-install.sh).
DEVEL_DIR = $(DESTDIR)/usr/src/ibstack-cx3/$(KVER)
install-devel:
	+$(MAKE) --no-print-directory -f $(TOP)/Makefile modules KVER=$(KVER) WITH_TESTS=$(WITH_TESTS)
	$(TOP)/scripts/devel-install.sh install $(TOP) $(BUILDDIR)/Module.symvers $(DEVEL_DIR)

uninstall-devel:
	$(TOP)/scripts/devel-install.sh uninstall $(DEVEL_DIR)

# Not in any tier yet: it fails to compile until our API is 6.1's (issue 13,
# steps S2A..S3E); its output counts the compile errors by API item.
upstream-ipoib-build:
	$(TOP)/tests/upstream-ipoib/build.sh $(KVER)

# The build directory of a release, e.g. for the test module:
#   $(make -s print-builddir KVER=...)/tests/kverbs/*.ko
modules-dir print-builddir:
	@echo $(BUILDDIR)

print-kver:
	@echo $(KVER)

# The test module(s) built for a release (after make modules), e.g. in a VM:
#   insmod $(make -s print-kverbs KVER=$KVER)
print-kverbs:
	@echo $(wildcard $(BUILDDIR)/tests/kverbs/*.ko)

# The module directories that have a Kbuild (with WITH_TESTS=1, the test's).
print-modules:
	@echo $(IBSTACK_DIRS)

build-check:
	$(TOP)/tests/build/check.sh

# What a Debian host running our stack needs besides the modules (README.md):
# the modprobe.d policy that keeps the kernel's own InfiniBand consumers off
# our ib_core, and the dkms setting that lets our ib_core/mlx4_core replace
# the kernel's although their MODULE_VERSION is not "newer" (Debian's dkms
# refuses that by default, also when a new kernel is installed).
install-extras:
	install -D -m 0644 $(TOP)/packaging/modprobe.d/ibstack-cx3.conf \
		$(DESTDIR)/etc/modprobe.d/ibstack-cx3.conf
	install -D -m 0644 $(TOP)/packaging/dkms/modules_to_force_install-ibstack-cx3 \
		$(DESTDIR)/usr/share/dkms/modules_to_force_install/ibstack-cx3

uninstall-extras:
	rm -f $(DESTDIR)/etc/modprobe.d/ibstack-cx3.conf \
		$(DESTDIR)/usr/share/dkms/modules_to_force_install/ibstack-cx3

# A clean source tree for DKMS (and nothing else) in DEST:
#   make dkms-src DEST=/usr/src/ibstack-cx3-$(cat VERSION)
dkms-src:
	@test -n "$(DEST)" || { echo "make dkms-src: DEST= missing" >&2; exit 1; }
	mkdir -p $(DEST)
	tar -C $(TOP) -cf - --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		--exclude='*.mod' --exclude='*.mod.c' --exclude='*.symvers' \
		--exclude='modules.order' --exclude='.probes' \
		Makefile Kbuild VERSION dkms.conf scripts include packaging/devel \
		$(filter-out $(TEST_DIRS),$(IBSTACK_DIRS)) | tar -C $(DEST) -xf -

# The Debian package ibstack-cx3-dkms (README "Installing with DKMS"):
# debhelper and dh_dkms in a staging copy (build/deb/ibstack-cx3-<version>/,
# from dkms-src and install-extras), the .deb in build/deb/.
deb:
	$(TOP)/scripts/build-deb.sh $(TOP) $(TOP)/build/deb

.PHONY: check-kver

# SPDX-License-Identifier: GPL-2.0
# ibstack-cx3's build recipe for a kernel ULP (README "Building a ULP against
# ibstack-cx3"; installed in /usr/src/ibstack-cx3/<release>/).  In the ULP's
# top Kbuild (or the kbuild half of its Makefile):
#	IBSTACK ?= /usr/src/ibstack-cx3/$(KERNELRELEASE)
#	include $(IBSTACK)/ibstack.mk
# then "make -C /lib/modules/<release>/build M=$PWD".
#
# - Our headers (<rdma/ib_verbs.h>, ..., the uapi <rdma/ib_user_mad.h>)
#   replace the kernel's: NOSTDINC_FLAGS is the only place kbuild puts
#   before its own -I$(srctree)/include (ccflags-y comes after it), and it
#   reaches the objects of every subdirectory; "+=" keeps the kernel's
#   -nostdinc.
# - modpost resolves the ULP's imports against our Module.symvers (the
#   CRCs of our modules for this release) rather than the kernel's
#   ib_core: modpost reads KBUILD_EXTRA_SYMBOLS from this same Kbuild.

# this file's directory, whatever path the includer used
ibstack_devel := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))

NOSTDINC_FLAGS += -I$(ibstack_devel)/include -I$(ibstack_devel)/include/uapi
KBUILD_EXTRA_SYMBOLS += $(ibstack_devel)/Module.symvers

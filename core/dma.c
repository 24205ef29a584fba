// SPDX-License-Identifier: GPL-2.0
/*
 * The virtual-DMA path of the ib_dma_* helpers: upstream's software
 * devices (rxe, siw), which have no dma_device, "map" a scatterlist to
 * kernel virtual addresses.  Every device of ours has a dma_device, so the
 * helpers never come here; a device without one is refused at
 * registration.
 */
#include <linux/module.h>
#include "core_priv.h"

int ib_dma_virt_map_sg(struct ib_device *dev, struct scatterlist *sg, int nents)
{
	WARN_ONCE(1, "ib_core: %s: virtual DMA mapping is not supported\n", dev->name);
	return 0;
}
EXPORT_SYMBOL(ib_dma_virt_map_sg);

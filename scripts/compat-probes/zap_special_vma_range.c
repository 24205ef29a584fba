// SPDX-License-Identifier: GPL-2.0
/*
 * zap_special_vma_range() exists: zap_vma_ptes() under its new name (7.x;
 * zap_vma_ptes() is gone there).
 */
#include <linux/mm.h>

void ibstack_probe(struct vm_area_struct *vma);
void ibstack_probe(struct vm_area_struct *vma)
{
	zap_special_vma_range(vma, vma->vm_start, vma->vm_end - vma->vm_start);
}

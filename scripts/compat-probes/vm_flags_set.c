// SPDX-License-Identifier: GPL-2.0
/* vm_flags_set()/vm_flags_clear() exist (6.3+; vm_flags became read-only). */
#include <linux/mm.h>

void ibstack_probe(struct vm_area_struct *vma);
void ibstack_probe(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_DONTEXPAND);
	vm_flags_clear(vma, VM_MAYWRITE);
}

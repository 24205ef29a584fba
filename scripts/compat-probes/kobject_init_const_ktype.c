// SPDX-License-Identifier: GPL-2.0
/* kobject_init() takes a const struct kobj_type * (6.2+, in 6.1.y). */
#include <linux/kobject.h>

void ibstack_probe(struct kobject *kobj, const struct kobj_type *ktype);
void ibstack_probe(struct kobject *kobj, const struct kobj_type *ktype)
{
	kobject_init(kobj, ktype);
}

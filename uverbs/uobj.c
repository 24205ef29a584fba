// SPDX-License-Identifier: GPL-2.0
/*
 * ib_uverbs: the handles of a file's objects.  An object gets its id when
 * it is allocated, but the id finds it only once it is committed (its
 * creation's response written); a failed creation aborts it.  A command
 * takes a shared use of the objects it names (usecnt > 0), a DESTROY an
 * exclusive one (usecnt -1): each excludes the other (-EBUSY), as 6.1.
 * Lookups run under the xarray's lock, so an object erased from it is
 * reachable by nobody and can be freed.
 */
#include <linux/slab.h>
#include "uverbs_priv.h"

struct uv_uobj *uv_uobj_alloc(struct uverbs_attr_bundle *attrs, const struct uv_type *type)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct uv_uobj *obj;
	u32 id;
	int ret;

	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj)
		return ERR_PTR(-ENOMEM);
	/* a reserved (NULL) entry until committed */
	ret = xa_alloc(&ufile->objects, &id, NULL, xa_limit_32b, GFP_KERNEL);
	if (ret) {
		kfree(obj);
		return ERR_PTR(ret);
	}
	obj->uobj.id = id;
	obj->uobj.ufile = ufile;
	obj->uobj.context = attrs->context;
	obj->uobj.uverbs_type = type;
	kref_init(&obj->uobj.ref);
	atomic_set(&obj->uobj.usecnt, 0);
	INIT_LIST_HEAD(&obj->uobj.list);
	INIT_LIST_HEAD(&obj->async_events);
	INIT_LIST_HEAD(&obj->comp_events);
	INIT_LIST_HEAD(&obj->mcast_list);
	mutex_init(&obj->mcast_mutex);
	atomic_set(&obj->xrcd_users, 0);
	attrs->uobject = &obj->uobj;
	return obj;
}

/* A creation failed (its hardware part is undone): the id is free again. */
void uv_uobj_abort(struct uv_uobj *obj)
{
	xa_erase(&obj->uobj.ufile->objects, obj->uobj.id);
	uv_uobj_free(obj);
}

void uv_uobj_free(struct uv_uobj *obj)
{
	if (obj->channel)
		uv_event_file_put(obj->channel);
	mutex_destroy(&obj->mcast_mutex);
	kfree(obj);
}

/* The response is written: the handle finds the object from now on. */
void uv_uobj_commit(struct uv_uobj *obj)
{
	struct ib_uverbs_file *ufile = obj->uobj.ufile;

	spin_lock(&ufile->list_lock);
	list_add_tail(&obj->uobj.list, &ufile->obj_list);
	spin_unlock(&ufile->list_lock);
	xa_store(&ufile->objects, obj->uobj.id, &obj->uobj, GFP_KERNEL);
}

/*
 * The committed object id of this type, with a shared or exclusive use;
 * -ENOENT for no such handle, -EINVAL for another type's, -EBUSY if the
 * use conflicts with another command's.
 */
struct uv_uobj *uv_uobj_get(struct ib_uverbs_file *ufile, const struct uv_type *type,
			    u32 id, bool exclusive)
{
	struct ib_uobject *uobj;
	struct uv_uobj *ret;

	xa_lock(&ufile->objects);
	uobj = xa_load(&ufile->objects, id);
	if (!uobj)
		ret = ERR_PTR(-ENOENT);
	else if (uobj->uverbs_type != type)
		ret = ERR_PTR(-EINVAL);
	else if (exclusive && atomic_cmpxchg(&uobj->usecnt, 0, -1) != 0)
		ret = ERR_PTR(-EBUSY);
	else if (!exclusive && atomic_fetch_add_unless(&uobj->usecnt, 1, -1) == -1)
		ret = ERR_PTR(-EBUSY);
	else
		ret = uv_obj(uobj);
	xa_unlock(&ufile->objects);
	if (IS_ERR(ret))
		uv_dbg(ufile, "%s handle %u: %ld\n", type->name, id, PTR_ERR(ret));
	return ret;
}

void uv_uobj_put(struct uv_uobj *obj, bool exclusive)
{
	if (exclusive)
		atomic_set(&obj->uobj.usecnt, 0);
	else
		atomic_dec(&obj->uobj.usecnt);
}

/*
 * The object (ib_pd, ...) of a handle, shared; NULL on failure, with *err
 * set as 6.1's lookups answer (-ENOENT for no such handle, -EINVAL for
 * another type's, -EBUSY)
 */
void *uv_get_object(struct ib_uverbs_file *ufile, const struct uv_type *type, u32 id,
		    struct uv_uobj **objp, int *err)
{
	struct uv_uobj *obj = uv_uobj_get(ufile, type, id, false);

	if (IS_ERR(obj)) {
		*objp = NULL;
		*err = PTR_ERR(obj);
		return NULL;
	}
	*objp = obj;
	return obj->uobj.object;
}

/* Takes a destroyed object out of the file; its events are dropped. */
static void uv_uobj_remove(struct uv_uobj *obj)
{
	struct ib_uverbs_file *ufile = obj->uobj.ufile;

	xa_erase(&ufile->objects, obj->uobj.id);
	spin_lock(&ufile->list_lock);
	list_del_init(&obj->uobj.list);
	spin_unlock(&ufile->list_lock);
	uv_purge_events(ufile, obj);
}

/*
 * A DESTROY command: the object exclusively, its hardware part destroyed.
 * On success *objp is the object, out of the file, with its event counts
 * final: the caller reads them and frees it (uv_uobj_free()).
 */
int uv_uobj_destroy(struct uverbs_attr_bundle *attrs, const struct uv_type *type,
		    u32 id, struct uv_uobj **objp)
{
	struct uv_uobj *obj = uv_uobj_get(attrs->ufile, type, id, true);
	int ret;

	if (IS_ERR(obj))
		return PTR_ERR(obj);
	ret = type->destroy(obj, attrs, false);
	if (ret) {
		uv_dbg(attrs->ufile, "%s handle %u not destroyed: %d\n", type->name, id, ret);
		uv_uobj_put(obj, true);
		return ret;
	}
	uv_uobj_remove(obj);
	*objp = obj;
	return 0;
}

/*
 * Every object of the file, newest first; the ones that refuse (-EBUSY:
 * another file's objects still use them, e.g. a shared XRC domain) are
 * tried again while a pass destroys something.  What still refuses then
 * is left to leak, with a log line: its driver would not let it go.
 */
void uv_destroy_all(struct ib_uverbs_file *ufile, struct uverbs_attr_bundle *attrs)
{
	const struct uv_type *type;
	struct ib_uobject *uobj, *prev;
	struct uv_uobj *obj;
	bool progress = true;
	LIST_HEAD(left);
	int ret;

	lockdep_assert_held_write(&ufile->hw_rwsem);
	while (progress) {
		progress = false;
		spin_lock(&ufile->list_lock);
		list_for_each_entry_safe_reverse(uobj, prev, &ufile->obj_list, list) {
			obj = uv_obj(uobj);
			spin_unlock(&ufile->list_lock);
			type = uobj->uverbs_type;
			ret = type->destroy(obj, attrs, true);
			spin_lock(&ufile->list_lock);
			if (ret)
				continue;
			/* nobody else changes the list under the exclusive rwsem */
			spin_unlock(&ufile->list_lock);
			uv_uobj_remove(obj);
			uv_uobj_free(obj);
			progress = true;
			spin_lock(&ufile->list_lock);
		}
		spin_unlock(&ufile->list_lock);
	}

	spin_lock(&ufile->list_lock);
	list_splice_init(&ufile->obj_list, &left);
	spin_unlock(&ufile->list_lock);
	list_for_each_entry_safe(uobj, prev, &left, list) {
		obj = uv_obj(uobj);
		dev_err_ratelimited(&ufile->uvdev->dev, "%s handle %u could not be destroyed: leaked\n",
				    ((const struct uv_type *)uobj->uverbs_type)->name, uobj->id);
		list_del_init(&uobj->list);
		xa_erase(&ufile->objects, uobj->id);
		uv_purge_events(ufile, obj);
	}
}

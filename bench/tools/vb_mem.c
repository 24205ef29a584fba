// SPDX-License-Identifier: GPL-2.0
/*
 * verbsbench: the buffers of the MR tests, ordinary or huge pages, every
 * page touched before the timing starts.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "vb.h"

bool vb_shared_buffer(const struct vb_config *cfg, const struct vb_test *test)
{
	return test->mr_size >= GIB && cfg->threads > 1;
}

/* MemAvailable and HugePages_Total of /proc/meminfo, in MiB (-1: unknown) */
static void meminfo(long *avail_mib, long *huge_mib)
{
	char line[128];
	long v;
	FILE *f;

	*avail_mib = -1;
	*huge_mib = 0;
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "MemAvailable: %ld kB", &v) == 1)
			*avail_mib = v / 1024;
		else if (sscanf(line, "HugePages_Total: %ld", &v) == 1)
			*huge_mib = v * (HUGE_PAGE / MIB);
	}
	fclose(f);
}

/*
 * Whether a buffer of ordinary pages fits; else touching it would wake the
 * OOM killer (e.g. mr-1g with huge pages reserved in a 2 GiB guest).
 */
static bool fits(const struct vb_test *test)
{
	long avail, huge;

	if (test->huge || test->mr_size < 64 * MIB)
		return true;
	meminfo(&avail, &huge);
	if (avail < 0 || (size_t)avail >= test->mr_size / MIB + 64)
		return true;
	fprintf(stderr, "verbsbench: %s: a %zu MiB buffer does not fit: MemAvailable is %ld MiB (%ld MiB are reserved as huge pages: echo 0 > /proc/sys/vm/nr_hugepages frees them)\n",
		test->name, test->mr_size / MIB, avail, huge);
	return false;
}

/* The test's buffer, every page touched; NULL after printing why */
void *vb_map_buffer(const struct vb_test *test)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	size_t off;
	char *p;

	if (!fits(test))
		return NULL;
	if (test->huge)
		flags |= MAP_HUGETLB;
	p = mmap(NULL, test->mr_size, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED) {
		int err = errno;

		if (test->huge)
			fprintf(stderr, "verbsbench: %s: mmap of %zu MiB with MAP_HUGETLB failed: errno %d (%s): reserve 2 MiB huge pages first (at least %zu free), e.g. echo 600 > /proc/sys/vm/nr_hugepages\n",
				test->name, test->mr_size / MIB, err,
				strerror(err), test->mr_size / HUGE_PAGE);
		else
			fprintf(stderr, "verbsbench: %s: mmap of %zu MiB failed: errno %d (%s)\n",
				test->name, test->mr_size / MIB, err,
				strerror(err));
		return NULL;
	}
	for (off = 0; off < test->mr_size; off += 4096)
		p[off] = 1;
	return p;
}

void vb_unmap_buffer(void *buf, size_t len)
{
	munmap(buf, len);
}

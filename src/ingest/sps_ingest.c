// SPDX-License-Identifier: BSD-3-Clause
#include "ingest/sps_ingest.h"

#include <errno.h>
#include <string.h>

#include "attrib/elf.h"
#include "common/safefs.h"
#include "common/alloc.h"
#include "common/err.h"
#include "common/err_codes.h"
#include "ingest/buildid.h"
#include "ingest/sps_reader.h"
#include "model/model.h"
#include "common/fsutil.h"

#define MAX_SPS_BYTES ((size_t)8 << 30)
#define NS_PER_S 1000000000.0

static const struct elf_segment *segment_of(const struct elf_info *elf, uint64_t vaddr)
{
	for (size_t i = 0; i < elf->nr_loads; i++) {
		const struct elf_segment *g = &elf->loads[i];
		if (vaddr >= g->vaddr && vaddr - g->vaddr < (g->memsz ? g->memsz : g->filesz))
			return g;
	}
	return NULL;
}

int sps_module_offset(const struct elf_info *elf, uint64_t address, uint64_t load,
		      uint64_t *offset)
{
	uint64_t vaddr = address - load;
	if (!elf) { /* unreadable module: assume vaddr == file offset (the usual layout) */
		*offset = vaddr;
		return 0;
	}
	const struct elf_segment *g = segment_of(elf, vaddr);
	/* A non-PIE executable is loaded at its link address: its load bias is 0
	 * but dl_iterate_phdr may still report a base; the address is the vaddr. */
	if (!g && elf->type == ELF_TYPE_EXEC && (g = segment_of(elf, address)))
		vaddr = address;
	if (!g)
		return -ENOENT;
	*offset = vaddr - g->vaddr + g->offset;
	return 0;
}

/* Per-file module table: ELF program headers and build-ids. */
struct mod {
	struct elf_info elf;
	bool elf_ok;
};

static int add_build_ids(const struct sps_file *f, struct mod *mods, struct buildid_list *ids)
{
	for (int32_t i = 0; i < f->nr_modules; i++) {
		const char *bid = mods[i].elf_ok ? mods[i].elf.build_id : NULL;
		if (bid && buildid_list__add(ids, f->modules[i].path, f->modules[i].path_len, bid,
					     strlen(bid)) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int add_samples(const struct sps_file *f, const struct mod *mods,
		       struct ingest_agg *a, struct sps_ingest_info *info)
{
	double period = NS_PER_S / f->hz; /* one timer expiration */
	for (int64_t i = 0; i < f->nr_samples; i++) {
		struct sps_sample smp = sps_file__sample(f, i);
		/* A sample weighs the expirations its signal stood for. */
		struct ingest_sample s = {.pid = -1, .tid = -1,
					  .period = (uint64_t)(period * smp.weight + 0.5),
					  .event = "task-clock", .event_len = 10};
		if (smp.module >= 0) {
			const struct sps_module *m = &f->modules[smp.module];
			const struct mod *md = &mods[smp.module];
			s.hit.module = m->path;
			s.hit.module_len = m->path_len;
			s.hit.has_offset = sps_module_offset(md->elf_ok ? &md->elf : NULL,
							     smp.address, m->load_address,
							     &s.hit.offset) == 0;
		} else {
			s.hit.module = "[unknown]";
			s.hit.module_len = 9;
			info->outside++;
		}
		if (ingest_agg__add(a, &s) < 0)
			return -ENOMEM;
	}
	info->samples += f->nr_samples;
	return 0;
}

/* One file into the aggregate. The buffer must outlive the aggregation only
 * for the call: module paths are copied by ingest_agg__add(). */
static int add_file(const char *path, struct ingest_agg *a, struct buildid_list *ids,
		    struct sps_ingest_info *info, struct err *e)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = safefs_read_regular(path, MAX_SPS_BYTES, &buf, &len);
	if (rc < 0)
		return err_set(e, rc, ERR_TRACE_OPEN, "%s: %s", path, safefs_strerror(rc));
	struct sps_file f;
	memset(&f, 0, sizeof(f));
	if ((rc = sps_parse((const unsigned char *)buf, len, path, &f, e)) < 0) {
		xfree(buf);
		return rc;
	}
	if (f.nr_samples > 0 && f.hz <= 0) {
		rc = err_set(e, -EINVAL, ERR_TRACE_CORRUPT,
			     "%s: %lld samples but an achieved rate of %d Hz: no time base",
			     path, (long long)f.nr_samples, (int)f.hz);
		goto out;
	}
	struct mod *mods = xcalloc((size_t)f.nr_modules + 1, sizeof(*mods));
	if (!mods) {
		rc = err_set(e, -ENOMEM, ERR_OOM, "out of memory");
		goto out;
	}
	for (int32_t i = 0; i < f.nr_modules; i++) {
		char *mp = xstrndup(f.modules[i].path, f.modules[i].path_len);
		mods[i].elf_ok = mp && elf_info__read(&mods[i].elf, mp, 0, NULL) == 0;
		xfree(mp);
	}
	rc = add_build_ids(&f, mods, ids);
	if (rc == 0)
		rc = add_samples(&f, mods, a, info);
	if (rc < 0)
		err_set(e, rc, ERR_OOM, "out of memory");
	for (int32_t i = 0; i < f.nr_modules; i++)
		elf_info__release(&mods[i].elf);
	xfree(mods);
	if (rc == 0 && f.hz > 0) {
		info->nr_files++;
		info->ticks += f.ticks;
		info->cpu_s += (double)f.ticks / f.hz;
		if (!info->hz_min || f.hz < info->hz_min)
			info->hz_min = f.hz;
		if (f.hz > info->hz_max)
			info->hz_max = f.hz;
	}
out:
	sps_file__release(&f);
	xfree(buf);
	return rc;
}

/* Timer ticks are a time base of their own: every task-clock Measurement
 * this ingestion added is estimated, with the reason. */
static int downgrade(struct pivot *p, size_t from)
{
	for (size_t i = from; i < p->nr_measurements; i++) {
		struct measurement *m = &p->measurements[i];
		if (strcmp(m->counter, "task-clock") != 0)
			continue;
		char *r = xstrdup(SPS_TIME_REASON);
		if (!r)
			return -ENOMEM;
		xfree(m->reason);
		m->reason = r;
		m->quality = quality__worst(m->quality, QUALITY_ESTIMATED);
	}
	return 0;
}

int ingest_sps_files(const char *const *paths, int n, const struct ingest_opts *o,
		     struct pivot *p, struct sps_ingest_info *info, struct err *e)
{
	memset(info, 0, sizeof(*info));
	struct ingest_agg *a = ingest_agg__new();
	struct buildid_list ids;
	buildid_list__init(&ids);
	if (!a)
		return err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	int rc = 0;
	for (int i = 0; rc == 0 && i < n; i++)
		rc = add_file(paths[i], a, &ids, info, e);
	size_t from = p->nr_measurements;
	if (rc == 0) {
		struct ingest_opts o2 = *o;
		o2.build_ids = &ids;
		rc = ingest_agg__emit(a, &o2, p, e);
	}
	if (rc == 0 && downgrade(p, from) < 0)
		rc = err_set(e, -ENOMEM, ERR_OOM, "out of memory");
	ingest_agg__free(a);
	buildid_list__release(&ids);
	return rc;
}

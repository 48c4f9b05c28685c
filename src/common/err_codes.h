/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one list of error codes: every `struct err` code token nunatak can
 * produce, with its exit class. Codes are stable (they are the "code" of
 * --json error documents, {"error":{"code":"trace.truncated","message":...}})
 * and grouped by the area that raises them. Call sites write the macro
 * (ERR_TRACE_TRUNCATED), never a string, so a new code is added here first;
 * tests/cli/err_codes.sh fails on a string literal passed as a code.
 *
 * Exit classes: what the failure says about the invocation, from which the
 * CLI chooses the exit code (err_exit_code()):
 *   USAGE    the command line or the configuration is wrong (fix the call);
 *   INPUT    an input (trace, Run, perf.data, ELF, tool output) is unreadable
 *            or malformed (the message names file and offset/line);
 *   SYSTEM   the machine refused: out of memory, a write, a spawn, a tool;
 *   INTERNAL a broken invariant of nunatak itself (a bug: report it).
 */
#ifndef NUNATAK_COMMON_ERR_CODES_H
#define NUNATAK_COMMON_ERR_CODES_H

#include <stdbool.h>

#include "common/exit_codes.h"

struct err;

enum err_class { ERR_CLASS_USAGE, ERR_CLASS_INPUT, ERR_CLASS_SYSTEM, ERR_CLASS_INTERNAL };

/* X(macro, token, class) */
#define ERR_CODES(X) \
	X(ERR_ADDR2LINE_OUTPUT, "addr2line.output", ERR_CLASS_INPUT) \
	X(ERR_CALIBRATE_FAILED, "calibrate.failed", ERR_CLASS_SYSTEM) \
	X(ERR_CALIBRATION_IO, "calibration.io", ERR_CLASS_SYSTEM) \
	X(ERR_CALIBRATION_OUTPUT, "calibration.output", ERR_CLASS_INPUT) \
	X(ERR_COMPARE_MACHINE, "compare.machine", ERR_CLASS_INPUT) \
	X(ERR_COMPARE_NO_SAMPLES, "compare.no_samples", ERR_CLASS_INPUT) \
	X(ERR_COMPARE_RANKS, "compare.ranks", ERR_CLASS_INPUT) \
	X(ERR_COMPARE_TIME_BASE, "compare.time_base", ERR_CLASS_INPUT) \
	X(ERR_CONFIG_KEY, "config.key", ERR_CLASS_USAGE) \
	X(ERR_CONFIG_TYPE, "config.type", ERR_CLASS_USAGE) \
	X(ERR_CONFIG_VALUE, "config.value", ERR_CLASS_USAGE) \
	X(ERR_ELF_CLASS, "elf.class", ERR_CLASS_INPUT) \
	X(ERR_ELF_ENDIAN, "elf.endian", ERR_CLASS_INPUT) \
	X(ERR_ELF_MAGIC, "elf.magic", ERR_CLASS_INPUT) \
	X(ERR_ELF_OPEN, "elf.open", ERR_CLASS_SYSTEM) \
	X(ERR_ELF_TRUNCATED, "elf.truncated", ERR_CLASS_INPUT) \
	X(ERR_EXEC_NOT_EXECUTABLE, "exec.not_executable", ERR_CLASS_SYSTEM) \
	X(ERR_EXEC_NOT_FOUND, "exec.not_found", ERR_CLASS_SYSTEM) \
	X(ERR_EXEC_RECORD, "exec.record", ERR_CLASS_SYSTEM) \
	X(ERR_EXEC_REPLAY, "exec.replay", ERR_CLASS_SYSTEM) \
	X(ERR_EXEC_SPAWN, "exec.spawn", ERR_CLASS_SYSTEM) \
	X(ERR_INGEST_PERF_DATA, "ingest.perf_data", ERR_CLASS_INPUT) \
	X(ERR_INGEST_PERF_SCRIPT, "ingest.perf_script", ERR_CLASS_INPUT) \
	X(ERR_INGEST_READ, "ingest.read", ERR_CLASS_SYSTEM) \
	X(ERR_INTERNAL, "internal", ERR_CLASS_INTERNAL) \
	X(ERR_KALLSYMS_SYNTAX, "kallsyms.syntax", ERR_CLASS_INPUT) \
	X(ERR_LAUNCH_EMPTY, "launch.empty", ERR_CLASS_USAGE) \
	X(ERR_MACHINE_CACHE, "machine.cache", ERR_CLASS_INPUT) \
	X(ERR_MACHINE_CACHE_ABSENT, "machine.cache_absent", ERR_CLASS_INPUT) \
	X(ERR_MACHINE_CACHE_CORRUPT, "machine.cache_corrupt", ERR_CLASS_INPUT) \
	X(ERR_MACHINE_CACHE_MISMATCH, "machine.cache_mismatch", ERR_CLASS_INPUT) \
	X(ERR_MACHINE_CACHE_STALE, "machine.cache_stale", ERR_CLASS_INPUT) \
	X(ERR_MACHINE_NO_CACHE_DIR, "machine.no_cache_dir", ERR_CLASS_SYSTEM) \
	X(ERR_MPI_PARSE, "mpi.parse", ERR_CLASS_INPUT) \
	X(ERR_MPI_VERSION, "mpi.version", ERR_CLASS_INPUT) \
	X(ERR_OOM, "oom", ERR_CLASS_SYSTEM) \
	X(ERR_OUTPUT_OPEN, "output.open", ERR_CLASS_SYSTEM) \
	X(ERR_OUTPUT_WRITE, "output.write", ERR_CLASS_SYSTEM) \
	X(ERR_PERF_DATA_CORRUPT, "perf_data.corrupt", ERR_CLASS_INPUT) \
	X(ERR_PERF_DATA_OPEN, "perf_data.open", ERR_CLASS_SYSTEM) \
	X(ERR_PERF_DATA_UNSUPPORTED, "perf_data.unsupported", ERR_CLASS_INPUT) \
	X(ERR_RANK_WRITE, "rank.write", ERR_CLASS_SYSTEM) \
	X(ERR_RANKS_READ, "ranks.read", ERR_CLASS_SYSTEM) \
	X(ERR_READELF_OUTPUT, "readelf.output", ERR_CLASS_INPUT) \
	X(ERR_REGIONS_NEGATIVE_DURATION, "regions.negative_duration", ERR_CLASS_INPUT) \
	X(ERR_REGIONS_COLLISION, "regions.collision", ERR_CLASS_INPUT) \
	X(ERR_REGIONS_NESTING, "regions.nesting", ERR_CLASS_INPUT) \
	X(ERR_REGIONS_NO_HDF5, "regions.no_hdf5", ERR_CLASS_SYSTEM) \
	X(ERR_REGIONS_TOO_MANY_CALLS, "regions.too_many_calls", ERR_CLASS_INPUT) \
	X(ERR_REPORT_HTML, "report.html", ERR_CLASS_SYSTEM) \
	X(ERR_RUN_CORRUPT, "run.corrupt", ERR_CLASS_INPUT) \
	X(ERR_RUN_CREATE, "run.create", ERR_CLASS_SYSTEM) \
	X(ERR_RUN_FAILED, "run.failed", ERR_CLASS_SYSTEM) \
	X(ERR_RUN_FOREIGN, "run.foreign", ERR_CLASS_INPUT) \
	X(ERR_RUN_NEWER_SCHEMA, "run.newer_schema", ERR_CLASS_INPUT) \
	X(ERR_RUN_NONE, "run.none", ERR_CLASS_INPUT) \
	X(ERR_RUN_NOT_A_RUN, "run.not_a_run", ERR_CLASS_INPUT) \
	X(ERR_RUN_NOT_FOUND, "run.not_found", ERR_CLASS_INPUT) \
	X(ERR_RUN_STRICT, "run.strict", ERR_CLASS_SYSTEM) \
	X(ERR_RUN_UNREADABLE, "run.unreadable", ERR_CLASS_INPUT) \
	X(ERR_STORE_MKDIR, "store.mkdir", ERR_CLASS_SYSTEM) \
	X(ERR_STORE_SQLITE, "store.sqlite", ERR_CLASS_SYSTEM) \
	X(ERR_STORE_WRITE, "store.write", ERR_CLASS_SYSTEM) \
	X(ERR_SYMBOLIZER_FAILED, "symbolizer.failed", ERR_CLASS_SYSTEM) \
	X(ERR_SYMBOLIZER_JSON, "symbolizer.json", ERR_CLASS_INPUT) \
	X(ERR_SYMBOLIZER_MISSING, "symbolizer.missing", ERR_CLASS_SYSTEM) \
	X(ERR_TOML_DUPLICATE, "toml.duplicate", ERR_CLASS_USAGE) \
	X(ERR_TOML_IO, "toml.io", ERR_CLASS_SYSTEM) \
	X(ERR_TOML_SYNTAX, "toml.syntax", ERR_CLASS_USAGE) \
	X(ERR_TRACE_BAD_MAGIC, "trace.bad_magic", ERR_CLASS_INPUT) \
	X(ERR_TRACE_BAD_VERSION, "trace.bad_version", ERR_CLASS_INPUT) \
	X(ERR_TRACE_CORRUPT, "trace.corrupt", ERR_CLASS_INPUT) \
	X(ERR_TRACE_DUPLICATE_RANK, "trace.duplicate_rank", ERR_CLASS_INPUT) \
	X(ERR_TRACE_NEWER_VERSION, "trace.newer_version", ERR_CLASS_INPUT) \
	X(ERR_TRACE_NO_RANKS, "trace.no_ranks", ERR_CLASS_INPUT) \
	X(ERR_TRACE_NONE, "trace.none", ERR_CLASS_INPUT) \
	X(ERR_TRACE_OPEN, "trace.open", ERR_CLASS_SYSTEM) \
	X(ERR_TRACE_TRUNCATED, "trace.truncated", ERR_CLASS_INPUT) \
	X(ERR_USAGE, "usage", ERR_CLASS_USAGE) \

#define ERR_CODE_DECLARE(m, tok, cls) extern const char m[];
ERR_CODES(ERR_CODE_DECLARE)
#undef ERR_CODE_DECLARE

/* Out of memory: fills e with ERR_OOM and "out of memory" and returns
 * -ENOMEM, the one spelling of that failure. */
int err_oom(struct err *e);

/* The class of a code token; ERR_CLASS_INTERNAL for a token not in the list
 * (which tests/cli/err_codes.sh makes impossible). */
enum err_class err_class_of(const char *code);
/* True when code is in the list. */
bool err_code_known(const char *code);

/* The exit code of a verb that failed with code: EXIT_USAGE for the USAGE
 * class, otherwise `otherwise` (the verb's documented failure code). */
int err_exit_code(const char *code, int otherwise);

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
/* The launch/ module's entry point for the run pipeline (docs/pipeline.md
 * HOOK(mpi)): the launcher split lives in launch/split.h. */
#ifndef NUNATAK_LAUNCH_LAUNCH_H
#define NUNATAK_LAUNCH_LAUNCH_H

#include "launch/split.h"

#endif

/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SP_THREAD_H
#define SP_THREAD_H

#include "registry.h"

/* Registers the calling thread (maps its struct and call buffer, creates
 * its sampling timer if sampling runs, starts its counters). NULL on
 * ENOMEM. At its exit its calls reach the stream's file. */
struct sp_thread *sp_thread__new(void);

#endif

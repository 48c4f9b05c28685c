/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SP_THREAD_H
#define SP_THREAD_H

#include "registry.h"

/* Registers the calling thread (maps its struct and call buffer, creates
 * its sampling timer if sampling runs, starts its counters). NULL on
 * ENOMEM. At its exit its calls reach the stream's file. */
struct sp_thread *sp_thread__new(void);

/* Creates the key whose destructor flushes an exiting thread's calls; called
 * when the library is loaded, so that its index is among glibc's first 32
 * and a registration (maybe in a signal handler) never makes glibc allocate
 * a second-level block for it in pthread_setspecific. */
void sp_thread__prepare(void);

#endif

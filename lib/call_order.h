/* SPDX-License-Identifier: BSD-3-Clause */
/* The order of calls in a trace (call_order.c sorts by it; the spill and
 * the streamed writer merge by it). */
#ifndef SP_CALL_ORDER_H
#define SP_CALL_ORDER_H

#include "trace.h"

/* The order of that sort: @p x goes before @p y. */
static inline int sp_call_out__before(const struct sp_call_out *x, const struct sp_call_out *y)
{
	return x->start_ns < y->start_ns || (x->start_ns == y->start_ns && x->end_ns > y->end_ns);
}

#endif

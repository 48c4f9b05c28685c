/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The network Ceilings of an MPI Run in the report: the Machine's network_*
 * Ceilings with their Qualities, and where they came from (the manifest's
 * cost.network_ceilings_from, written by run/ranks_netceil.c: measured in
 * this Run or read from the cache, on which nodes, when, and whether those
 * are the nodes the application ran on). The summary's lines and the
 * payload's `network_ceilings`, from which the page draws its sentence.
 */
#ifndef NUNATAK_REPORT_NETCEIL_VIEW_H
#define NUNATAK_REPORT_NETCEIL_VIEW_H

typedef struct json_t json_t;
struct machine;
struct text_lines;

/* "  network Ceilings (<worst Quality>): <where they came from>" then one
 * line per network Ceiling, "    network_latency 2.8 us, estimated: <its
 * reason>". Where they came from is cost.network_ceilings_from.summary;
 * without it (a Run written before it was recorded), said to be unrecorded.
 * Nothing for a Machine without network Ceilings (the degradation
 * network-ceilings-unavailable says why). cost may be NULL. Returns 0 or
 * -ENOMEM. */
int netceil_view_lines(const struct machine *m, const json_t *cost, struct text_lines *out);

/* The payload's network_ceilings, from the manifest's JSON: {quality (the
 * worst of the network Ceilings', whose Values are in machine.ceilings; one
 * without a readable Quality counts as unavailable), from (the sentence, or
 * null: not recorded), how, nodes, measured_at (each null when the manifest
 * lacks it)}, or json null without network Ceilings. New reference, NULL
 * when out of memory. */
json_t *netceil_view_payload(const json_t *manifest);

#endif

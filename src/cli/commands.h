/* SPDX-License-Identifier: BSD-3-Clause */
/* One entry point per verb, each in its own cmd_<verb>.c; main.c dispatches. */
#ifndef NUNATAK_CLI_COMMANDS_H
#define NUNATAK_CLI_COMMANDS_H

int cmd_help(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_regions(int argc, char **argv);
int cmd_rank_shim(int argc, char **argv);
int cmd_fg_exec(int argc, char **argv);

#endif

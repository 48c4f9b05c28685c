/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * heat: a small 2-D heat-equation solver (Jacobi iteration on an N x N
 * grid split into two halves that "exchange" halo rows), instrumented with
 * scope_profiler regions. It is the bundled example both the library's tests
 * and `nunatak run` use.
 *
 *   heat [N [ITERATIONS [CHECKPOINT_MS]]]      defaults 512 2000 5
 *
 * Regions (nesting shown by indentation), with the number of calls:
 *   assemble                     1
 *   timestep                     ITERATIONS
 *     exchange                   ITERATIONS
 *     solve                      ITERATIONS
 *       sweep                    ITERATIONS       (the CPU-bound hot loop)
 *     residual                   ITERATIONS / 10
 *     checkpoint                 ITERATIONS / 100 (sleeps CHECKPOINT_MS)
 * Built with -DSP_ENABLE the regions are recorded; without, the SP_* macros
 * compile to nothing and only the sp_region()/sp_begin() calls remain.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <scope_profiler.h>

/* Each phase stays a function of its own in the binary, so profiles (perf,
 * nunatak run, the sampler's line view) name it rather than main. */
#if defined(__GNUC__)
#define PHASE __attribute__((noinline))
#else
#define PHASE
#endif

struct grid {
	int n;
	double *u, *next, *src;
};

static double *at(double *a, int n, int i, int j)
{
	return &a[(size_t)i * (size_t)(n + 2) + (size_t)j];
}

PHASE static void assemble(struct grid *g)
{
	SP_SCOPE("assemble");
	size_t cells = (size_t)(g->n + 2) * (size_t)(g->n + 2);
	g->u = calloc(cells, sizeof(double));
	g->next = calloc(cells, sizeof(double));
	g->src = calloc(cells, sizeof(double));
	if (!g->u || !g->next || !g->src) {
		fprintf(stderr, "heat: out of memory\n");
		exit(1);
	}
	for (int i = 1; i <= g->n; i++)
		for (int j = 1; j <= g->n; j++) {
			double x = (double)i / g->n - 0.5, y = (double)j / g->n - 0.5;
			*at(g->src, g->n, i, j) = exp(-40.0 * (x * x + y * y));
		}
	for (int j = 0; j < g->n + 2; j++)
		*at(g->u, g->n, 0, j) = 1.0; /* a hot top boundary */
}

/* The two halves of the grid stand for two subdomains: copy the rows
 * either side of the cut into each other's ghost rows. */
PHASE static void exchange(struct grid *g, double *halo)
{
	SP_SCOPE("exchange");
	int mid = g->n / 2, w = g->n + 2;
	memcpy(halo, at(g->u, g->n, mid, 0), (size_t)w * sizeof(double));
	memcpy(halo + w, at(g->u, g->n, mid + 1, 0), (size_t)w * sizeof(double));
	memcpy(at(g->u, g->n, mid + 1, 0), halo + w, (size_t)w * sizeof(double));
	memcpy(at(g->u, g->n, mid, 0), halo, (size_t)w * sizeof(double));
}

PHASE static void sweep(struct grid *g)
{
	SP_SCOPE("sweep");
	int n = g->n;
	for (int i = 1; i <= n; i++)
		for (int j = 1; j <= n; j++)
			*at(g->next, n, i, j) =
				0.25 * (*at(g->u, n, i - 1, j) + *at(g->u, n, i + 1, j) +
					*at(g->u, n, i, j - 1) + *at(g->u, n, i, j + 1) +
					1e-3 * *at(g->src, n, i, j));
	for (int i = 1; i <= n; i++)
		memcpy(at(g->u, n, i, 1), at(g->next, n, i, 1), (size_t)n * sizeof(double));
}

PHASE static double residual(struct grid *g)
{
	SP_SCOPE("residual");
	int n = g->n;
	double sum = 0;
	for (int i = 1; i <= n; i++)
		for (int j = 1; j <= n; j++) {
			double r = 4 * *at(g->u, n, i, j) - *at(g->u, n, i - 1, j) -
				   *at(g->u, n, i + 1, j) - *at(g->u, n, i, j - 1) -
				   *at(g->u, n, i, j + 1);
			sum += r * r;
		}
	return sqrt(sum);
}

PHASE static void checkpoint(int ms)
{
	SP_SCOPE("checkpoint");
	struct timespec d = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&d, &d) != 0) /* stands for writing a restart file */
		;
}

int main(int argc, char **argv)
{
	struct grid g = {.n = argc > 1 ? atoi(argv[1]) : 512};
	int iters = argc > 2 ? atoi(argv[2]) : 2000;
	int ckpt_ms = argc > 3 ? atoi(argv[3]) : 5;
	if (g.n < 4 || iters < 1 || ckpt_ms < 0) {
		fprintf(stderr, "usage: heat [N>=4 [ITERATIONS>=1 [CHECKPOINT_MS>=0]]]\n");
		return 2;
	}
	sp_init("heat", "heat example"); /* SCOPE_PROFILER_PREFIX overrides "heat" */
	/* A handle looked up once, for code that names regions at run time. */
	const struct sp_site *solve = sp_region_at("solve", __FILE__, __LINE__);
	assemble(&g);
	double *halo = malloc(2 * (size_t)(g.n + 2) * sizeof(double));
	double res = 0;
	for (int it = 0; it < iters && halo; it++) {
		SP_BEGIN(step, "timestep");
		exchange(&g, halo);
		sp_begin(solve);
		sweep(&g);
		sp_end(solve);
		if (it % 10 == 0)
			res = residual(&g);
		if (it % 100 == 0)
			checkpoint(ckpt_ms);
		SP_END(step);
	}
	printf("heat: n=%d iterations=%d residual=%.6e centre=%.6f\n", g.n, iters, res,
	       *at(g.u, g.n, g.n / 2, g.n / 2));
	free(halo);
	free(g.u);
	free(g.next);
	free(g.src);
	int rc = sp_finalize();
	if (rc != 0)
		fprintf(stderr, "heat: scope_profiler could not write its trace (%d)\n", rc);
	return 0;
}

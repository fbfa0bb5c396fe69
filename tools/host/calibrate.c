// calibrate: measures on the host kernel what Fairground's `machine.costs` stand for
// (docs/calibration.md; not part of CI). Prints one JSON object: for each cost, the median and
// the spread (min, max) of REPS repetitions, in ns.
//
//   calibrate [REPS]        (default 7; needs 2 CPUs; run on a quiet machine)
//
// - switch_ns: two threads pinned to one CPU hand a byte back and forth over two pipes, as
//   `perf bench sched pipe` does; one hand-off (write, wakeup, schedule, context switch,
//   read) is half a round trip.
// - busy_wakeup_ns: a thread on CPU 0 writes to a pipe that a thread on CPU 1 waits on, while
//   CPU 1 is kept busy by a SCHED_IDLE spinner (so it is not idle: the wakee preempts the
//   spinner at once). From just before the write to just after the read returns.
// - idle_wakeup_ns: the same with CPU 1 idle (it has to leave its idle state).
// - wakeup_ns = busy_wakeup_ns − switch_ns; idle_exit_ns = idle_wakeup_ns − busy_wakeup_ns.
// - migration_ns: one pass over a 256 KiB working set right after moving to the other CPU,
//   minus the same pass on the CPU where it was just touched (cache refill).
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (sched_setaffinity(0, sizeof s, &s)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, int n)
{
	qsort(v, n, sizeof *v, cmp_u64);
	return v[n / 2];
}

/* ---- switch_ns: ping-pong on one CPU ---- */
struct pp { int in, out, cpu, n; };

static void *pong(void *arg)
{
	struct pp *p = arg;
	char c;
	pin(p->cpu);
	for (int i = 0; i < p->n; i++) {
		if (read(p->in, &c, 1) != 1 || write(p->out, &c, 1) != 1)
			exit(1);
	}
	return NULL;
}

static uint64_t switch_once(int n)
{
	int a[2], b[2];
	if (pipe(a) || pipe(b))
		exit(1);
	struct pp p = { a[0], b[1], 0, n };
	pthread_t t;
	pin(0);
	pthread_create(&t, NULL, pong, &p);
	char c = 'x';
	usleep(10000);
	uint64_t t0 = now_ns();
	for (int i = 0; i < n; i++) {
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			exit(1);
	}
	uint64_t t1 = now_ns();
	pthread_join(t, NULL);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return (t1 - t0) / (2ull * n);
}

/* ---- cross-CPU wakeups ---- */
static volatile int spin_stop;

static void *spinner(void *arg)
{
	(void)arg;
	struct sched_param sp = { 0 };
	pin(1);
	if (sched_setscheduler(0, SCHED_IDLE, &sp))
		perror("SCHED_IDLE");
	while (!spin_stop)
		;
	return NULL;
}

struct wk { int in, out, n; uint64_t *t1; };

static void *wakee(void *arg)
{
	struct wk *w = arg;
	char c;
	pin(1);
	for (int i = 0; i < w->n; i++) {
		if (read(w->in, &c, 1) != 1)
			exit(1);
		w->t1[i] = now_ns();
		if (write(w->out, &c, 1) != 1)
			exit(1);
	}
	return NULL;
}

static uint64_t wakeup_once(int n, int busy)
{
	int a[2], b[2];
	uint64_t *t0 = calloc(n, sizeof *t0), *t1 = calloc(n, sizeof *t1), *d = calloc(n, sizeof *d);
	if (pipe(a) || pipe(b))
		exit(1);
	pthread_t s, t;
	spin_stop = 0;
	if (busy)
		pthread_create(&s, NULL, spinner, NULL);
	struct wk w = { a[0], b[1], n, t1 };
	pin(0);
	pthread_create(&t, NULL, wakee, &w);
	char c = 'x';
	for (int i = 0; i < n; i++) {
		usleep(200); /* let the wakee sleep and CPU 1 settle (idle, or back to the spinner) */
		t0[i] = now_ns();
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			exit(1);
	}
	pthread_join(t, NULL);
	spin_stop = 1;
	if (busy)
		pthread_join(s, NULL);
	for (int i = 0; i < n; i++)
		d[i] = t1[i] - t0[i];
	uint64_t m = median(d, n);
	free(t0); free(t1); free(d);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return m;
}

/* ---- migration_ns: cache refill of a working set ---- */
#define WS (256 * 1024)
static volatile uint64_t sink;

static uint64_t pass(volatile uint8_t *buf)
{
	uint64_t t0 = now_ns(), s = 0;
	for (int i = 0; i < WS; i += 64)
		s += buf[i]++;
	sink += s;
	return now_ns() - t0;
}

static uint64_t migration_once(int n)
{
	volatile uint8_t *buf = malloc(WS);
	memset((void *)buf, 1, WS);
	uint64_t *d = calloc(n, sizeof *d);
	for (int i = 0; i < n; i++) {
		pin(i % 2);
		pass(buf);
		uint64_t warm = pass(buf);
		pin((i + 1) % 2);
		uint64_t cold = pass(buf);
		d[i] = cold > warm ? cold - warm : 0;
	}
	uint64_t m = median(d, n);
	free(d);
	free((void *)buf);
	return m;
}

static void report(const char *name, uint64_t *v, int reps, int last)
{
	qsort(v, reps, sizeof *v, cmp_u64);
	printf("  \"%s\": {\"median\": %llu, \"min\": %llu, \"max\": %llu}%s\n", name,
	       (unsigned long long)v[reps / 2], (unsigned long long)v[0], (unsigned long long)v[reps - 1], last ? "" : ",");
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 7;
	if (reps < 1 || reps > 1000 || sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "usage: calibrate [REPS 1..1000] (needs 2 CPUs)\n");
		return 2;
	}
	uint64_t sw[1000], busy[1000], idle[1000], mig[1000], wk[1000], ex[1000];
	for (int r = 0; r < reps; r++) {
		sw[r] = switch_once(50000);
		busy[r] = wakeup_once(2000, 1);
		idle[r] = wakeup_once(2000, 0);
		mig[r] = migration_once(200);
		wk[r] = busy[r] > sw[r] ? busy[r] - sw[r] : 0;
		ex[r] = idle[r] > busy[r] ? idle[r] - busy[r] : 0;
	}
	printf("{\n");
	report("switch_ns", sw, reps, 0);
	report("busy_wakeup_ns", busy, reps, 0);
	report("idle_wakeup_ns", idle, reps, 0);
	report("wakeup_ns", wk, reps, 0);
	report("idle_exit_ns", ex, reps, 0);
	report("migration_ns", mig, reps, 1);
	printf("}\n");
	return 0;
}

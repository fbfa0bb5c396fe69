// eevdf_probe: real-kernel side of scripts/host-compare.sh (not part of CI).
//
//   eevdf_probe hog      SECONDS CPUS NICE SLICE_US
//   eevdf_probe periodic SECONDS CPUS NICE SLICE_US PERIOD_US RUN_US
//   eevdf_probe bursty   SECONDS CPUS NICE SLICE_US RUN_US SLEEP_US
//
// Each pins itself to CPUS (one CPU, or a comma-separated list) and sets nice and the slice
// with sched_setattr() (SCHED_OTHER, sched_runtime = SLICE_US µs; 0 = the default slice, as
// in the kernel). A hog spins until SECONDS have passed and prints its CPU time in ns. A
// periodic task sleeps to absolute deadlines start + k·PERIOD (TIMER_ABSTIME, timer slack
// 1 ns), measures how late it runs after each expiry (its wakeup latency, timer and
// interrupt latency included), burns RUN_US of its own CPU time, and prints the count and
// nearest-rank percentiles in ns. A bursty task burns RUN_US of CPU time, then sleeps
// SLEEP_US from the end of the burst (to an absolute time, so that its lateness is its wakeup
// latency), and counts the times it woke on another CPU than it slept on (migrations). It
// also prints the mean and standard deviation of the CPU time each cycle cost it, from one
// wakeup to the next (CLOCK_THREAD_CPUTIME_ID read right after each wakeup: the burst and
// the kernel's work for it, as the kernel charges the task; the same count of spins costs a
// varying time, and the model's burst is drawn from that measured distribution).
//
// With PROBE_START_NS in the environment (a CLOCK_MONOTONIC time in ns), a task first sleeps
// until then and runs until then + SECONDS, so that the tasks of one probe, started one after
// another, measure the same window, as the model's do. A periodic or bursty task also prints
// `late`, how many of its wakeups were more than LATE_NS late (they waited for a tick or for
// another task, not only for the wakeup path).
//
// A burn makes no system call: it spins a count measured once at start. Reading
// CLOCK_THREAD_CPUTIME_ID in the loop would be one, and task_sched_runtime() (core.c) calls
// the class's update_curr() for a running task, so the kernel would notice a used-up request
// or the end of its protection within microseconds of it, at the return from that call,
// instead of at the next tick or wakeup: no task of the model makes such calls.
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct sched_attr_v0 {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void setup(const char *cpus, int nice, long slice_us)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	for (const char *c = cpus; *c;) {
		CPU_SET(atoi(c), &set);
		c = strchr(c, ',');
		if (!c)
			break;
		c++;
	}
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(1);
	}
	struct sched_attr_v0 a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = SCHED_OTHER;
	a.sched_nice = nice;
	a.sched_runtime = (uint64_t)slice_us * 1000;
	if (syscall(SYS_sched_setattr, 0, &a, 0)) {
		perror("sched_setattr");
		exit(1);
	}
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
}

static int cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

static uint64_t rank(uint64_t *v, size_t n, double p)
{
	size_t r = (size_t)(p * n);
	if ((double)r < p * n)
		r++;
	if (r == 0)
		r = 1;
	return v[r - 1];
}

static double spins_per_ns;

static void spin(uint64_t n)
{
	for (volatile uint64_t i = 0; i < n; i++)
		;
}

// The spins per ns of this thread's CPU time: the fastest of a few rounds, as a round that
// loses its cache to another task on the CPU runs slower (preemption itself costs no CPU
// time of this thread).
static void calibrate(void)
{
	const uint64_t n = 2000000;
	for (int r = 0; r < 5; r++) {
		uint64_t c = now_ns(CLOCK_THREAD_CPUTIME_ID);
		spin(n);
		double rate = (double)n / (double)(now_ns(CLOCK_THREAD_CPUTIME_ID) - c);
		if (rate > spins_per_ns)
			spins_per_ns = rate;
	}
}

static void burn(uint64_t ns)
{
	spin((uint64_t)(ns * spins_per_ns));
}

static void sleep_until(uint64_t target)
{
	struct timespec ts = { .tv_sec = target / 1000000000ull, .tv_nsec = target % 1000000000ull };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

#define LATE_NS 500000ull

static void print_latencies(uint64_t *lat, size_t n, uint64_t cpu0, long migrations)
{
	size_t late = 0;
	qsort(lat, n, sizeof(*lat), cmp);
	for (size_t i = 0; i < n; i++)
		late += lat[i] > LATE_NS;
	printf("late %zu\n", late);
	printf("cpu_ns %llu\n", (unsigned long long)(now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0));
	printf("count %zu p50 %llu p90 %llu p99 %llu max %llu migrations %ld\n", n, (unsigned long long)rank(lat, n, 0.5),
	       (unsigned long long)rank(lat, n, 0.9), (unsigned long long)rank(lat, n, 0.99),
	       (unsigned long long)(n ? lat[n - 1] : 0), migrations);
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: %s hog|periodic|bursty SECONDS CPUS NICE SLICE_US [PERIOD_US RUN_US | RUN_US SLEEP_US]\n", argv[0]);
		return 2;
	}
	double secs = atof(argv[2]);
	int nice = atoi(argv[4]);
	long slice_us = atol(argv[5]);
	setup(argv[3], nice, slice_us);
	if (strcmp(argv[1], "hog"))
		calibrate();
	const char *at = getenv("PROBE_START_NS");
	uint64_t start = now_ns(CLOCK_MONOTONIC);
	if (at) {
		start = strtoull(at, NULL, 10);
		sleep_until(start);
	}
	uint64_t end = start + (uint64_t)(secs * 1e9);
	uint64_t cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	if (!strcmp(argv[1], "hog")) {
		while (now_ns(CLOCK_MONOTONIC) < end)
			;
		printf("cpu_ns %llu\n", (unsigned long long)(now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0));
		return 0;
	}
	if (argc < 8)
		return 2;
	uint64_t a = (uint64_t)atol(argv[6]) * 1000, b = (uint64_t)atol(argv[7]) * 1000;
	if (!strcmp(argv[1], "bursty")) {
		uint64_t run = a, sleep = b;
		size_t cap = (size_t)(secs * 1e9 / (run + sleep + 1)) + 2, n = 0;
		uint64_t *lat = calloc(cap, sizeof(*lat));
		long migrations = 0;
		// Per cycle CPU time: sums for the mean and the variance (in µs², to stay in range).
		uint64_t c_prev = 0, cycles = 0;
		double sum = 0, sum2 = 0;
		for (;;) {
			burn(run);
			uint64_t target = now_ns(CLOCK_MONOTONIC) + sleep;
			if (target >= end)
				break;
			int before = sched_getcpu();
			sleep_until(target);
			uint64_t t = now_ns(CLOCK_MONOTONIC);
			if (n < cap && t < end)
				lat[n++] = t - target;
			if (sched_getcpu() != before)
				migrations++;
			// After the latency is taken: this system call runs update_curr() for a task
			// that has only just been picked, whose request is not used up.
			uint64_t c = now_ns(CLOCK_THREAD_CPUTIME_ID);
			if (c_prev) {
				double us = (double)(c - c_prev) / 1e3;
				sum += us;
				sum2 += us * us;
				cycles++;
			}
			c_prev = c;
		}
		print_latencies(lat, n, cpu0, migrations);
		if (cycles > 1) {
			double mean = sum / cycles, var = sum2 / cycles - mean * mean;
			printf("cycle_cpu_mean_ns %.0f cycle_cpu_sd_ns %.0f\n", mean * 1e3, (var > 0 ? sqrt(var) : 0) * 1e3);
		}
		return 0;
	}
	uint64_t period = a, run = b;
	size_t cap = (size_t)(secs * 1e9 / period) + 2, n = 0;
	uint64_t *lat = calloc(cap, sizeof(*lat));
	uint64_t target = start;
	size_t woke = 0; // every wakeup, counted or not: the CPU time per cycle divides by it
	for (;;) {
		target += period;
		if (target >= end)
			break;
		sleep_until(target);
		uint64_t t = now_ns(CLOCK_MONOTONIC);
		woke++;
		// A wakeup counts when the task ran within the window, as the model counts one
		// (at its switch-in, before the run's end): the last timer, 3 µs before the end
		// at 10.101 ms over 3 s, otherwise counts here and not there.
		if (n < cap && t < end)
			lat[n++] = t - target;
		burn(run);
	}
	print_latencies(lat, n, cpu0, 0);
	printf("cycles %zu\n", woke);
	return 0;
}

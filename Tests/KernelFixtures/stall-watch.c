// SPDX-License-Identifier: Apache-2.0
/*
 * stall-watch: the VM's own stalls, measured beside a timing step. One thread per online CPU, each
 * pinned to its CPU at the highest SCHED_FIFO priority, wakes every PERIOD_US on CLOCK_MONOTONIC
 * (an absolute deadline, clock_nanosleep). Such a thread is late only when its CPU did not run at
 * all: under an emulator, when the host did not run that virtual CPU (a QEMU vCPU thread preempted
 * on a loaded host, or the translator's flush stopping every vCPU). A wake-up later than
 * THRESHOLD_US is a stall, from the missed deadline to the wake-up. What a program under test was
 * doing at that moment is then not the program's: the HIL-AV-SYNC gate sets such notes aside, and
 * bounds how many.
 *
 * Prints "ready" once every thread runs; on SIGTERM, "cpu N wakes W" for each CPU and one
 * "stall CPU FROM_NS TO_NS" line for each stall, in CLOCK_MONOTONIC nanoseconds (the clock the
 * fixtures date their GO writes on). Nothing is printed while it watches.
 *
 *   stall-watch PERIOD_US THRESHOLD_US
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS 64
#define MAX_STALLS 4096

struct watcher {
	pthread_t thread;
	int cpu;
	long long period_ns, threshold_ns;
	long long wakes, stalls;
	long long from[MAX_STALLS], to[MAX_STALLS];
};

static volatile sig_atomic_t stopping;
static pthread_barrier_t started;

static long long monotonic_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

static void *watch(void *argument)
{
	struct watcher *w = argument;
	cpu_set_t set;
	struct sched_param priority = { .sched_priority = sched_get_priority_max(SCHED_FIFO) };
	long long deadline, woke;
	struct timespec at;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0 ||
	    pthread_setschedparam(pthread_self(), SCHED_FIFO, &priority) != 0) {
		fprintf(stderr, "stall-watch: cpu %d: cannot pin a real-time thread (run as root)\n", w->cpu);
		exit(1);
	}
	pthread_barrier_wait(&started);
	deadline = monotonic_ns() + w->period_ns;
	while (!stopping) {
		at.tv_sec = deadline / 1000000000LL;
		at.tv_nsec = deadline % 1000000000LL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
			;
		woke = monotonic_ns();
		w->wakes++;
		if (woke - deadline > w->threshold_ns && w->stalls < MAX_STALLS) {
			w->from[w->stalls] = deadline;
			w->to[w->stalls] = woke;
			w->stalls++;
		}
		/* From the wake-up, not the missed deadline: a stall is one stall, not a burst after it. */
		deadline = (woke > deadline ? woke : deadline) + w->period_ns;
	}
	return NULL;
}

static void stop(int signal)
{
	(void)signal;
	stopping = 1;
}

int main(int argc, char **argv)
{
	static struct watcher watchers[MAX_CPUS];
	long period_us, threshold_us, cpus;
	struct sigaction action;
	sigset_t signals;
	int i;
	long long k;

	if (argc != 3 || (period_us = strtol(argv[1], NULL, 10)) <= 0 || (threshold_us = strtol(argv[2], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: stall-watch PERIOD_US THRESHOLD_US\n");
		return 64;
	}
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 1 || cpus > MAX_CPUS) {
		fprintf(stderr, "stall-watch: %ld CPUs online, at most %d watched\n", cpus, MAX_CPUS);
		return 1;
	}
	memset(&action, 0, sizeof action);
	action.sa_handler = stop;
	sigaction(SIGTERM, &action, NULL);
	sigaction(SIGINT, &action, NULL);
	/* The signals go to the main thread alone: the watchers are created with them blocked. */
	sigemptyset(&signals);
	sigaddset(&signals, SIGTERM);
	sigaddset(&signals, SIGINT);
	pthread_sigmask(SIG_BLOCK, &signals, NULL);
	pthread_barrier_init(&started, NULL, (unsigned)cpus + 1);
	for (i = 0; i < cpus; i++) {
		watchers[i].cpu = i;
		watchers[i].period_ns = period_us * 1000LL;
		watchers[i].threshold_ns = threshold_us * 1000LL;
		if (pthread_create(&watchers[i].thread, NULL, watch, &watchers[i]) != 0) {
			perror("stall-watch: pthread_create");
			return 1;
		}
	}
	pthread_sigmask(SIG_UNBLOCK, &signals, NULL);
	pthread_barrier_wait(&started);
	printf("ready\n");
	fflush(stdout);
	while (!stopping)
		pause();
	/* The watchers see `stopping` at their next wake-up, within a period. */
	for (i = 0; i < cpus; i++)
		pthread_join(watchers[i].thread, NULL);
	for (i = 0; i < cpus; i++)
		printf("cpu %d wakes %lld\n", i, watchers[i].wakes);
	for (i = 0; i < cpus; i++)
		for (k = 0; k < watchers[i].stalls; k++)
			printf("stall %d %lld %lld\n", i, watchers[i].from[k], watchers[i].to[k]);
	return 0;
}

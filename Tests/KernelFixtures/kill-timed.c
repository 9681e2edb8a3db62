// SPDX-License-Identifier: Apache-2.0
/*
 * kill-timed: sends SIGKILL to a process and prints when, in CLOCK_MONOTONIC nanoseconds: the clock
 * the fixtures' drive timelines are on, so that the time from a program's death to its chip's stop
 * (HIL-DEADMAN) is read from one clock. The time is taken just before the signal is sent.
 *
 *   kill-timed PID
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec now;
	long pid;

	if (argc != 2 || (pid = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: kill-timed PID\n");
		return 64;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (kill((pid_t)pid, SIGKILL) != 0) {
		perror("kill-timed: kill");
		return 1;
	}
	printf("%lld\n", (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
	return 0;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * ff-mix: one force-feedback client session, the same on any device, to compare how two drivers
 * play it (Scripts/kernel-test's HIL-FF-MEMLESS: Linux's drv260x through ff-memless, and hapticd's
 * uinput device). Gain 75 % (feedbackd's), a strong rumble of 0x4040 for 600 ms, and 200 ms in a
 * periodic effect of magnitude 0x2020 for 600 ms, so two effects play at once from 200 to 600 ms.
 * The magnitudes are chosen so that ff-memless's sums (0x3030, 0x6060) have equal bytes: Linux 6.1's
 * drv260x sends the magnitude's low byte to RTP, 6.12's its high byte.
 *
 *   ff-mix /dev/input/eventN
 */
#include <fcntl.h>
#include <linux/input.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec spec;

	clock_gettime(CLOCK_MONOTONIC, &spec);
	return (long long)spec.tv_sec * 1000000000LL + spec.tv_nsec;
}

static int send_event(int fd, int type, int code, int value)
{
	struct input_event event;

	memset(&event, 0, sizeof(event));
	event.type = type;
	event.code = code;
	event.value = value;
	return write(fd, &event, sizeof(event)) == sizeof(event) ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct ff_effect rumble, periodic;
	long long start;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: ff-mix DEVICE\n");
		return 64;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 66;
	}
	memset(&rumble, 0, sizeof(rumble));
	rumble.type = FF_RUMBLE;
	rumble.id = -1;
	rumble.u.rumble.strong_magnitude = 0x4040;
	rumble.replay.length = 600;
	memset(&periodic, 0, sizeof(periodic));
	periodic.type = FF_PERIODIC;
	periodic.id = -1;
	periodic.u.periodic.waveform = FF_SINE;
	periodic.u.periodic.period = 100;
	periodic.u.periodic.magnitude = 0x2020;
	periodic.replay.length = 600;
	if (ioctl(fd, EVIOCSFF, &rumble) < 0 || ioctl(fd, EVIOCSFF, &periodic) < 0) {
		perror("EVIOCSFF");
		return 1;
	}
	if (send_event(fd, EV_FF, FF_GAIN, 0xC000) < 0) {
		perror("FF_GAIN");
		return 1;
	}
	start = now_ns();
	if (send_event(fd, EV_FF, rumble.id, 1) < 0) {
		perror("play");
		return 1;
	}
	printf("ff-mix: start %lld\n", start);
	fflush(stdout);
	usleep(200000);
	if (send_event(fd, EV_FF, periodic.id, 1) < 0) {
		perror("play");
		return 1;
	}
	printf("ff-mix: second %lld\n", now_ns());
	usleep(900000);
	ioctl(fd, EVIOCRMFF, rumble.id);
	ioctl(fd, EVIOCRMFF, periodic.id);
	close(fd);
	return 0;
}

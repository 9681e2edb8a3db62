// SPDX-License-Identifier: Apache-2.0
/*
 * ff-constant: uploads one FF_CONSTANT effect to a Linux force-feedback device, plays it, stops it.
 * A force-feedback client for the VM (Scripts/kernel-test) for Linux's da7280 driver, which plays
 * FF_CONSTANT in its direct-register-override mode. (fftest cannot be used there: it writes FF_GAIN,
 * which Linux 6.1's da7280 advertises without a set_gain handler, so ff-core calls a null pointer.)
 * It never writes FF_GAIN.
 *
 *   ff-constant /dev/input/eventN LEVEL MILLISECONDS      (LEVEL: -32768..32767)
 */
#include <fcntl.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct ff_effect effect;
	struct input_event play;
	int fd, milliseconds;

	if (argc != 4) {
		fprintf(stderr, "usage: ff-constant DEVICE LEVEL MILLISECONDS\n");
		return 64;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 66;
	}
	milliseconds = atoi(argv[3]);
	memset(&effect, 0, sizeof(effect));
	effect.type = FF_CONSTANT;
	effect.id = -1;
	effect.u.constant.level = (short)strtol(argv[2], NULL, 0);
	effect.replay.length = (unsigned short)milliseconds;
	if (ioctl(fd, EVIOCSFF, &effect) < 0) {
		perror("EVIOCSFF");
		return 1;
	}
	memset(&play, 0, sizeof(play));
	play.type = EV_FF;
	play.code = effect.id;
	play.value = 1;
	if (write(fd, &play, sizeof(play)) != sizeof(play)) {
		perror("play");
		return 1;
	}
	printf("ff-constant: effect %d uploaded and playing (level %s, %d ms)\n", effect.id, argv[2], milliseconds);
	fflush(stdout);
	usleep(milliseconds * 1000);
	play.value = 0;
	if (write(fd, &play, sizeof(play)) != sizeof(play))
		perror("stop");
	usleep(100000);
	ioctl(fd, EVIOCRMFF, effect.id);
	close(fd);
	return 0;
}

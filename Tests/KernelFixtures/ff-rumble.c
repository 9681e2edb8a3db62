// SPDX-License-Identifier: Apache-2.0
/*
 * ff-rumble: uploads one FF_RUMBLE effect to a Linux force-feedback device, plays it, stops it.
 * A force-feedback client for the VM (Scripts/kernel-test), so the kernel's drv260x driver can be
 * driven with chosen magnitudes (fftest's rumbles have 16-bit magnitudes whose low byte is 0).
 *
 *   ff-rumble /dev/input/eventN STRONG WEAK MILLISECONDS
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

	if (argc != 5) {
		fprintf(stderr, "usage: ff-rumble DEVICE STRONG WEAK MILLISECONDS\n");
		return 64;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 66;
	}
	milliseconds = atoi(argv[4]);
	memset(&effect, 0, sizeof(effect));
	effect.type = FF_RUMBLE;
	effect.id = -1;
	effect.u.rumble.strong_magnitude = (unsigned short)strtoul(argv[2], NULL, 0);
	effect.u.rumble.weak_magnitude = (unsigned short)strtoul(argv[3], NULL, 0);
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
	printf("ff-rumble: effect %d uploaded and playing (strong %s, weak %s, %d ms)\n", effect.id, argv[2], argv[3], milliseconds);
	fflush(stdout);
	usleep(milliseconds * 1000 + 200000);
	play.value = 0;
	if (write(fd, &play, sizeof(play)) != sizeof(play))
		perror("stop");
	ioctl(fd, EVIOCRMFF, effect.id);
	close(fd);
	return 0;
}

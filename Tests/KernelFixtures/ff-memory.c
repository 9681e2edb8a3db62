// SPDX-License-Identifier: Apache-2.0
/*
 * ff-memory: writes a DA7280 waveform-memory image through Linux's da7280 force-feedback driver and
 * plays a sequence of it, as that driver documents its FF_PERIODIC/FF_CUSTOM uploads: custom data of
 * 4 to 100 values is the memory image (written to the chip's waveform memory), 2 values are
 * {PS_SEQ_ID, PS_SEQ_LOOP} (the sequence a play of that effect starts in RTWM mode). A client for the
 * VM (Scripts/kernel-test); like ff-constant it never writes FF_GAIN.
 *
 *   ff-memory /dev/input/eventN SEQUENCE MILLISECONDS BYTE...     (BYTE: 0x00-0xFF, 4 to 100 of them)
 */
#include <fcntl.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int upload(int fd, __s16 *data, int count)
{
	struct ff_effect effect;

	memset(&effect, 0, sizeof(effect));
	effect.type = FF_PERIODIC;
	effect.id = -1;
	effect.u.periodic.waveform = FF_CUSTOM;
	effect.u.periodic.custom_len = count;
	effect.u.periodic.custom_data = data;
	effect.replay.length = 1000;
	if (ioctl(fd, EVIOCSFF, &effect) < 0)
		return -1;
	return effect.id;
}

int main(int argc, char **argv)
{
	__s16 image[100], sequence[2];
	struct input_event play;
	int fd, count, index, milliseconds, memory, selection;

	if (argc < 8 || argc > 104) {
		fprintf(stderr, "usage: ff-memory DEVICE SEQUENCE MILLISECONDS BYTE... (4 to 100 bytes)\n");
		return 64;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 66;
	}
	count = argc - 4;
	for (index = 0; index < count; index++)
		image[index] = (__s16)strtol(argv[4 + index], NULL, 0);
	memory = upload(fd, image, count);
	if (memory < 0) {
		perror("EVIOCSFF (memory image)");
		return 1;
	}
	sequence[0] = (__s16)atoi(argv[2]);
	sequence[1] = 0;
	selection = upload(fd, sequence, 2);
	if (selection < 0) {
		perror("EVIOCSFF (sequence)");
		return 1;
	}
	milliseconds = atoi(argv[3]);
	memset(&play, 0, sizeof(play));
	play.type = EV_FF;
	play.code = selection;
	play.value = 1;
	if (write(fd, &play, sizeof(play)) != sizeof(play)) {
		perror("play");
		return 1;
	}
	printf("ff-memory: %d bytes uploaded (effect %d), sequence %s playing (effect %d) for %d ms\n", count, memory, argv[2],
	       selection, milliseconds);
	fflush(stdout);
	usleep(milliseconds * 1000);
	play.value = 0;
	if (write(fd, &play, sizeof(play)) != sizeof(play))
		perror("stop");
	usleep(100000);
	ioctl(fd, EVIOCRMFF, selection);
	ioctl(fd, EVIOCRMFF, memory);
	close(fd);
	return 0;
}

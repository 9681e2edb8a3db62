// SPDX-License-Identifier: Apache-2.0
// av-capture DEVICE SECONDS PLAYBACK_STATUS: records an ALSA capture device (the loopback card's
// capture side in the hardware-in-loop VM) for SECONDS or until SIGTERM, and prints, once the
// recording has ended, for each sound
// onset the CLOCK_MONOTONIC nanoseconds at which a real card would have played it: "onset NS".
// An onset is a frame at or above 3000 after 100 ms below 300. Prints "ready" once the stream runs,
// "overrun" when frames were lost.
//
// The clock is the loopback's own. snd-aloop (sound/drivers/aloop.c, its jiffies timer) moves both
// streams of a cable by whole jiffies, each counted from the jiffy its trigger read, and copies the
// playback's frames into the capture where the two positions meet: the playback's frame q lands at
// the capture's frame q + D, where D is the capture's position less the playback's, read in one
// jiffy (the two only ever advance together). So a sound heard at capture frame p was the
// playback's frame p - D, which a real card, starting at the trigger, plays at trigger + (p - D) /
// rate. D is exact: both positions are read (the capture's status, the playback's /proc status,
// which moves its hardware pointer, then the capture's again) and kept only when the capture did not
// move between its two reads. Dating by time alone (the capture's jiffy edge and the trigger's phase
// in its tick) is a tick out whenever the trigger falls just after an edge whose tick the guest has
// not yet counted: CI saw every sound 4 ms early that way. D is read again at each sound; a D that
// changes means the playback restarted (a new trigger, its pointer back to 0) and fails the run.
// "clock:" prints the figures used: the tick (the greatest common divisor of the capture positions
// read), D and the two positions it came from, and the trigger.
#include <alsa/asoundlib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RATE 48000
#define CHUNK 240
#define MAX_ONSETS 1000

static volatile sig_atomic_t stopped;

static void stop(int signal)
{
	(void)signal;
	stopped = 1;
}

static long long gcd(long long a, long long b)
{
	while (b) {
		long long r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/* The playback's state from its /proc status (reading it moves its hardware pointer to now):
 * 1 with its trigger time (CLOCK_MONOTONIC: the playback asked for monotonic timestamps) and
 * hw_ptr when it runs, else 0. */
static int playback_status(const char *path, long long *trigger, long long *pointer)
{
	char line[128];
	long long sec, nsec;
	int running = 0, fields = 0;
	FILE *file = fopen(path, "r");

	if (!file)
		return 0;
	while (fgets(line, sizeof line, file)) {
		if (strncmp(line, "state: RUNNING", 14) == 0)
			running = 1;
		if (sscanf(line, "trigger_time: %lld.%lld", &sec, &nsec) == 2) {
			*trigger = sec * 1000000000LL + nsec;
			fields++;
		}
		if (sscanf(line, "hw_ptr : %lld", pointer) == 1)
			fields++;
	}
	fclose(file);
	return running && fields == 2;
}

/* The capture's hardware position now: the frames read so far and those waiting. */
static long long capture_position(snd_pcm_t *pcm, snd_pcm_status_t *status, long long read)
{
	snd_pcm_status(pcm, status);
	return read + snd_pcm_status_get_avail(status);
}

int main(int argc, char **argv)
{
	snd_pcm_t *pcm;
	snd_pcm_status_t *status;
	short buffer[2 * CHUNK];
	long long position = 0, total, quiet = RATE, onsets[MAX_ONSETS];
	long long tick_frames = 0, trigger = -1, offset = 0, offset_capture = 0, offset_playback = 0;
	int error, count = 0, index, pending = 0, known = 0;

	struct sigaction action = { .sa_handler = stop };

	if (argc != 4) {
		fprintf(stderr, "usage: av-capture DEVICE SECONDS PLAYBACK_STATUS\n");
		return 2;
	}
	total = (long long)(atof(argv[2]) * RATE);
	if ((error = snd_pcm_open(&pcm, argv[1], SND_PCM_STREAM_CAPTURE, 0)) < 0 ||
	    (error = snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 2, RATE, 1, 100000)) < 0) {
		fprintf(stderr, "av-capture: %s: %s\n", argv[1], snd_strerror(error));
		return 1;
	}
	snd_pcm_status_malloc(&status);
	/* No SA_RESTART: SIGTERM ends a read that waits, and the loop with it. */
	sigaction(SIGTERM, &action, NULL);
	snd_pcm_start(pcm);
	printf("ready\n");
	fflush(stdout);
	while (position < total && !stopped) {
		snd_pcm_sframes_t frames = snd_pcm_readi(pcm, buffer, CHUNK);

		if (frames == -EINTR)
			continue;
		if (frames < 0) {
			printf("overrun\n");
			snd_pcm_prepare(pcm);
			snd_pcm_start(pcm);
			continue;
		}
		tick_frames = gcd(tick_frames, capture_position(pcm, status, position + frames));
		for (index = 0; index < frames; index++) {
			int value = abs(buffer[2 * index]);

			if (value >= 3000 && quiet >= RATE / 10 && count < MAX_ONSETS) {
				onsets[count++] = position + index;
				pending = 1;
			}
			quiet = value < 300 ? quiet + 1 : 0;
		}
		position += frames;
		/* At each sound, until read in one jiffy: D, the capture's position less the playback's. */
		if (pending) {
			long long before = capture_position(pcm, status, position), started = -1, played = 0;
			int running = playback_status(argv[3], &started, &played);
			long long after = capture_position(pcm, status, position);

			if (running && before == after) {
				pending = 0;
				if (known && (started != trigger || before - played != offset)) {
					fprintf(stderr, "av-capture: the playback restarted after its first sound (trigger %lld, then %lld; "
							"its frame 0 at the capture's %lld, then %lld): the sounds cannot be dated on one clock\n",
						trigger, started, offset, before - played);
					return 1;
				}
				if (!known) {
					known = 1;
					trigger = started;
					offset = before - played;
					offset_capture = before;
					offset_playback = played;
				}
			}
		}
	}
	snd_pcm_close(pcm);
	if (count && (!known || tick_frames == 0)) {
		fprintf(stderr, "av-capture: no running playback's position and trigger time in %s\n", argv[3]);
		return 1;
	}
	if (count) {
		printf("clock: tick %lld ns (%lld frames), the playback's frame 0 at the capture's frame %lld "
		       "(capture %lld less playback %lld, read in one jiffy), playback trigger %lld\n",
		       tick_frames * 1000000000LL / RATE, tick_frames, offset, offset_capture, offset_playback, trigger);
		for (index = 0; index < count; index++)
			printf("onset %lld\n", trigger + (onsets[index] - offset) * 1000000000LL / RATE);
	}
	return 0;
}

// SPDX-License-Identifier: Apache-2.0
// av-capture DEVICE SECONDS PLAYBACK_STATUS: records an ALSA capture device (the loopback card's
// capture side in the hardware-in-loop VM) for SECONDS or until SIGTERM, and prints, once the
// recording has ended, for each sound
// onset the CLOCK_MONOTONIC nanoseconds at which a real card would have played it: "onset NS".
// An onset is a frame at or above 3000 after 100 ms below 300. Prints "ready" once the stream runs,
// "overrun" when frames were lost.
//
// The clock is the loopback's own. snd-aloop (sound/drivers/aloop.c, its jiffies timer) moves a
// stream by whole jiffies counted from that stream's trigger, and copies the playback's frames into
// the capture where the two positions meet: the playback's frame q lands at the capture's position
// at the playback's trigger jiffy, plus q. So:
//   - each capture frame is dated on the capture's jiffy grid: E + p / rate, where E is the jiffy
//     edge of the capture's trigger. Each status read gives its time and the frames captured up to
//     it; that time less the frames' duration is E plus how far the read came after the last edge,
//     so E is the smallest of them over the run (not any one read's time, which is late by up to a
//     jiffy). The jiffy (frames a tick) is the greatest common divisor of the positions read.
//   - the playback's frames are then dated from the jiffy edge before its trigger, early by the
//     trigger's phase within its tick, the same for the whole run (0 to 1 tick). A real card starts
//     at the trigger: the playback's trigger time (PLAYBACK_STATUS, the substream's
//     /proc/asound/.../status, read while it runs) less that edge is added to every onset.
// "clock:" prints the figures used: the tick, the capture's edge, the trigger and its phase.
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

/* The substream's trigger time (CLOCK_MONOTONIC: the playback asked for monotonic timestamps), or
 * -1 when it is not running. */
static long long playback_trigger(const char *path)
{
	char line[128];
	long long sec, nsec, trigger = -1;
	int running = 0;
	FILE *file = fopen(path, "r");

	if (!file)
		return -1;
	while (fgets(line, sizeof line, file)) {
		if (strncmp(line, "state: RUNNING", 14) == 0)
			running = 1;
		if (sscanf(line, "trigger_time: %lld.%lld", &sec, &nsec) == 2)
			trigger = sec * 1000000000LL + nsec;
	}
	fclose(file);
	return running ? trigger : -1;
}

int main(int argc, char **argv)
{
	snd_pcm_t *pcm;
	snd_pcm_sw_params_t *sw;
	snd_pcm_status_t *status;
	short buffer[2 * CHUNK];
	long long position = 0, total, quiet = RATE, onsets[MAX_ONSETS];
	long long edge = -1, tick_frames = 0, trigger = -1;
	int error, count = 0, index;

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
	snd_pcm_sw_params_malloc(&sw);
	snd_pcm_sw_params_current(pcm, sw);
	snd_pcm_sw_params_set_tstamp_mode(pcm, sw, SND_PCM_TSTAMP_ENABLE);
	snd_pcm_sw_params_set_tstamp_type(pcm, sw, SND_PCM_TSTAMP_TYPE_MONOTONIC);
	snd_pcm_sw_params(pcm, sw);
	snd_pcm_status_malloc(&status);
	/* No SA_RESTART: SIGTERM ends a read that waits, and the loop with it. */
	sigaction(SIGTERM, &action, NULL);
	snd_pcm_start(pcm);
	printf("ready\n");
	fflush(stdout);
	while (position < total && !stopped) {
		snd_pcm_sframes_t frames = snd_pcm_readi(pcm, buffer, CHUNK);
		snd_htimestamp_t stamp;
		long long captured, since;

		if (frames == -EINTR)
			continue;
		if (frames < 0) {
			printf("overrun\n");
			snd_pcm_prepare(pcm);
			snd_pcm_start(pcm);
			continue;
		}
		snd_pcm_status(pcm, status);
		snd_pcm_status_get_htstamp(status, &stamp);
		/* At `stamp` the capture had position + frames + avail frames. */
		captured = position + frames + snd_pcm_status_get_avail(status);
		since = (long long)stamp.tv_sec * 1000000000LL + stamp.tv_nsec - captured * 1000000000LL / RATE;
		if (edge < 0 || since < edge)
			edge = since;
		tick_frames = gcd(tick_frames, captured);
		for (index = 0; index < frames; index++) {
			int value = abs(buffer[2 * index]);

			if (value >= 3000 && quiet >= RATE / 10 && count < MAX_ONSETS) {
				onsets[count++] = position + index;
				if (trigger < 0)
					trigger = playback_trigger(argv[3]);
			}
			quiet = value < 300 ? quiet + 1 : 0;
		}
		position += frames;
	}
	snd_pcm_close(pcm);
	if (count && (trigger < 0 || tick_frames == 0)) {
		fprintf(stderr, "av-capture: no playback trigger time in %s\n", argv[3]);
		return 1;
	}
	if (count) {
		long long tick = tick_frames * 1000000000LL / RATE;
		long long phase = ((trigger - edge) % tick + tick) % tick;

		printf("clock: tick %lld ns (%lld frames), capture edge %lld, playback trigger %lld, its phase in its tick %lld ns\n",
		       tick, tick_frames, edge, trigger, phase);
		for (index = 0; index < count; index++)
			printf("onset %lld\n", edge + onsets[index] * 1000000000LL / RATE + phase);
	}
	return 0;
}

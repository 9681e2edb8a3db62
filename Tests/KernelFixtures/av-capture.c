// SPDX-License-Identifier: Apache-2.0
// av-capture DEVICE SECONDS: records an ALSA capture device (the loopback card's capture side in
// the hardware-in-loop VM) and prints, for each sound onset, the CLOCK_MONOTONIC nanoseconds at
// which it was captured: "onset NS". Frames are dated from the device's own timestamps (the
// instant of the last hardware pointer update and the frames available then), not from when this
// program happened to read them. An onset is a frame at or above 3000 after 100 ms below 300.
// Prints "ready" once the stream runs, "overrun" when frames were lost.
#include <alsa/asoundlib.h>
#include <stdio.h>
#include <stdlib.h>

#define RATE 48000
#define CHUNK 240

int main(int argc, char **argv)
{
	snd_pcm_t *pcm;
	snd_pcm_sw_params_t *sw;
	snd_pcm_status_t *status;
	short buffer[2 * CHUNK];
	long long position = 0, total, quiet = RATE;
	int error;

	if (argc != 3) {
		fprintf(stderr, "usage: av-capture DEVICE SECONDS\n");
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
	snd_pcm_start(pcm);
	printf("ready\n");
	fflush(stdout);
	while (position < total) {
		snd_pcm_sframes_t frames = snd_pcm_readi(pcm, buffer, CHUNK);
		snd_htimestamp_t stamp;
		long long last, index;

		if (frames < 0) {
			printf("overrun\n");
			snd_pcm_prepare(pcm);
			snd_pcm_start(pcm);
			continue;
		}
		snd_pcm_status(pcm, status);
		snd_pcm_status_get_htstamp(status, &stamp);
		/* At `stamp` the newest captured frame was position + frames + avail - 1. */
		last = position + frames + snd_pcm_status_get_avail(status) - 1;
		for (index = 0; index < frames; index++) {
			int value = abs(buffer[2 * index]);

			if (value >= 3000 && quiet >= RATE / 10) {
				long long ns = (long long)stamp.tv_sec * 1000000000LL + stamp.tv_nsec -
					       (last - (position + index)) * 1000000000LL / RATE;
				printf("onset %lld\n", ns);
				fflush(stdout);
			}
			quiet = value < 300 ? quiet + 1 : 0;
		}
		position += frames;
	}
	snd_pcm_close(pcm);
	return 0;
}

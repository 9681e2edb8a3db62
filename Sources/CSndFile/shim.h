// SPDX-License-Identifier: Apache-2.0
// libsndfile (Debian: libsndfile1-dev): WAV, FLAC, Ogg/Vorbis and, where the installed library has it, MP3.
#include <sndfile.h>
